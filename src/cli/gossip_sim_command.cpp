// `netdp gossip-sim`: Monte Carlo runs of private gossip averaging (MATH_SPEC 6.1-6.4, 6.8) into a results
// directory.
#include <omp.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "cli/options.hpp"
#include "netdp/error.hpp"
#include "netdp/gossip_sim_job.hpp"

namespace netdp::cli {

namespace {

struct SimOptions {
  std::string graph, weights = "metropolis", protocol = "sync", steps, init = "zero", device = "auto",
                     gap = "second", out;
  long long runs = 1, batch_runs = 0;
  int dim = 1, threads = 0, record_every = 1;
  double sigma = 1.0, er_c = 1.0, dropout = 0.0, memory_limit_gib = 0;
  double target = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t seed = 0;
  bool quiet = false;
};

GossipSimJob make_sim_job(const SimOptions& o, const nlohmann::json& invocation) {
  if (o.threads < 0) throw InvalidInput("--threads must be >= 0");
  if (o.threads > 0) omp_set_num_threads(o.threads);
  GossipSimJob job;
  job.graph = o.graph;
  job.auto_steps = o.steps == "auto";
  auto& p = job.params;
  if (!job.auto_steps) {
    auto [end, ec] = std::from_chars(o.steps.data(), o.steps.data() + o.steps.size(), p.steps);
    if (ec != std::errc() || end != o.steps.data() + o.steps.size())
      throw InvalidInput("--steps: expected a positive integer or auto, got '" + o.steps + "'");
  }
  p.protocol = parse_gossip_protocol(o.protocol);
  p.runs = o.runs;
  p.dim = o.dim;
  p.sigma = o.sigma;
  p.seed = o.seed;
  p.init = parse_init_spec(o.init);
  p.weights = parse_weights_spec(o.weights);
  p.dropout = o.dropout;
  p.record_every = o.record_every;
  p.device = parse_device_spec(o.device);
  p.batch_runs = o.batch_runs;
  if (o.memory_limit_gib < 0) throw InvalidInput("--memory-limit must be >= 0");
  p.memory_limit = static_cast<std::int64_t>(o.memory_limit_gib * double(1LL << 30));
  job.er_c = o.er_c;
  if (!std::isnan(o.target)) job.target = o.target;
  job.gap = parse_gap_definition(o.gap);
  job.out_dir = o.out;
  job.progress = !o.quiet;
  job.invocation = invocation;
  return job;
}

}  // namespace

Command add_gossip_sim_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c =
      app.add_subcommand("gossip-sim",
                         "Monte Carlo runs of private gossip averaging (Muffliato, Alg 6.1 / 6.2): error "
                         "to the true average per round, over runs, next to Thm 6.2 / 6.4");
  auto o = std::make_shared<SimOptions>();
  add_graph_options(*c, o->graph, o->weights);
  c->add_option("--protocol", o->protocol,
                "sync | accelerated (Chebyshev, 2.4) | randomized (one edge per tick, 6.3) | er-per-round (a "
                "fresh G(n, c ln n / n) per round, 6.4) | dropout (6.8)")
      ->capture_default_str();
  c->add_option("--steps", o->steps,
                "rounds T (ticks for randomized), or auto for T_stop (MATH_SPEC 2.3 / 6.3)")
      ->required();
  c->add_option("--runs", o->runs, "independent runs R")->capture_default_str();
  c->add_option("--dim", o->dim, "dimension D of every node's value")->capture_default_str();
  c->add_option("--sigma", o->sigma, "absolute std of the Gaussian noise each node adds once (0 = none)")
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Philox seed of every random draw")->capture_default_str();
  c->add_option("--init", o->init, "initial values: zero | normal | uniform | file:PATH")
      ->capture_default_str();
  c->add_option("--er-c", o->er_c, "er-per-round: edge probability q = c ln(n) / n")->capture_default_str();
  c->add_option("--dropout", o->dropout, "dropout: probability q that a node sits out a round")
      ->capture_default_str();
  c->add_option("--target", o->target, "report the first t whose mean error is <= this");
  c->add_option("--gap", o->gap, "spectral gap for gamma, bounds and auto: second (1 - lambda_2) or abs")
      ->check(CLI::IsMember({"second", "abs"}))
      ->capture_default_str();
  c->add_option("--record-every", o->record_every, "report every K-th t (and T)")->capture_default_str();
  c->add_option("--batch-runs", o->batch_runs, "runs per batch (0 = from the memory available)")
      ->capture_default_str();
  c->add_option("--device", o->device, "auto | cpu (no CUDA simulator yet)")->capture_default_str();
  c->add_option("--memory-limit", o->memory_limit_gib, "GiB the run may use (0 = what the machine has free)")
      ->capture_default_str();
  c->add_option("--threads", o->threads, "CPU threads (0 = OMP_NUM_THREADS or all cores)")
      ->capture_default_str();
  c->add_option("--out", o->out, "output directory")->required();
  c->add_flag("--quiet", o->quiet, "no progress lines on stderr");
  return {c, [o, invocation] {
            auto s = run_gossip_sim_job(make_sim_job(*o, invocation));
            const auto& f = s["final"];
            std::printf(
                "gossip-sim: %s, n = %d, T = %d, R = %lld, final error %.6g (noise floor %.6g), %s, "
                "%.3f s -> %s\n",
                s["protocol"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<int>(),
                s["runs"].get<long long>(), f["mean"].get<double>(), s["noise_floor"].get<double>(),
                s["device"].get<std::string>().c_str(), s["seconds"].get<double>(), o->out.c_str());
            return 0;
          }};
}

}  // namespace netdp::cli
