// `netdp muffliato-gd`: Muffliato-GD / SGD (Algorithm 6.3, MATH_SPEC 6.5) runs and their privacy accounting
// into a results directory.
#include <omp.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/jobs/muffliato_gd_job.hpp"

namespace netdp::cli {

namespace {

struct MgdOptions {
  std::string graph, weights = "metropolis", objective = "quadratic", data, gap = "second", out;
  int dim = 0, samples = 0, steps = 1, gossip_rounds = 1, batch = 0, threads = 0;
  double step_size = 0.1, sigma = 0, clip = 0, l2 = 0, alpha = 2, er_c = 0, sensitivity = 0;
  long long runs = 1, source = -1;
  std::uint64_t seed = 0;
  bool reference_code = false, no_cap = false;
  CLI::Option *er_c_option = nullptr, *sensitivity_option = nullptr;
};

MuffliatoGdJob make_job(const MgdOptions& o, const nlohmann::json& invocation) {
  if (o.threads < 0) throw InvalidInput("--threads must be >= 0");
  if (o.threads > 0) omp_set_num_threads(o.threads);
  MuffliatoGdJob job;
  job.graph = o.graph;
  job.weights = parse_weights_spec(o.weights);
  auto& p = job.params;
  p.objective = parse_objective(o.objective);
  p.steps = o.steps;
  p.gossip_steps = o.gossip_rounds;
  p.step_size = o.step_size;
  p.sigma = o.sigma;
  p.runs = o.runs;
  p.seed = o.seed;
  p.batch = o.batch;
  p.clip = o.clip;
  p.l2 = o.l2;
  p.noise_order = o.reference_code ? NoiseOrder::reference_code : NoiseOrder::clip_then_noise;
  p.gap_definition = parse_gap_definition(o.gap);
  if (o.er_c_option->count()) job.er_c = o.er_c;
  job.data = o.data;
  job.dim = o.dim;
  job.samples = o.samples;
  job.alpha = o.alpha;
  if (o.sensitivity_option->count()) {
    if (!(o.sensitivity > 0)) throw InvalidInput("--sensitivity must be > 0");
    job.sensitivity = o.sensitivity;
  }
  job.cap_ldp = !o.no_cap;
  if (o.source < -1 || o.source > 2147483647LL)
    throw InvalidInput("--source must be a node id in [0, n), got " + std::to_string(o.source));
  if (o.source >= 0) job.source = static_cast<node_t>(o.source);
  job.out_dir = o.out;
  job.invocation = invocation;
  return job;
}

}  // namespace

Command add_muffliato_gd_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c =
      app.add_subcommand("muffliato-gd",
                         "Muffliato-GD / SGD (Alg 6.3): local gradient steps, Gaussian noise, K "
                         "accelerated gossip steps; utility curves over runs and privacy (Thm 6.9 / C.9)");
  auto o = std::make_shared<MgdOptions>();
  add_graph_options(*c, o->graph, o->weights);
  c->add_option("--objective", o->objective, "quadratic | least-squares | logistic")->capture_default_str();
  c->add_option("--data", o->data,
                "CSV file: rows of p features then a label (+-1 for logistic; quadratic: p values), split "
                "across the nodes in file order; default: synthetic data from the seed");
  c->add_option("--dim", o->dim, "dimension p (synthetic data: required; with --data: from the file)");
  c->add_option("--samples", o->samples,
                "synthetic examples per node (default 1 for quadratic, 10 otherwise)");
  c->add_option("--steps", o->steps, "outer iterations T (gradient steps)")->required();
  c->add_option("--gossip-rounds", o->gossip_rounds, "accelerated gossip steps K per iteration")->required();
  c->add_option("--step-size", o->step_size, "step size nu")->capture_default_str();
  c->add_option("--sigma", o->sigma,
                "gradient noise std: theta_hat gets N(0, nu^2 sigma^2) per coordinate (0 = no noise)")
      ->capture_default_str();
  c->add_option("--runs", o->runs, "independent runs R")->capture_default_str();
  c->add_option("--seed", o->seed, "Philox seed of data, noise, batches and graphs")->capture_default_str();
  o->er_c_option =
      c->add_option("--er-c", o->er_c, "a fresh connected G(n, c ln(n)/n), W-MH, per outer iteration");
  c->add_option("--batch", o->batch, "mini-batch size b per node (0 = full local gradient)")
      ->capture_default_str();
  c->add_option("--clip", o->clip, "per-example gradient clipping norm L (0 = none)")->capture_default_str();
  c->add_option("--l2", o->l2, "ridge term mu/2 ||theta||^2 of every f_v")->capture_default_str();
  c->add_flag("--reference-code", o->reference_code,
              "Fig. 6.1c code order: clip(gradient + N(0, (sigma/2)^2), L) instead of clip, then noise");
  c->add_option("--alpha", o->alpha, "Renyi order of the privacy accounting")->capture_default_str();
  o->sensitivity_option = c->add_option(
      "--sensitivity", o->sensitivity,
      "Delta_phi of the accounting (default: 2L with --clip, 0.5 with --reference-code, else 1)");
  c->add_option("--source", o->source, "privacy of this source only (all pairs by default)");
  c->add_flag("--no-cap", o->no_cap, "do not cap pairwise losses at T x the LDP level");
  c->add_option("--gap", o->gap, "spectral gap for gamma: second (1 - lambda_2) or abs")
      ->check(CLI::IsMember({"second", "abs"}))
      ->capture_default_str();
  c->add_option("--threads", o->threads, "CPU threads (0 = OMP_NUM_THREADS or all cores)")
      ->capture_default_str();
  c->add_option("--out", o->out, "output directory")->required();
  return {c,
          [o, invocation] {
            auto s = run_muffliato_gd_job(make_job(*o, invocation));
            const auto& f = s["final"];
            report(
                "muffliato-gd: %s, n = %d, T = %d, K = %d, R = %lld, final objective %.6g (optimum %.6g), "
                "consensus %.3g, %.3f s -> %s\n",
                s["objective"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<int>(),
                s["gossip_rounds"].get<int>(), s["runs"].get<long long>(),
                f["objective"]["mean"].get<double>(), s["optimum"]["value"].get<double>(),
                f["consensus"]["mean"].get<double>(), s["seconds_total"].get<double>(), o->out.c_str());
            return 0;
          },
          true};
}

}  // namespace netdp::cli
