// `netdp gossip-sim`: Monte Carlo runs of private gossip averaging (MATH_SPEC 6.1-6.4, 6.8), and with
// --privacy the pairwise losses of every run (Thm 6.1), into a results directory.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/jobs/gossip_sim_job.hpp"

namespace netdp::cli {

namespace {

struct SimOptions {
  std::string graph, weights = "metropolis", protocol = "sync", steps, init = "zero", device = "auto",
                     gap = "second", out, sequence;
  long long runs = 1, batch_runs = 0;
  int dim = 1, threads = 0, record_every = 1;
  double sigma = 1.0, er_c = 1.0, dropout = 0.0, memory_limit_gib = 0;
  double target = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t seed = 0;
  bool quiet = false;
  // --privacy (MATH_SPEC 6.1): the accountant on every run's schedule
  bool privacy = false;
  double alpha = 2.0, sensitivity = 1.0;
  int t_start = 0;
  long long source = -1;
  std::string cap = "ldp", quantiles;
};

/// "0.5,0.9" -> {0.5, 0.9}.
std::vector<double> parse_levels(const std::string& text) {
  std::vector<double> levels;
  std::size_t at = 0;
  while (at <= text.size() && !text.empty()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    double level = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), level);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw InvalidInput("--quantiles: expected numbers in [0, 1] separated by commas, got '" + text + "'");
    levels.push_back(level);
    at = comma + 1;
  }
  return levels;
}

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
  job.sequence = o.sequence;
  job.privacy = o.privacy;
  auto& q = job.privacy_params;
  q.alpha = o.alpha;
  q.sensitivity = o.sensitivity;
  q.t_start = o.t_start;
  q.cap_ldp = o.cap == "ldp";
  if (o.source < -1 || o.source > 0x7fffffff)
    throw InvalidInput("--source " + std::to_string(o.source) + " is not a node id");
  if (o.source >= 0) q.source = static_cast<node_t>(o.source);
  q.quantiles = parse_levels(o.quantiles);
  if (!o.privacy && (o.source >= 0 || !o.quantiles.empty()))
    throw InvalidInput("--source and --quantiles need --privacy");
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
                "fresh G(n, c ln n / n) per round, 6.4) | dropout (6.8) | sequence (--sequence, 6.1)")
      ->capture_default_str();
  c->add_option("--sequence", o->sequence,
                "sequence: a file listing one weight-matrix file per line (W_0, W_1, ...; repeated "
                "cyclically)");
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
  c->add_option("--device", o->device, "auto | cpu | cuda[:N] (CUDA: every protocol, without --privacy)")
      ->capture_default_str();
  c->add_option("--memory-limit", o->memory_limit_gib, "GiB the run may use (0 = what the machine has free)")
      ->capture_default_str();
  c->add_option("--threads", o->threads, "CPU threads (0 = OMP_NUM_THREADS or all cores)")
      ->capture_default_str();
  c->add_option("--out", o->out, "output directory")->required();
  c->add_flag("--quiet", o->quiet, "no progress lines on stderr");
  c->add_flag("--privacy", o->privacy,
              "also the pairwise losses of Thm 6.1 on every run's schedule, aggregated over runs");
  c->add_option("--alpha", o->alpha, "privacy: Renyi order alpha > 1")->capture_default_str();
  c->add_option("--sensitivity", o->sensitivity, "privacy: l2 sensitivity Delta of a node's value")
      ->capture_default_str();
  c->add_option("--t-start", o->t_start,
                "privacy: first message counted, 0 = Theorem 6.1, 1 = reference code")
      ->capture_default_str();
  c->add_option("--cap", o->cap, "privacy: ldp = min(f, alpha Delta^2/(2 sigma^2)), none = the raw sum")
      ->check(CLI::IsMember({"ldp", "none"}))
      ->capture_default_str();
  c->add_option("--source", o->source, "privacy: only the row of this source node u");
  c->add_option("--quantiles", o->quantiles,
                "privacy: levels of per-pair quantiles over runs, e.g. 0.5,0.9 (keeps every run's losses)");
  return {c,
          [o, invocation] {
            auto s = run_gossip_sim_job(make_sim_job(*o, invocation));
            const auto& f = s["final"];
            report(
                "gossip-sim: %s, n = %d, T = %d, R = %lld, final error %.6g (noise floor %.6g), %s, "
                "%.3f s -> %s\n",
                s["protocol"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<int>(),
                s["runs"].get<long long>(), f["mean"].get<double>(), s["noise_floor"].get<double>(),
                s["device"].get<std::string>().c_str(), s["seconds"].get<double>(), o->out.c_str());
            if (s.contains("privacy") && !s["privacy"]["mean"].is_null())
              report("gossip-sim privacy: mean loss %.6g, max %.6g over %lld computed run(s), %.3f s\n",
                     s["privacy"]["mean"].get<double>(), s["privacy"]["max"].get<double>(),
                     s["privacy"]["computed_runs"].get<long long>(), s["privacy"]["seconds"].get<double>());
            return 0;
          },
          true, [o, invocation] { check_gossip_sim_job(make_sim_job(*o, invocation)); }};
}

}  // namespace netdp::cli
