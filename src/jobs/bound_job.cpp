// The bound models' grid of n and their run (docs/math.md §3-4): one function n -> columns evaluated over the
// grid into DIR/bound.csv, DIR/summary.json and DIR/manifest.json (last).
#include "jobs/bound_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

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

std::vector<Parameter> walk_grid_parameters(const std::string& default_steps_per_node,
                                            const std::string& deltas) {
  std::vector<Parameter> parameters = grid_parameters();
  append(parameters,
         // T > 0: a walk of 0 steps has no bound (steps 0 used to read as "not given", docs/bounds.md).
         {real("steps", "walk length T, the same for every n").range(above(0)).excludes("steps-per-node"),
          real("steps-per-node", "T = this times n (default unless steps is given)")
              .fallback(default_steps_per_node)
              .range(above(0))
              .excludes("steps"),
          real("delta-prime", "composition slack delta'").fallback(deltas),
          real("delta-hat", "Chernoff failure probability delta_hat (CB1)").fallback(deltas),
          choice("contributions", "chernoff: N_v from CB1 (random number of contributions); fixed: N_v = T/n",
                 {"chernoff", "fixed"})
              .fallback("chernoff"),
          choice("nv-formula",
                 "proof: T/n + sqrt(3 (T/n) ln(1/delta_hat)); code: the reference code's T/n + sqrt(1.5 T "
                 "ln(1/delta_hat)) (reproduces Fig. 7.1a)",
                 {"proof", "code", "code_quirk"})
              .fallback("proof"),
          choice("composition", "optimal_min (C3, reproduction), advanced (C2) or simple (C1)",
                 {"optimal_min", "optimal-min", "advanced", "simple"})
              .fallback("optimal_min"),
          integer("colluders", "c colluding observers: the bound of n/c users (docs/math.md §4.5)")
              .fallback("1")
              .range(at_least(1)),
          flag("sender-known",
               "observers know who sent and receives the token: add the spotted contributions (4.4, CB2)"),
          real("delta-tilde", "CB2 failure probability for sender-known").fallback(deltas)});
  return parameters;
}

WalkValues walk_values(const Values& v) {
  WalkValues w;
  w.delta_prime = v.real("delta-prime");
  w.delta_hat = v.real("delta-hat");
  w.delta_tilde = v.real("delta-tilde");
  w.steps = v.has("steps") ? v.real("steps") : 0;
  w.steps_per_node = v.real("steps-per-node");
  w.colluders = double(v.integer("colluders"));
  w.contributions = v.text("contributions");
  w.nv_formula = v.text("nv-formula");
  w.composition = v.text("composition");
  w.sender_known = v.flag("sender-known");
  return w;
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
std::vector<double> grid_values(const Values& v) {
  std::vector<double> n = v.reals("n");
  const std::vector<double> logspace = v.reals("n-logspace");
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
  return bounds::round_n_grid(n, bounds::parse_n_rounding(v.text("n-round")));
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

Evaluated evaluate_grid(const BoundRun& run, const Values& v) {
  Evaluated e;
  e.ns = grid_values(v);
  run.check();
  for (double n : e.ns) {
    try {
      e.rows.push_back({n, run.evaluate(n), {}});
      if (e.names.empty())
        for (const auto& [name, value] : e.rows.back().columns) e.names.push_back(name);
    } catch (const InvalidInput& error) {
      if (!v.flag("skip-invalid")) throw InvalidInput("n = " + format_double(n) + ": " + error.what());
      e.rows.push_back({n, {}, error.what()});
    }
  }
  if (e.names.empty())
    throw InvalidInput("no n of the grid satisfies the bound's conditions (first: n = " +
                       format_double(e.rows.front().n) + ": " + e.rows.front().reason + ")");
  return e;
}

json run_bound(const BoundRun& run, const Values& v, const RunContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const Evaluated e = evaluate_grid(run, v);
  const auto& [ns, rows, names] = e;

  std::ostringstream csv;
  csv << "n";
  for (const auto& name : names) csv << ',' << name;
  csv << '\n';
  json skipped = json::array(), crossover = nullptr, unproven = json::array();
  for (const Row& r : rows) {
    csv << format_double(r.n);
    if (r.columns.empty()) skipped.push_back({{"n", r.n}, {"reason", r.reason}});
    double eps = NAN, eps_ldp = NAN;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const double x = r.columns.empty() ? NAN : r.columns[i].second;
      csv << ',' << format_double(x);
      if (names[i] == "eps") eps = x;
      if (names[i] == "eps_ldp") eps_ldp = x;
      if ((names[i] == "N_v_proven" || names[i] == "N_u_proven") && x == 0) unproven.push_back(r.n);
    }
    csv << '\n';
    if (crossover.is_null() && eps < eps_ldp) crossover = r.n;
  }

  ResultsDir out(context.out_dir);
  out.write_text("bound.csv", csv.str());
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
  out.write_json("summary.json", summary);

  json manifest = manifest_header("bound " + run.name, context.invocation);
  manifest["parameters"] = run.parameters;
  manifest["grid"] = {{"n", v.reals("n")},
                      {"logspace", v.reals("n-logspace")},
                      {"rounding", v.text("n-round")},
                      {"values", ns},
                      {"skip_invalid", v.flag("skip-invalid")}};
  manifest["outputs"] = {"bound.csv", "summary.json"};
  manifest["seconds"] = seconds;
  out.commit_manifest(manifest);
  return summary;
}

}  // namespace

Model bound_model(const std::string& name, const std::string& help, std::vector<Parameter> parameters,
                  std::function<BoundRun(const Values&)> make) {
  Model m;
  m.name = "bound " + name;
  m.example = "--n 2000,5000 --out out/" + name;
  m.help = help;
  m.parameters = std::move(parameters);
  m.validate = [make](const Values& v) { (void)evaluate_grid(make(v), v); };
  m.execute = [make](const Values& v, const RunContext& c) { return run_bound(make(v), v, c); };
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("bound %s: %zu values of n (%zu skipped) -> %s/bound.csv\n",
                       s["bound"].get<std::string>().c_str(), s["rows"].get<std::size_t>(),
                       s["skipped"].size(), c.out_dir.string().c_str());
  };
  m.resources = [](const Values&) { return Estimate{1 << 20, 0.01}; };
  return m;
}

}  // namespace netdp::jobs::bound
