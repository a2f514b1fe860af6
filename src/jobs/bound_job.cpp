// The bound models' grid of n and their run (docs/math.md §3-4): one function n -> columns evaluated over the
// grid into DIR/bound.csv, DIR/summary.json and DIR/manifest.json (last).
#include "jobs/bound_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp::jobs::bound {

using json = nlohmann::json;
using namespace declare;

std::vector<Parameter> grid_parameters() {
  return {
      reals("n", "comma-separated values of n, e.g. 10,20,50"),
      reals("n-logspace",
            "START,STOP,NUM: n = numpy.logspace(START, STOP, NUM) = 10^(START + i (STOP-START)/(NUM-1))")
          .items(3),
      choice("n-round",
             "rounding of n: none (the reference code evaluates its closed forms at raw logspace values), "
             "nearest, floor or ceil; repeated values are dropped",
             {"none", "nearest", "floor", "ceil"})
          .fallback("none"),
      flag("skip-invalid",
           "write rows whose n violates a theorem's condition as nan (reason in summary.json) instead of "
           "stopping"),
      out_parameter()};
}

bounds::ContributionOptions contribution_options(const WalkValues& w) {
  return {bounds::parse_contributions(w.contributions), dp::parse_nv_formula(w.nv_formula), w.delta_hat};
}

json walk_manifest(const WalkValues& w) {
  return {{"steps", w.steps > 0 ? json(w.steps) : json(nullptr)},
          {"steps_per_node", w.steps > 0 ? json(nullptr) : json(w.steps_per_node)},
          {"delta_prime", w.delta_prime},
          {"delta_hat", w.delta_hat},
          {"contributions", w.contributions},
          {"nv_formula", dp::to_string(dp::parse_nv_formula(w.nv_formula))},
          {"composition", bounds::to_string(bounds::parse_composition(w.composition))},
          {"colluders", w.colluders},
          {"sender_known", w.sender_known},
          {"delta_tilde", w.delta_tilde}};
}

namespace {

/// The grid of n: the values of n and of n-logspace, sorted and rounded.
std::vector<double> grid_values(const Grid& grid) {
  std::vector<double> n = grid.n;
  const std::vector<double>& logspace = grid.logspace;
  if (!logspace.empty()) {
    const double num = logspace[2];
    if (!(num >= 1 && num <= 1e6 && std::floor(num) == num))
      throw InvalidParameter(
          "n-logspace", "n-logspace: NUM must be an integer in [1, 1e6] (got " + format_double(num) + ")");
    for (double x : bounds::logspace(logspace[0], logspace[1], int(num))) n.push_back(x);
  }
  if (n.empty())
    throw InvalidParameter("n",
                           "n is required: give the values of n (a list) and/or n-logspace START,STOP,NUM");
  for (double x : n)
    if (!(x >= 1 && std::isfinite(x)))
      throw InvalidParameter("n", "n must be finite and >= 1 (got " + format_double(x) + ")");
  std::sort(n.begin(), n.end());
  return bounds::round_n_grid(n, bounds::parse_n_rounding(grid.rounding));
}

struct Row {
  double n;
  bounds::Columns columns;  // empty when skipped
  std::string reason;
};

struct Evaluated {
  std::vector<double> ns;
  std::vector<Row> rows;
  std::vector<std::string> names;
};

Evaluated evaluate_grid(const BoundRun& run, const Grid& grid) {
  Evaluated e;
  e.ns = grid_values(grid);
  run.check();
  for (double n : e.ns) {
    try {
      e.rows.push_back({n, run.evaluate(n), {}});
      if (e.names.empty())
        for (const auto& [name, value] : e.rows.back().columns) e.names.push_back(name);
    } catch (const InvalidInput& error) {
      if (!grid.skip_invalid) throw InvalidInput("n = " + format_double(n) + ": " + error.what());
      e.rows.push_back({n, {}, error.what()});
    }
  }
  if (e.names.empty())
    throw InvalidInput("no n of the grid satisfies the bound's conditions (first: n = " +
                       format_double(e.rows.front().n) + ": " + e.rows.front().reason + ")");
  return e;
}

}  // namespace

void check_bound(const BoundRun& run, const BoundJob& job) {
  (void)evaluate_grid(run, job.grid);
}

RunResult run_bound(const BoundRun& run, const BoundJob& job) {
  const auto started = std::chrono::steady_clock::now();
  const Evaluated e = evaluate_grid(run, job.grid);
  const auto& [ns, rows, names] = e;

  // Every column float64 (docs/outputs.md §6): n may be non-integer, a skipped row is nan throughout.
  std::vector<CsvColumn> columns{{"n", CsvType::float64}};
  for (const auto& name : names) columns.push_back({name, CsvType::float64});
  RunResult result;
  CsvTable& csv = result.table("bound.csv", columns);
  json skipped = json::array(), crossover = nullptr, unproven = json::array();
  for (const Row& r : rows) {
    std::vector<CsvCell> cells{r.n};
    if (r.columns.empty()) skipped.push_back({{"n", r.n}, {"reason", r.reason}});
    double eps = NAN, eps_ldp = NAN;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const double x = r.columns.empty() ? NAN : r.columns[i].second;
      cells.push_back(x);
      if (names[i] == "eps") eps = x;
      if (names[i] == "eps_ldp") eps_ldp = x;
      if ((names[i] == "N_v_proven" || names[i] == "N_u_proven") && x == 0) unproven.push_back(r.n);
    }
    csv.row(cells);
    if (crossover.is_null() && eps < eps_ldp) crossover = r.n;
  }
  json summary = {{"bound", run.name}, {"rows", rows.size()}, {"columns", names}, {"skipped", skipped}};
  summary["n"] = ns;
  const Row* last = nullptr;
  for (const Row& r : rows)
    if (!r.columns.empty()) last = &r;
  json last_row = {{"n", last->n}};
  for (const auto& [name, value] : last->columns) last_row[name] = value;
  summary["last_row"] = last_row;
  if (std::find(names.begin(), names.end(), "eps_ldp") != names.end())
    summary["first_n_network_below_ldp"] = crossover;
  if (!unproven.empty())
    summary["warnings"] = {"the contribution count is not a proven Chernoff bound at n = " + unproven.dump() +
                           " (T < 3 n ln(1/delta_hat), or nv-formula code)"};
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  summary["seconds"] = seconds;

  json manifest = manifest_header("bound " + run.name, job.invocation);
  manifest["parameters"] = run.parameters;
  manifest["grid"] = {{"n", job.grid.n},
                      {"logspace", job.grid.logspace},
                      {"rounding", job.grid.rounding},
                      {"values", ns},
                      {"skip_invalid", job.grid.skip_invalid}};
  manifest["outputs"] = {"bound.csv", "summary.json"};
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

Model bound_model_base(const std::string& name, const std::string& help, std::vector<Parameter> parameters) {
  Model m = named_model("bound " + name, help, "--n 2000,5000 --out out/" + name);
  m.parameters = std::move(parameters);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("bound %s: %zu values of n (%zu skipped) -> %s/bound.csv\n",
                       s["bound"].get<std::string>().c_str(), s["rows"].get<std::size_t>(),
                       s["skipped"].size(), c.out_dir.string().c_str());
  };
  m.resources = [](const Values&) { return Estimate{1 << 20, 0.01}; };
  return m;
}

}  // namespace netdp::jobs::bound
