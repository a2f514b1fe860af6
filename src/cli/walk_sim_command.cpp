// `netdp walk-sim`: Monte Carlo token walks with the empirical privacy accounting of MATH_SPEC 4.1.3 into a
// results directory.
#include <omp.h>

#include <cstdio>
#include <memory>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/jobs/walk_sim_job.hpp"

namespace netdp::cli {

namespace {

struct WalkSimOptions {
  std::string graph, weights = "auto", mechanism = "gaussian", view = "known", start = "node:0",
                     device = "auto", out;
  long long steps = 0, runs = 0, batch_runs = 0;
  std::uint64_t seed = 0;
  double eps0 = 0.1, delta = 1e-7;
  std::vector<double> quantiles{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
  int threads = 0;
  bool no_accounting = false, save_paths = false, quiet = false;
};

WalkSimJob make_walk_sim_job(const WalkSimOptions& o, const nlohmann::json& invocation) {
  if (o.threads < 0) throw InvalidInput("--threads must be >= 0");
  if (o.threads > 0) omp_set_num_threads(o.threads);
  WalkSimJob job;
  job.graph = o.graph;
  job.weights = o.weights;
  auto& p = job.params;
  p.steps = o.steps;
  p.runs = o.runs;
  p.seed = o.seed;
  p.eps0 = o.eps0;
  p.delta = o.delta;
  p.mechanism = parse_walk_mechanism(o.mechanism);
  p.view = parse_walk_view(o.view);
  p.start = parse_walk_start(o.start);
  p.accounting = !o.no_accounting;
  p.save_paths = o.save_paths;
  p.quantiles = o.quantiles;
  p.batch_runs = o.batch_runs;
  p.device = parse_device_spec(o.device);
  job.out_dir = o.out;
  job.progress = !o.quiet;
  job.invocation = invocation;
  return job;
}

}  // namespace

Command add_walk_sim_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c = app.add_subcommand("walk-sim",
                               "Monte Carlo token walks with the empirical pairwise privacy accounting of "
                               "Fig. 7.1b (MATH_SPEC 4.1.3), "
                               "visit / return-time statistics and the utility of private summation");
  auto o = std::make_shared<WalkSimOptions>();
  c->add_option("--graph", o->graph,
                "graph spec FAMILY:key=value,... (docs/graphs.md); complete:n=N is the implicit J/n walk")
      ->required();
  c->add_option(
       "--weights", o->weights,
       "transition matrix: auto (J/n on complete graphs, else uniform) | uniform (1/d_v) | lazy-uniform | "
       "metropolis | hamilton-literal | max-degree | file:PATH | directed-ring (ring:n=N only)")
      ->capture_default_str();
  c->add_option("--steps", o->steps, "positions T per walk (T contributions)")->required();
  c->add_option("--runs", o->runs, "independent walks R")->required();
  c->add_option("--seed", o->seed, "Philox seed of every random draw")->capture_default_str();
  c->add_option("--eps0", o->eps0, "LDP level eps0 of one contribution")->capture_default_str();
  c->add_option("--delta", o->delta, "delta of the compositions (C4: k delta; C2: delta' = delta)")
      ->capture_default_str();
  c->add_option("--mechanism", o->mechanism,
                "gaussian (per-cycle mass eps0/sqrt(m)) | histogram (SH3 shuffling level, memoised per m)")
      ->capture_default_str();
  c->add_option(
       "--view", o->view,
       "known: v knows its sender and receiver (the figure procedure) | hidden: c = 0 for every cycle")
      ->capture_default_str();
  c->add_option("--start", o->start, "node:U | uniform | stationary")->capture_default_str();
  c->add_option("--quantiles", o->quantiles, "quantiles of the pairwise network loss to report")
      ->delimiter(',')
      ->capture_default_str();
  c->add_flag("--no-accounting", o->no_accounting, "plain walks: visit statistics only");
  c->add_flag("--save-paths", o->save_paths, "write paths.csv (small runs only: R T <= 1e6)");
  c->add_option("--batch-runs", o->batch_runs, "runs per batch (0 = automatic)")->capture_default_str();
  c->add_option("--threads", o->threads, "CPU threads (0 = OMP_NUM_THREADS or all cores)")
      ->capture_default_str();
  c->add_option("--device", o->device, "auto | cpu | cuda[:N] (CUDA: everything but --save-paths)")
      ->capture_default_str();
  c->add_option("--out", o->out, "output directory")->required();
  c->add_flag("--quiet", o->quiet, "no progress lines on stderr");
  return {c,
          [o, invocation] {
            auto s = run_walk_sim_job(make_walk_sim_job(*o, invocation));
            if (s["accounting"].get<bool>())
              report(
                  "walk-sim: %s, n = %d, T = %lld, R = %lld, network loss mean %.6g (min %.6g, max %.6g), "
                  "LDP mean %.6g, %.3g steps/s, %s -> %s\n",
                  s["walk"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<long long>(),
                  s["runs"].get<long long>(), s["network_loss"]["mean"].get<double>(),
                  s["network_loss"]["min"].get<double>(), s["network_loss"]["max"].get<double>(),
                  s["local_loss"]["mean"].get<double>(), s["steps_per_second"].get<double>(),
                  s["device"].get<std::string>().c_str(), o->out.c_str());
            else
              report("walk-sim: %s, n = %d, T = %lld, R = %lld, plain walks, %.3g steps/s, %s -> %s\n",
                     s["walk"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<long long>(),
                     s["runs"].get<long long>(), s["steps_per_second"].get<double>(),
                     s["device"].get<std::string>().c_str(), o->out.c_str());
            return 0;
          },
          true, [o, invocation] { check_walk_sim_job(make_walk_sim_job(*o, invocation)); }};
}

}  // namespace netdp::cli
