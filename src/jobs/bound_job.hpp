#pragma once
// What the bound models share (`bound complete-sum`, `bound ring-sum`, ...; docs/math.md §3-4): the grid of
// n, the options of the random-walk bounds on the complete graph, and the run that evaluates one function n
// -> columns over the grid into bound.csv, summary.json and manifest.json (last).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/binding.hpp"
#include "netdp/bounds/common.hpp"
#include "netdp/jobs/model.hpp"

namespace netdp::jobs::bound {

/// The grid of n: values, n-logspace START,STOP,NUM, the rounding and skip-invalid.
struct Grid {
  std::vector<double> n, logspace;
  std::string rounding = "none";
  bool skip_invalid = false;
};

/// The options of the random-walk bounds on the complete graph (docs/math.md §4).
struct WalkValues {
  double delta_prime = 1e-7, delta_hat = 1e-7, delta_tilde = 1e-7;
  double steps = 0, steps_per_node = 100, colluders = 1;
  std::string contributions = "chernoff", nv_formula = "proof", composition = "optimal_min";
  bool sender_known = false;
};

/// What every bound job holds besides its bound's parameters: the grid and the run's context.
struct BoundJob {
  Grid grid;
  std::string out_dir;
  nlohmann::json invocation;
};
/// A bound job of a random walk on the complete graph.
struct WalkBoundJob : BoundJob {
  WalkValues walk;
};

/// n, n-logspace, n-round, skip-invalid, out (unbound declarations).
std::vector<Parameter> grid_parameters();
/// The same, bound to job.grid.
template <class Job>
std::vector<Parameter> grid_parameters(Binding<Job>& bind) {
  std::vector<Parameter> list = grid_parameters();
  list[0] = bind(list[0], &Job::grid, &Grid::n);
  list[1] = bind(list[1], &Job::grid, &Grid::logspace);
  list[2] = bind(list[2], &Job::grid, &Grid::rounding);
  list[3] = bind(list[3], &Job::grid, &Grid::skip_invalid);
  return list;
}

/// The grid parameters, then the options of the random-walk bounds on the complete graph (docs/math.md §4),
/// bound to job.walk; `deltas` is the default of delta-prime, delta-hat and delta-tilde ("1e-07", or "1e-06"
/// for DP-SGD).
template <class Job>
std::vector<Parameter> walk_grid_parameters(Binding<Job>& bind, const std::string& default_steps_per_node,
                                            const std::string& deltas) {
  using namespace declare;
  std::vector<Parameter> parameters = grid_parameters(bind);
  append(
      parameters,
      // T > 0: a walk of 0 steps has no bound (steps 0 used to read as "not given", docs/bounds.md).
      {bind(real("steps", "walk length T, the same for every n").range(above(0)).excludes("steps-per-node"),
            [](Job& job, double steps) { job.walk.steps = steps; }),
       bind(real("steps-per-node", "T = this times n (default unless steps is given)")
                .fallback(default_steps_per_node)
                .range(above(0))
                .excludes("steps"),
            &Job::walk, &WalkValues::steps_per_node),
       bind(real("delta-prime", "composition slack delta'").fallback(deltas), &Job::walk,
            &WalkValues::delta_prime),
       bind(real("delta-hat", "Chernoff failure probability delta_hat (CB1)").fallback(deltas), &Job::walk,
            &WalkValues::delta_hat),
       bind(choice("contributions",
                   "chernoff: N_v from CB1 (random number of contributions); fixed: N_v = T/n",
                   {"chernoff", "fixed"})
                .fallback("chernoff"),
            &Job::walk, &WalkValues::contributions),
       bind(choice("nv-formula",
                   "proof: T/n + sqrt(3 (T/n) ln(1/delta_hat)); code: the reference code's T/n + sqrt(1.5 T "
                   "ln(1/delta_hat)) (reproduces Fig. 7.1a)",
                   {"proof", "code", "code_quirk"})
                .fallback("proof"),
            &Job::walk, &WalkValues::nv_formula),
       bind(choice("composition", "optimal_min (C3, reproduction), advanced (C2) or simple (C1)",
                   {"optimal_min", "optimal-min", "advanced", "simple"})
                .fallback("optimal_min"),
            &Job::walk, &WalkValues::composition),
       bind(integer("colluders", "c colluding observers: the bound of n/c users (docs/math.md §4.5)")
                .fallback("1")
                .range(at_least(1)),
            [](Job& job, int colluders) { job.walk.colluders = colluders; }),
       bind(flag("sender-known",
                 "observers know who sent and receives the token: add the spotted contributions (4.4, CB2)"),
            &Job::walk, &WalkValues::sender_known),
       bind(real("delta-tilde", "CB2 failure probability for sender-known").fallback(deltas), &Job::walk,
            &WalkValues::delta_tilde)});
  return parameters;
}

bounds::ContributionOptions contribution_options(const WalkValues& w);
/// The walk options as manifest parameters.
nlohmann::json walk_manifest(const WalkValues& w);

/// A bound job of a random walk on the complete graph with its bound's parameters `p` (sum, histogram, DP-SGD
/// and its sigma search), the walk options held apart until walk_params puts them in.
template <class Params>
struct WalkParamsJob : WalkBoundJob {
  Params p;

  /// p with the walk fields every complete-graph walk bound shares, and the composition where the bound
  /// composes over contributions (all but the sigma search).
  Params walk_params() const {
    Params q = p;
    q.delta_prime = walk.delta_prime;
    q.steps = walk.steps;
    q.steps_per_node = walk.steps_per_node;
    q.contributions = contribution_options(walk);
    q.colluders = walk.colluders;
    q.sender_known = walk.sender_known;
    q.delta_tilde = walk.delta_tilde;
    if constexpr (requires { q.composition; }) q.composition = bounds::parse_composition(walk.composition);
    return q;
  }
};

/// One bound: `check` validates the n-independent parameters (before the grid; InvalidInput always stops),
/// `evaluate` computes one row (its InvalidInput skips the row with skip-invalid).
struct BoundRun {
  std::string name;  // "complete-sum"
  nlohmann::json parameters;
  std::function<void()> check;
  std::function<bounds::Columns(double n)> evaluate;
};

/// A complete-graph walk bound (sum, histogram) of parameters `p`: its manifest parameters are the walk's,
/// analysis, eps, delta and `more`; its check validate(p) (found by argument-dependent lookup in bounds).
template <class Params>
BoundRun walk_bound_run(std::string name, const WalkValues& walk, const std::string& analysis,
                        const Params& p, const nlohmann::json& more,
                        std::function<bounds::Columns(double n)> evaluate) {
  nlohmann::json parameters = walk_manifest(walk);
  parameters.update({{"analysis", analysis}, {"eps", p.epsilon}, {"delta", p.delta}});
  parameters.update(more);
  return BoundRun{std::move(name), parameters, [p] { validate(p); }, std::move(evaluate)};
}

/// The check phase of a bound: every n of the grid evaluated (milliseconds), nothing written.
void check_bound(const BoundRun& run, const BoundJob& job);
/// The run as a typed result: bound.csv and the summary (the writer stage writes them, docs/outputs.md).
RunResult run_bound(const BoundRun& run, const BoundJob& job);
/// A bound model's name, help, parameters, report and estimate.
Model bound_model_base(const std::string& name, const std::string& help, std::vector<Parameter> parameters);

/// A bound model named "bound <name>", its job bound by `bind` and `make` turning the job into its bound.
template <class Job>
Model bound_model(const std::string& name, const std::string& help, std::vector<Parameter> parameters,
                  const Binding<Job>& bind, std::function<BoundRun(const Job&)> make) {
  Model m = bound_model_base(name, help, std::move(parameters));
  m.validate = bind.check([make](const Job& job) { check_bound(make(job), job); });
  m.execute = bind.run([make](const Job& job) { return run_bound(make(job), job); });
  return m;
}

}  // namespace netdp::jobs::bound
