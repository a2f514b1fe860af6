#include "netdp/jobs/walk_loss_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/coalition.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/accounting/loss_statistics.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

/// Every loss is proportional to 1 / sigma^2, clipping level included (docs/math.md §5.8), so the sigma
/// meeting a target mean loss follows from one run at sigma = 1: sigma^2 = statistic(1) / target.
double calibrate_sigma(const Graph& g, const CsrMatrix& w, WalkLossParams p, const WalkLossJob& job,
                       double* statistic_at_one) {
  p.sigma = 1.0;
  LossStatistics stats(g);
  walk_loss(g, w, p, stats);
  double value = stats.overall().mean();
  if (job.target_statistic == TargetStatistic::max_observer) {
    auto mean = stats.observer_mean();
    value = *std::max_element(mean.begin(), mean.end());
  }
  *statistic_at_one = value;
  if (!(value > 0))
    throw InvalidParameter("target-mean-loss",
                           "target-mean-loss: the mean loss is 0 at sigma = 1, nothing to calibrate");
  return std::sqrt(value / job.target_mean_loss);
}

CsvTable coalition_table(const WorstCoalition& coalition) {
  CsvTable csv("collusion.csv", {{"u", CsvType::int64}, {"worst_coalition_loss", CsvType::float64}});
  for (auto [u, loss] : coalition.worst()) csv.row({u, loss});
  return csv;
}

}  // namespace

void check_walk_loss_job(const WalkLossJob& job) {
  WalkLossParams early = job.params;
  if (job.auto_steps) early.steps = 1;
  const node_t n = planned_node_count(job.graph);  // source < n: the study's validation sees it too
  validate(early, n);
  require_device(early.device);
  const bool calibrating = job.target_mean_loss > 0;
  if (job.target_mean_loss < 0 || !std::isfinite(job.target_mean_loss))
    throw InvalidParameter("target-mean-loss", "target-mean-loss must be > 0");
  if (calibrating && job.auto_steps)
    throw InvalidParameter(
        "target-mean-loss",
        "target-mean-loss needs steps T, not auto: the horizon T_RW itself depends on sigma");
  if (calibrating && job.params.source)
    throw InvalidParameter("target-mean-loss", "target-mean-loss needs every source: drop source");
  if (job.colluders < 0 || (job.colluders > 0 && job.colluders > n - 1))
    throw InvalidParameter("colluders", "colluders must be between 0 and n - 1 = " + std::to_string(n - 1) +
                                            ", got " + std::to_string(job.colluders));
}

RunResult run_walk_loss_job(const WalkLossJob& job, const ResultsDir& out) {
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  WalkLossParams params = job.params;
  const bool calibrating = job.target_mean_loss > 0;
  // Fail on bad numbers and absent devices before building a large graph or touching the output directory.
  check_walk_loss_job(job);
  resolve_device(params.device);

  const JobGraph graph = load_job_graph(job.graph, job.weights, job.gap, true, job.progress);
  const auto& [g, w, spectrum, gap] = graph;
  if (job.auto_steps) params.steps = auto_steps(graph, params.sigma, "the horizon T_RW", random_walk_horizon);
  validate(params, g.n);
  params.lambda_2 = spectrum.lambda_2;  // the chebyshev solver's interval: no second Lanczos
  params.lambda_min = spectrum.lambda_min;

  double statistic_at_one = 0;
  if (calibrating) params.sigma = calibrate_sigma(g, w, params, job, &statistic_at_one);
  const bool weak_convexity = walk_weak_convexity_holds(params, job.stated_condition);
  json warnings = json::array();  // also in summary.json, where --quiet runs and studies find them
  if (!weak_convexity)
    warnings.push_back("sigma^2 = " + format_double(params.sigma * params.sigma) +
                       " is below the weak-convexity condition of Thm 7.7 (" +
                       (job.stated_condition ? "stated" : "exact") +
                       " form); the losses are reported but the theorem does not cover them");
  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  LossReport report(g, out, params.source ? 1 : g.n, "walk-loss", job.progress, job.write_matrix,
                    job.diagonal_local ? walk_local_loss(params) : 0.0);
  std::optional<WorstCoalition> coalition;
  std::vector<LossRowSink*> sinks{&report.sink()};
  if (job.colluders > 0) sinks.push_back(&coalition.emplace(g.n, job.colluders));
  LossRowTee sink(sinks);
  WalkLossRun run = walk_loss(g, w, params, sink);
  const json losses = report.finish(result);
  // Every time, the defaults too, once the run succeeded (a refused run prints only its error); --quiet runs
  // find them in summary.json.
  if (job.progress)
    for (const auto& w : warnings) std::fprintf(stderr, "netdp: warning: %s\n", w.get<std::string>().c_str());

  json summary = {
      {"model", "walk-loss"},
      {"n", g.n},
      {"edges", g.num_edges()},
      {"spectral_gap", gap},
      {"gap_definition", to_string(job.gap)},
      {"lambda_2", spectrum.lambda_2},
      {"lambda_min", spectrum.lambda_min},
      {"steps", params.steps},
      {"steps_rule", job.auto_steps ? "auto: T_RW of docs/math.md §2.3" : "given"},
      {"method", to_string(params.method)},
      {"sender", to_string(params.sender)},
      {"alpha", params.alpha},
      // noise_multiplier is the name since issue 29; sigma, the same number, stays for one release
      // (docs/outputs.md "walk-loss").
      {"noise_multiplier", params.sigma},
      {"sigma", params.sigma},
      {"contributions", walk_contributions(params, g.n)},
      {"clip", params.clip},
      {"local_loss", walk_local_loss(params)},
      {"weak_convexity",
       {{"condition", job.stated_condition ? "stated" : "exact"}, {"holds", weak_convexity}}},
      {"warnings", warnings},
      {"device", run.device},
      {"device_note", run.device_note},
      {"tiles", run.tiles},
      {"tile_sources", run.tile_sources},
      {"memory_estimate_bytes", run.memory_estimate},
      {"seconds", run.seconds},
      {"seconds_eigen", run.eigen_seconds},
      {"solver", run.solver},
      {"solver_rule", run.solver_rule},
      {"method_error_bound", run.error_bound},
  };
  if (run.solver == "chebyshev")
    summary["chebyshev"] = {{"degree", run.degree},
                            {"interval", {run.interval_lo, run.interval_hi}},
                            {"tolerance", params.tolerance}};
  summary.update(losses);
  if (params.source) summary["source"] = *params.source;
  if (calibrating)
    summary["calibration"] = {
        {"target_mean_loss", job.target_mean_loss},
        {"statistic", job.target_statistic == TargetStatistic::max_observer ? "max-observer" : "all-pairs"},
        {"statistic_at_sigma_1", statistic_at_one},
        {"noise_multiplier", params.sigma},
        {"sigma", params.sigma}};
  if (coalition) {
    result.add(coalition_table(*coalition));
    double worst = 0, sum = 0;
    for (auto [u, loss] : coalition->worst()) {
      worst = std::max(worst, loss);
      sum += loss;
    }
    summary["collusion"] = {{"colluders", job.colluders},
                            {"max_worst_coalition_loss", worst},
                            {"mean_worst_coalition_loss", sum / double(coalition->worst().size())}};
  }
  summary["seconds_total"] = elapsed();

  json manifest = manifest_header("walk-loss", job.invocation);
  manifest.update(
      {{"parameters",
        {{"graph", job.graph},
         {"weights", to_string(job.weights)},
         {"alpha", job.params.alpha},
         {"noise_multiplier", job.params.sigma},
         {"noise_multiplier_used", params.sigma},
         {"sigma", job.params.sigma},  // the old names, for one release (docs/outputs.md "walk-loss")
         {"sigma_used", params.sigma},
         {"steps", job.auto_steps ? json("auto") : json(params.steps)},
         {"steps_resolved", params.steps},
         {"method", to_string(params.method)},
         {"solver", to_string(params.solver)},
         {"tolerance", params.tolerance},
         {"sender", to_string(params.sender)},
         {"contributions", params.contributions},
         {"clip", params.clip},
         {"diagonal", job.diagonal_local ? "local" : "zero"},
         {"colluders", job.colluders},
         {"target_mean_loss", job.target_mean_loss},
         {"source", params.source ? json(*params.source) : json(nullptr)},
         {"gap_definition", to_string(job.gap)},
         {"tile_sources", params.tile_sources},
         {"memory_limit", params.memory_limit}}},
       {"backend", {{"device", run.device}, {"tiles", run.tiles}, {"tile_sources", run.tile_sources}}}});
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model walk_loss_model() {
  using namespace declare;
  Model m = named_model(
      "walk-loss", "pairwise Renyi loss eps(u -> v) of random-walk DP-SGD on a graph (Thm 7.7, Lemma D.17)",
      "--graph hypercube:dim=6 --steps 200 --noise-multiplier 2 --out out/walk-loss");
  // A noise multiplier, not an absolute std: named apart from gossip-loss's sigma (issue 29); --sigma is
  // its deprecated spelling for one release.
  Binding<WalkLossJob> bind;
  using Job = WalkLossJob;
  m.parameters = loss_parameters(
      bind,
      bind(noise_multiplier("noise std over the sensitivity: each step adds N(0, Delta^2 sigma^2) with sigma "
                            "this multiplier; the default 1 (the reference figures) is below the stated "
                            "condition of Thm 7.7: stderr and summary.json warn",
                            above(0)),
           [](Job& j, double multiplier) { j.params.sigma = multiplier; }),  // the library's sigma
      "walk length T, or auto for the horizon T_RW of the reference figures (docs/math.md §2.3)");
  append(
      m.parameters,
      {bind(choice(
                "method",
                "spectral: closed form of Thm 7.7 (ln T, -log(I - W + J/n)); finite: exact finite-T sum via "
                "the spectrum; series: the same sum by propagation",
                {"spectral", "finite", "series"})
                .fallback("spectral"),
            [](Job& j, const std::string& method) { j.params.method = parse_walk_loss_method(method); }),
       bind(choice(
                "solver",
                "graph term of spectral/finite: eigen (dense eigendecomposition, exact reference), chebyshev "
                "(expansion by sparse products, error below tolerance), auto (by size and gap; "
                "docs/walk_loss.md)",
                {"auto", "eigen", "chebyshev"})
                .fallback("auto"),
            [](Job& j, const std::string& solver) { j.params.solver = parse_walk_loss_solver(solver); }),
       bind(real("tolerance", "chebyshev solver: bound on the expansion error of the graph term")
                .fallback("1e-12")
                .range(above(0)),
            &Job::params, &WalkLossParams::tolerance),
       bind(choice("sender", "anonymous: v does not know who sent it the token; known: it does (5.4)",
                   {"anonymous", "known"})
                .fallback("anonymous"),
            [](Job& j, const std::string& sender) { j.params.sender = parse_sender_view(sender); }),
       bind(real("contributions", "contributions N_u of each node (0 = T/n, docs/math.md §5.2)")
                .fallback("0")
                .range(at_least(0)),
            &Job::params, &WalkLossParams::contributions),
       bind(flag("clip", "clip losses to [0, alpha/(2 sigma^2)] like the reference figures"), &Job::params,
            &WalkLossParams::clip),
       bind(integer("colluders", "also report the worst coalition of K observers per source (5.5)")
                .fallback("0")
                .range(at_least(0)),
            &Job::colluders),
       bind(real("target-mean-loss",
                 "choose noise-multiplier so that the mean loss equals this (docs/math.md §5.8); needs steps "
                 "T, not auto")
                .fallback("0"),
            &Job::target_mean_loss),
       bind(choice("target-statistic",
                   "max-observer: max_v (1/n) sum_u eps(u -> v); all-pairs: mean over ordered pairs",
                   {"max-observer", "all-pairs"})
                .fallback("max-observer"),
            [](Job& j, const std::string& statistic) {
              j.target_statistic =
                  statistic == "all-pairs" ? TargetStatistic::all_pairs : TargetStatistic::max_observer;
            }),
       bind(choice("condition",
                   "weak-convexity condition checked: stated (sigma^2 >= 2a(a-1)) or exact (a(a-1)/2)",
                   {"stated", "exact"})
                .fallback("stated"),
            [](Job& j, const std::string& condition) { j.stated_condition = condition == "stated"; })});
  m.validate = bind.check(check_walk_loss_job);
  m.execute = bind.run(run_walk_loss_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line(
        "walk-loss: n = %d, T = %d, noise multiplier = %g, mean loss %.6g, max %.6g, %s, %.3f s -> %s\n",
        s["n"].get<int>(), s["steps"].get<int>(), s["noise_multiplier"].get<double>(),
        s["mean_loss"].get<double>(), s["max_loss"].get<double>(), s["device"].get<std::string>().c_str(),
        s["seconds"].get<double>(), c.out_dir.string().c_str());
  };
  // W and the dense spectrum (n x n) for the eigen solver; the chebyshev solver (auto beyond n = 512 when
  // cheaper) holds panels only. Seconds from the solvers' own cost model (walk_loss_solver_seconds, one core
  // of the benchmark machine) with a guessed degree K = 100 (the gap is not known before the graph is built:
  // K is about 50 for ER c = 1.2, a few hundred for random geometric graphs), plus writing the n^2 losses
  // (about 1 GB/s on a local SSD; none with --no-matrix); calibration (--target-mean-loss) runs the solver
  // twice. The series method propagates T steps.
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, entries = 2 * g.m + n;
    const double T = estimate_steps(job.auto_steps ? 0 : job.params.steps, n);
    const WalkLossSolver solver = job.params.solver;
    const double write = job.write_matrix ? 8 * n * n / 1e9 : 0;
    const double passes = job.target_mean_loss > 0 ? 2 : 1;
    if (job.params.method == WalkLossMethod::series)
      return Estimate{16 * entries + 8 * n * n, passes * T * entries * n / 1e10 + write};
    const double eigen = walk_loss_solver_seconds(WalkLossSolver::eigen, n, entries, 0);
    const double chebyshev = walk_loss_solver_seconds(WalkLossSolver::chebyshev, n, entries, 100);
    const bool dense = solver == WalkLossSolver::eigen ||
                       (solver == WalkLossSolver::automatic && (n <= 512 || eigen < chebyshev));
    return Estimate{16 * entries + (dense ? 32 : 8) * n * n, passes * (dense ? eigen : chebyshev) + write};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
