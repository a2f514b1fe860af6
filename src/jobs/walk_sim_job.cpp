#include "netdp/jobs/walk_sim_job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/dp/concentration.hpp"
#include "netdp/io/csv_table.hpp"
#include "netdp/simulation/walk_sim_theory.hpp"

#include "core/progress.hpp"
#include "jobs/binding.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

constexpr node_t kMaxNodesCsv = 100'000;

constexpr CsvType kInt = CsvType::int64, kFloat = CsvType::float64;

/// A mean over no sample is an empty cell (docs/outputs.md §8).
CsvCell finite_or_empty(double x) {
  return std::isfinite(x) ? CsvCell(x) : CsvCell(csv_empty);
}

CsvTable by_distance_table(const WalkSimResult& r) {
  CsvTable csv("by_distance.csv",
               {{"distance", kInt}, {"pairs", kFloat}, {"mean", kFloat}, {"min", kFloat}, {"max", kFloat}});
  for (std::size_t d = 1; d < r.by_distance.size(); ++d) {
    const LossStats& s = r.by_distance[d];
    if (s.weight == 0) continue;
    csv.row({d, s.weight, s.mean(), s.min, s.max});
  }
  return csv;
}

// statistics visits: the per-node visit totals, all that the stepping engine counts.
CsvTable visits_table(const WalkModel& m, const WalkSimResult& r) {
  CsvTable csv("visits.csv", {{"node", kInt},
                              {"degree", kInt},
                              {"pi", kFloat},
                              {"visits", kInt},
                              {"visits_mean", kFloat},
                              {"visits_expected", kFloat}});
  for (node_t v = 0; v < r.n; ++v)
    csv.row({v, m.degree(v), m.pi(v), r.visits[v], double(r.visits[v]) / double(r.runs),
             double(r.steps) * m.pi(v)});
  return csv;
}

CsvTable nodes_table(const WalkModel& m, const WalkSimResult& r, bool accounting) {
  std::vector<CsvColumn> columns{{"node", kInt},
                                 {"degree", kInt},
                                 {"pi", kFloat},
                                 {"visits_mean", kFloat},
                                 {"visits_expected", kFloat},
                                 {"returns", kInt},
                                 {"mean_return_time", kFloat},
                                 {"expected_return_time", kFloat},
                                 {"hits", kInt},
                                 {"mean_hitting_time", kFloat}};
  if (accounting)
    columns.insert(columns.end(), {{"cycles", kInt}, {"observer_loss", kFloat}, {"local_loss", kFloat}});
  CsvTable csv("nodes.csv", columns);
  const double runs = double(r.runs);
  for (node_t v = 0; v < r.n; ++v) {
    const double pi = m.pi(v);
    std::vector<CsvCell> row{
        v,
        m.degree(v),
        pi,
        double(r.visits[v]) / runs,
        double(r.steps) * pi,
        r.returns[v],
        finite_or_empty(r.returns[v] ? double(r.return_time_sum[v]) / double(r.returns[v]) : NAN),
        1 / pi,
        r.hits[v],
        finite_or_empty(r.hits[v] ? double(r.hitting_time_sum[v]) / double(r.hits[v]) : NAN)};
    if (accounting) row.insert(row.end(), {r.cycles[v], r.observer_loss[v], r.node_local[v]});
    csv.row(row);
  }
  return csv;
}

// time,count,expected (expected: the complete-graph closed form times R, empty otherwise).
template <class Expected>
CsvTable times_table(const std::string& file, const char* name, const TimeHistogram& h, bool theory,
                     Expected expected) {
  CsvTable csv(file, {{name, kInt}, {"count", kInt}, {"expected", kFloat}});
  for (std::size_t t = 1; t < h.counts.size(); ++t)
    csv.row({t, h.counts[t], theory ? CsvCell(expected(std::int64_t(t))) : CsvCell(csv_empty)});
  return csv;
}

CsvTable visit_counts_table(const WalkModel& m, const WalkSimResult& r) {
  CsvTable csv("visit_counts.csv", {{"visits", kInt}, {"count", kInt}, {"expected", kFloat}});
  const bool theory = m.kind == WalkKind::complete;
  for (const auto& [k, c] : r.visit_counts)
    csv.row({k, c,
             theory ? CsvCell(double(r.runs) * complete_expected_visit_counts(m.n, r.steps, k))
                    : CsvCell(csv_empty)});
  return csv;
}

CsvTable utility_table(const WalkSimResult& r) {
  CsvTable csv("utility.csv",
               {{"run", kInt}, {"truth", kFloat}, {"estimate", kFloat}, {"error", kFloat}, {"noises", kInt}});
  for (std::size_t i = 0; i < r.utility.size(); ++i) {
    const UtilityRun& u = r.utility[i];
    csv.row({i, u.truth, u.estimate, u.estimate - u.truth, u.noises});
  }
  return csv;
}

CsvTable paths_table(const WalkSimResult& r) {
  CsvTable csv("paths.csv", {{"run", kInt}, {"t", kInt}, {"node", kInt}});
  for (std::size_t i = 0; i < r.paths.size(); ++i)
    for (std::size_t t = 0; t < r.paths[i].size(); ++t) csv.row({i, t, r.paths[i][t]});
  return csv;
}

json loss_json(const LossStats& s) {
  return {{"mean", s.mean()}, {"min", s.min}, {"max", s.max}, {"pairs", s.weight}};
}

json utility_json(const WalkModel& m, const WalkSimResult& r) {
  const double runs = double(r.utility.size());
  double sum = 0, squares = 0, noises = 0;
  for (const UtilityRun& u : r.utility) {
    const double e = u.estimate - u.truth;
    sum += e;
    squares += e * e;
    noises += double(u.noises);
  }
  const double mean = sum / runs;
  const double sd = runs > 1 ? std::sqrt(std::max(0.0, (squares - runs * mean * mean) / (runs - 1))) : NAN;
  return {
      {"sigma_loc", r.sigma_loc},
      {"sigma_loc_rule", "G2: sqrt(2 ln(1.25/delta)) / eps0, sensitivity 1 (values in (0, 1))"},
      {"noises_per_run", noises / runs},
      {"error_mean", mean},
      {"error_std", jobs::finite_or_null(sd)},
      {"error_rmse", std::sqrt(squares / runs)},
      {"theory_std", summation_theory_std(m, r.steps, r.sigma_loc)},
      {"exact_std", std::sqrt(double(summation_noises(m, r.steps))) * r.sigma_loc},
      {"theory_rule", m.kind == WalkKind::directed_ring ? "Thm 5.5: sqrt(floor(T/(n-1))) sigma_loc (T = K n)"
                                                        : "docs/math.md §4.1: sqrt(T) sigma_loc"}};
}

// Finite-window means of the complete-graph return and hitting times (closed forms above).
template <class Expected>
double expected_mean(std::int64_t steps, Expected expected) {
  double weight = 0, sum = 0;
  for (std::int64_t t = 1; t < steps; ++t) {
    const double e = expected(t);
    weight += e;
    sum += double(t) * e;
  }
  return weight > 0 ? sum / weight : NAN;
}

json visits_json(const WalkModel& m, const WalkSimResult& r, const WalkSimParams& p) {
  double worst = 0;
  for (node_t v = 0; v < r.n; ++v) {
    const double expected = double(r.steps) * m.pi(v);
    worst = std::max(worst, std::fabs(double(r.visits[v]) / double(r.runs) - expected) / expected);
  }
  json j = {{"mean_per_node_run", double(r.steps) / r.n},
            {"max_relative_deviation_from_T_pi", worst},
            {"expected_rule", "T pi_v (exact for a stationary start)"}};
  if (m.kind == WalkKind::complete && p.statistics == WalkStatistics::full) {
    // CB1 (docs/math.md §1.8) with delta_hat = delta: P(T_v >= N_v) <= delta_hat.
    j["chernoff_N_v"] = dp::chernoff_visit_bound(double(r.steps), double(r.n), p.delta);
    j["fraction_at_or_above_N_v"] = double(r.visit_counts_above_nv) / (double(r.n) * double(r.runs));
  }
  return j;
}

json times_json(const TimeHistogram& h, std::int64_t cap, double expected_mean) {
  return {{"count", h.total},
          {"mean", h.total ? json(h.mean()) : json(nullptr)},
          {"histogram_cap", cap},
          {"above_cap", h.overflow},
          {"expected_mean", jobs::finite_or_null(expected_mean)}};
}

}  // namespace

void check_walk_sim_job(const WalkSimJob& job) {
  WalkSimParams early = job.params;
  // start node < n: the study's validation sees it too. A complete graph with its default weights walks in
  // closed form and is never built (make_walk_model), so it is counted from its keys.
  const bool closed_form = parse_graph_spec(job.graph).family == "complete" &&
                           (job.weights == "auto" || job.weights == "metropolis");
  validate(early, closed_form ? node_t(std::min(jobs::graph_size(job.graph).n, 2147483647.0))
                              : planned_node_count(job.graph));
  // The walk itself on a graph small enough to build at once: connectivity, the weights (a file read
  // whole, rows summing to 1, W irreducible), the directed ring; the run builds a large one.
  if (!closed_form && jobs::graph_size(job.graph).m <= 2e6) (void)make_walk_model(job.graph, job.weights);
}

RunResult run_walk_sim_job(const WalkSimJob& job) {
  const Stopwatch clock;
  const WalkSimParams& p = job.params;
  check_walk_sim_job(job);  // bad numbers fail before a large graph is built
  if (job.out_dir.empty()) throw InvalidParameter("out", "out: an output directory is required");

  Graph g;
  const WalkModel model = make_walk_model(job.graph, job.weights, &g);
  validate(p, model.n);
  DistanceCounts distances;
  bool have_distances = false;
  std::string distance_note =
      model.kind == WalkKind::complete ? "complete graph: every pair at distance 1" : "";
  if (p.accounting && model.kind != WalkKind::complete) {
    have_distances = distance_counts(g, distances);
    distance_note = have_distances ? "hop distances by BFS from every node"
                                   : "skipped: the all-pairs distance table is too large for this graph";
  }
  const double graph_seconds = clock.seconds();

  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  ProgressLine progress("walk-sim", "of the run-steps", job.progress);
  const WalkSimResult r =
      walk_sim(model, p, have_distances ? &distances : nullptr, [&](double f) { progress.update(f); });
  progress.finish();
  if (p.accounting) {  // no non-finite number in an output (docs/reliability.md §1)
    require_finite(r.network.max, "the largest pairwise network loss", "lower eps0");
    require_finite(r.local.max, "the largest local loss", "lower eps0");
  }

  const bool complete = model.kind == WalkKind::complete;
  const std::int64_t cap = std::min<std::int64_t>(p.steps, std::int64_t{1} << 16);
  const auto returns = [&](std::int64_t m) {
    return double(p.runs) * complete_expected_returns(model.n, p.steps, m);
  };
  const auto hits = [&](std::int64_t h) {
    return double(p.runs) * complete_expected_hits(model.n, p.steps, h);
  };
  const bool full = p.statistics == WalkStatistics::full;
  const bool node_table = model.n <= kMaxNodesCsv;
  if (full) {
    result.add(visit_counts_table(model, r));
    result.add(times_table("return_times.csv", "m", r.return_times, complete, returns));
    result.add(times_table("hitting_times.csv", "h", r.hitting_times, complete, hits));
    if (node_table) result.add(nodes_table(model, r, p.accounting));
  } else if (node_table) {
    result.add(visits_table(model, r));
  }
  if (p.accounting && !r.by_distance.empty()) result.add(by_distance_table(r));
  if (!r.utility.empty()) result.add(utility_table(r));
  if (p.save_paths) result.add(paths_table(r));

  json quantiles = json::object();
  for (const auto& [q, value] : r.network_quantiles) quantiles[format_double(q)] = value;
  json network = nullptr, local = nullptr;
  if (p.accounting) {
    network = loss_json(r.network);
    network["quantiles"] = quantiles;
    network["quantile_resolution"] = "relative 1e-4";
    local = loss_json(r.local);
  }
  json summary = {
      {"model", "walk-sim"},
      {"graph", job.graph},
      {"walk", to_string(model.kind)},
      {"weights", model.weights},
      {"stationary", model.stationary_rule},
      {"n", model.n},
      {"edges", model.edges},
      {"steps", p.steps},
      {"runs", p.runs},
      {"seed", p.seed},
      {"start", to_string(p.start)},
      {"accounting", p.accounting},
      {"mechanism", to_string(p.mechanism)},
      {"view", to_string(p.view)},
      {"bookkeeping", to_string(p.bookkeeping)},
      {"eps0", p.eps0},
      {"delta", p.delta},
      {"network_loss", network},
      {"local_loss", local},
      {"by_distance", distance_note},
      {"visits", visits_json(model, r, p)},
      {"statistics", to_string(p.statistics)},
      {"return_time", full ? times_json(r.return_times, cap, complete ? expected_mean(p.steps, returns) : NAN)
                           : json(nullptr)},
      {"hitting_time", full ? times_json(r.hitting_times, cap, complete ? expected_mean(p.steps, hits) : NAN)
                            : json(nullptr)},
      {"utility", r.utility.empty() ? json(nullptr) : utility_json(model, r)},
      {"steps_per_second", r.steps_per_second},
      {"device", r.device},
      {"device_note", r.device_note},
      {"engine", r.engine},
      {"threads", r.threads},
      {"batch_runs", r.batch_runs},
      {"batches", r.batches},
      {"walks_in_flight", r.walks_in_flight},
      {"seconds", r.seconds},
      {"seconds_graph", graph_seconds},
      {"seconds_total", clock.seconds()},
  };
  if (!node_table) summary[full ? "nodes_csv" : "visits_csv"] = "skipped: more than 100000 nodes";
  json manifest = manifest_header("walk-sim", job.invocation);
  json backend = jobs::backend_fields(r);
  backend.update({{"threads", r.threads},
                  {"sampler", to_string(model.kind)},
                  {"words_per_step", model.words_per_step()}});
  manifest.update({
      {"parameters",
       {{"graph", job.graph},
        {"weights", job.weights},
        {"steps", p.steps},
        {"runs", p.runs},
        {"seed", p.seed},
        {"start", to_string(p.start)},
        {"accounting", p.accounting},
        {"statistics", to_string(p.statistics)},
        {"eps0", p.eps0},
        {"delta", p.delta},
        {"mechanism", to_string(p.mechanism)},
        {"view", to_string(p.view)},
        {"bookkeeping", to_string(p.bookkeeping)},
        {"quantiles", p.quantiles},
        {"save_paths", p.save_paths},
        {"batch_runs", p.batch_runs}}},
      {"backend", backend},
  });
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

namespace {

/// The walk-sim parameters, each bound to its field of WalkSimJob.
std::pair<std::vector<Parameter>, Binding<WalkSimJob>> walk_sim_parameters() {
  using namespace declare;
  Binding<WalkSimJob> bind;
  using Job = WalkSimJob;
  using P = WalkSimParams;
  std::vector<Parameter> list = {
      bind(text("graph",
                "graph spec FAMILY:key=value,... (docs/graphs.md); complete:n=N is the implicit J/n walk")
               .required(),
           &Job::graph),
      bind(text("weights",
                "transition matrix: auto (J/n on complete graphs, else uniform) | uniform (1/d_v) | "
                "lazy-uniform | "
                "metropolis | hamilton-literal | max-degree | file:PATH | directed-ring (ring:n=N only)")
               .fallback("auto"),
           &Job::weights),
      bind(integer("steps", "positions T per walk (T contributions)").required().range(at_least(1)),
           &Job::params, &P::steps),
      bind(integer("runs", "independent walks R").required().range(at_least(1)), &Job::params, &P::runs),
      bind(natural("seed", "Philox seed of every random draw").fallback("0"), &Job::params, &P::seed),
      bind(real("eps0", "LDP level eps0 of one contribution").fallback("0.1").range(above(0)), &Job::params,
           &P::eps0),
      bind(real("delta", "delta of the compositions (C4: k delta; C2: delta' = delta)")
               .fallback("1e-07")
               .range({0.0, 1.0, true, true}),
           &Job::params, &P::delta),
      bind(choice("mechanism",
                  "gaussian (per-cycle mass eps0/sqrt(m)) | histogram (SH3 shuffling level, memoised per m)",
                  {"gaussian", "histogram"})
               .fallback("gaussian"),
           [](Job& j, const std::string& m) { j.params.mechanism = parse_walk_mechanism(m); }),
      bind(choice("view",
                  "known: v knows its sender and receiver (the figure procedure) | hidden: c = 0 for every "
                  "cycle",
                  {"known", "hidden"})
               .fallback("known"),
           [](Job& j, const std::string& view) { j.params.view = parse_walk_view(view); }),
      bind(choice(
               "bookkeeping",
               "receiver of a cycle in the known view: definition (the node v sent to at its previous "
               "visit; none "
               "in v's first cycle, v itself after a self-transition; docs/math.md §4.1.3) | reference (the "
               "reference code's: every last receiver starts at node 0 and is read before the arriving "
               "send is "
               "recorded; CPU only)",
               {"definition", "reference"})
               .fallback("definition"),
           [](Job& j, const std::string& b) { j.params.bookkeeping = parse_walk_bookkeeping(b); }),
      bind(text("start", "where the token starts: node U, a uniform node or the stationary law")
               .forms({"node:U", "uniform", "stationary"})
               .fallback("node:0"),
           [](Job& j, const std::string& start) { j.params.start = parse_walk_start(start); }),
      bind(reals("quantiles", "quantiles of the pairwise network loss to report")
               .fallback("0.01,0.05,0.25,0.5,0.75,0.95,0.99")
               .range(between(0, 1)),
           &Job::params, &P::quantiles),
      bind(flag("no-accounting", "plain walks: visit statistics only"),
           [](Job& j, bool off) { j.params.accounting = !off; }),
      bind(choice("statistics",
                  "what plain walks tally: full (visits, returns, hitting times, their histograms) | visits "
                  "(per-node visit totals only, visits.csv; on CUDA the stepping engine) | auto (visits with "
                  "--no-accounting --device cuda, else full)",
                  {"auto", "full", "visits"})
               .fallback("auto"),
           [](Job& j, const std::string& statistics) {
             j.statistics_auto = statistics == "auto";
             if (!j.statistics_auto) j.params.statistics = parse_walk_statistics(statistics);
           }),
      bind(flag("save-paths", "write paths.csv (small runs only: R T <= 1e6)"), &Job::params, &P::save_paths),
      bind(integer("batch-runs", "runs per batch (0 = automatic)").fallback("0").range(at_least(0)),
           &Job::params, &P::batch_runs),
      threads_parameter(),
      // Declared after no-accounting, statistics and save-paths: its setter resolves statistics auto.
      bind(device_parameter("where to run; CUDA runs everything but save-paths and bookkeeping reference"),
           [](Job& j, const std::string& device) {
             auto& p = j.params;
             p.device = parse_device_spec(device);
             // auto: plain walks asked of CUDA run on the stepping engine, which counts visits
             // (docs/walk_sim.md "Visits only"); every other run tallies the full statistics.
             const bool stepping = !p.accounting && !p.save_paths && p.device.kind == DeviceKind::cuda;
             if (j.statistics_auto) p.statistics = stepping ? WalkStatistics::visits : WalkStatistics::full;
           }),
      out_parameter(), quiet_parameter()};
  return {std::move(list), std::move(bind)};
}

}  // namespace

WalkSimJob walk_sim_job(const Values& v, const RunContext& context) {
  static const Binding<WalkSimJob> bind = walk_sim_parameters().second;
  return bind.make(v, context);
}

Model walk_sim_model() {
  using namespace declare;
  Model m = named_model(
      "walk-sim",
      "Monte Carlo token walks with the empirical pairwise privacy accounting of Fig. 7.1b (docs/math.md "
      "4.1.3), "
      "visit / return-time statistics and the utility of private summation",
      "--graph complete:n=100 --steps 1000 --runs 100 --out out/walk-sim");
  auto [parameters, bind] = walk_sim_parameters();
  m.parameters = std::move(parameters);
  m.validate = bind.check(check_walk_sim_job);
  m.execute = bind.run(run_walk_sim_job);
  m.describe = [](const json& s, const RunContext& c) {
    if (s["accounting"].get<bool>())
      return format_line(
          "walk-sim: %s, n = %d, T = %lld, R = %lld, network loss mean %.6g (min %.6g, max %.6g), LDP mean "
          "%.6g, "
          "%.3g steps/s, %s -> %s\n",
          s["walk"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<long long>(),
          s["runs"].get<long long>(), s["network_loss"]["mean"].get<double>(),
          s["network_loss"]["min"].get<double>(), s["network_loss"]["max"].get<double>(),
          s["local_loss"]["mean"].get<double>(), s["steps_per_second"].get<double>(),
          s["device"].get<std::string>().c_str(), c.out_dir.string().c_str());
    return format_line("walk-sim: %s, n = %d, T = %lld, R = %lld, plain walks, %.3g steps/s, %s -> %s\n",
                       s["walk"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<long long>(),
                       s["runs"].get<long long>(), s["steps_per_second"].get<double>(),
                       s["device"].get<std::string>().c_str(), c.out_dir.string().c_str());
  };
  // Rates of benchmarks/RESULTS.md: accounted walks, plain walks on the implicit complete graph, on a CSR
  // graph.
  m.resources = bind.estimate([](const WalkSimJob& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, entries = 2 * g.m + n;
    const double runs = double(job.params.runs), walk_steps = double(job.params.steps);
    const bool accounted = job.params.accounting, complete = job.graph.starts_with("complete");
    const double rate = accounted ? 3e6 : (complete ? 4e8 : 1e7);
    return Estimate{16 * entries * (complete ? 0 : 1) + 64 * n * (accounted ? 4 : 1),
                    runs * walk_steps / rate};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
