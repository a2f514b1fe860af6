// `netdp bound SUBCOMMAND`: closed-form and numerical privacy bounds for the complete graph and the ring
// (MATH_SPEC 3-4) over a grid of n, into DIR/bound.csv, DIR/summary.json and DIR/manifest.json (last).
#include "cli/bound_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/options.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp::cli {
namespace bound {

using json = nlohmann::json;

void add_grid_options(CLI::App& c, GridOptions& o) {
  c.add_option("--n", o.n, "comma-separated values of n, e.g. 10,20,50")->delimiter(',');
  c.add_option("--n-logspace", o.logspace,
               "START,STOP,NUM: n = numpy.logspace(START, STOP, NUM) = 10^(START + i (STOP-START)/(NUM-1))")
      ->delimiter(',')
      ->expected(3);
  c.add_option("--n-round", o.rounding,
               "rounding of n: none (the reference code evaluates its closed forms at raw logspace values), "
               "nearest, floor or ceil; repeated values are dropped")
      ->check(CLI::IsMember({"none", "nearest", "floor", "ceil"}))
      ->capture_default_str();
  c.add_flag("--skip-invalid", o.skip_invalid,
             "write rows whose n violates a theorem's condition as nan (reason in summary.json) instead of "
             "stopping");
  c.add_option("--out", o.out, "output directory")->required();
}

void add_walk_options(CLI::App& c, WalkOptions& o, double default_steps_per_node) {
  o.steps_per_node = default_steps_per_node;
  auto* steps = c.add_option("--steps", o.steps, "walk length T, the same for every n");
  auto* per_node =
      c.add_option("--steps-per-node", o.steps_per_node, "T = this times n (default unless --steps)")
          ->capture_default_str();
  steps->excludes(per_node);
  c.add_option("--delta-prime", o.delta_prime, "composition slack delta'")->capture_default_str();
  c.add_option("--delta-hat", o.delta_hat, "Chernoff failure probability delta_hat (CB1)")
      ->capture_default_str();
  c.add_option("--contributions", o.contributions,
               "chernoff: N_v from CB1 (random number of contributions); fixed: N_v = T/n")
      ->check(CLI::IsMember({"chernoff", "fixed"}))
      ->capture_default_str();
  c.add_option("--nv-formula", o.nv_formula,
               "proof: T/n + sqrt(3 (T/n) ln(1/delta_hat)); code: the reference code's T/n + sqrt(1.5 T "
               "ln(1/delta_hat)) (reproduces Fig. 7.1a)")
      ->check(CLI::IsMember({"proof", "code", "code_quirk"}))
      ->capture_default_str();
  c.add_option("--composition", o.composition, "optimal_min (C3, reproduction), advanced (C2) or simple (C1)")
      ->check(CLI::IsMember({"optimal_min", "optimal-min", "advanced", "simple"}))
      ->capture_default_str();
  c.add_option("--colluders", o.colluders, "c colluding observers: the bound of n/c users (MATH_SPEC 4.5)")
      ->capture_default_str();
  c.add_flag("--sender-known", o.sender_known,
             "observers know who sent and receives the token: add the spotted contributions (4.4, CB2)");
  c.add_option("--delta-tilde", o.delta_tilde, "CB2 failure probability for --sender-known")
      ->capture_default_str();
}

bounds::ContributionOptions contribution_options(const WalkOptions& o) {
  return {bounds::parse_contributions(o.contributions), dp::parse_nv_formula(o.nv_formula), o.delta_hat};
}

json walk_parameters(const WalkOptions& o) {
  return {{"steps", o.steps > 0 ? json(o.steps) : json(nullptr)},
          {"steps_per_node", o.steps > 0 ? json(nullptr) : json(o.steps_per_node)},
          {"delta_prime", o.delta_prime},
          {"delta_hat", o.delta_hat},
          {"contributions", o.contributions},
          {"nv_formula", dp::to_string(dp::parse_nv_formula(o.nv_formula))},
          {"composition", bounds::to_string(bounds::parse_composition(o.composition))},
          {"colluders", o.colluders},
          {"sender_known", o.sender_known},
          {"delta_tilde", o.delta_tilde}};
}

namespace {

std::vector<double> grid_values(const GridOptions& o) {
  std::vector<double> n = o.n;
  if (!o.logspace.empty()) {
    const double num = o.logspace[2];
    if (!(num >= 1 && num <= 1e6 && std::floor(num) == num))
      throw InvalidInput("--n-logspace: NUM must be an integer in [1, 1e6] (got " + format_double(num) + ")");
    for (double x : bounds::logspace(o.logspace[0], o.logspace[1], int(num))) n.push_back(x);
  }
  if (n.empty()) throw InvalidInput("give the values of n: --n LIST and/or --n-logspace START,STOP,NUM");
  for (double x : n)
    if (!(x >= 1 && std::isfinite(x)))
      throw InvalidInput("n must be finite and >= 1 (got " + format_double(x) + ")");
  std::sort(n.begin(), n.end());
  return bounds::round_n_grid(n, bounds::parse_n_rounding(o.rounding));
}

struct Row {
  double n;
  bounds::Columns columns;  // empty when skipped
  std::string reason;
};

}  // namespace

int run_bound(const BoundRun& run, const GridOptions& grid, const json& invocation) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<double> ns = grid_values(grid);
  run.check();
  std::vector<Row> rows;
  std::vector<std::string> names;
  for (double n : ns) {
    try {
      rows.push_back({n, run.evaluate(n), {}});
      if (names.empty())
        for (const auto& [name, value] : rows.back().columns) names.push_back(name);
    } catch (const InvalidInput& e) {
      if (!grid.skip_invalid) throw InvalidInput("n = " + format_double(n) + ": " + e.what());
      rows.push_back({n, {}, e.what()});
    }
  }
  if (names.empty())
    throw InvalidInput("no n of the grid satisfies the bound's conditions (first: n = " +
                       format_double(rows.front().n) + ": " + rows.front().reason + ")");
  if (grid.check_only) return 0;

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
      const double v = r.columns.empty() ? NAN : r.columns[i].second;
      csv << ',' << format_double(v);
      if (names[i] == "eps") eps = v;
      if (names[i] == "eps_ldp") eps_ldp = v;
      if ((names[i] == "N_v_proven" || names[i] == "N_u_proven") && v == 0) unproven.push_back(r.n);
    }
    csv << '\n';
    if (crossover.is_null() && eps < eps_ldp) crossover = r.n;
  }

  ResultsDir out(grid.out);
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
                           " (T < 3 n ln(1/delta_hat), or --nv-formula code)"};
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  summary["seconds"] = seconds;
  out.write_json("summary.json", summary);

  json manifest = manifest_header("bound " + run.name, invocation);
  manifest["parameters"] = run.parameters;
  manifest["grid"] = {{"n", grid.n},
                      {"logspace", grid.logspace},
                      {"rounding", grid.rounding},
                      {"values", ns},
                      {"skip_invalid", grid.skip_invalid}};
  manifest["outputs"] = {"bound.csv", "summary.json"};
  manifest["seconds"] = seconds;
  out.commit_manifest(manifest);
  report("bound %s: %zu values of n (%zu skipped) -> %s/bound.csv\n", run.name.c_str(), rows.size(),
         skipped.size(), grid.out.c_str());
  return 0;
}

}  // namespace bound

Command add_bound_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c =
      app.add_subcommand("bound",
                         "closed-form and numerical privacy bounds of token walks on the complete graph "
                         "and the ring (MATH_SPEC 3-4), over a grid of n (docs/bounds.md)");
  c->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<bound::Registered>>(std::vector<bound::Registered>{
      bound::add_complete_sum(*c, invocation), bound::add_complete_histogram(*c, invocation),
      bound::add_ring_sum(*c, invocation), bound::add_ring_histogram(*c, invocation),
      bound::add_sgd_rdp(*c, invocation), bound::add_sgd_closed_form(*c, invocation),
      bound::add_sgd_sigma(*c, invocation)});
  return {c,
          [subcommands] {
            for (const auto& s : *subcommands)
              if (s.app->parsed()) return s.run();
            return 1;
          },
          true,
          [subcommands] {
            for (const auto& s : *subcommands)
              if (s.app->parsed()) {
                s.grid->check_only = true;  // the bounds are cheap: evaluate them all, write nothing
                s.run();
              }
          }};
}

}  // namespace netdp::cli
