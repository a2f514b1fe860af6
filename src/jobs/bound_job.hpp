#pragma once
// What the bound models share (`bound complete-sum`, `bound ring-sum`, ...; docs/math.md §3-4): the grid of
// n, the options of the random-walk bounds on the complete graph, and the run that evaluates one function n
// -> columns over the grid into bound.csv, summary.json and manifest.json (last).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/bounds/common.hpp"
#include "netdp/jobs/model.hpp"

namespace netdp::jobs::bound {

/// n, n-logspace, n-round, skip-invalid, out.
std::vector<Parameter> grid_parameters();

/// The grid parameters, then the options of the random-walk bounds on the complete graph (docs/math.md §4);
/// `deltas` is the default of delta-prime, delta-hat and delta-tilde ("1e-07", or "1e-06" for DP-SGD).
std::vector<Parameter> walk_grid_parameters(const std::string& default_steps_per_node,
                                            const std::string& deltas);
struct WalkValues {
  double delta_prime = 1e-7, delta_hat = 1e-7, delta_tilde = 1e-7;
  double steps = 0, steps_per_node = 100, colluders = 1;
  std::string contributions = "chernoff", nv_formula = "proof", composition = "optimal_min";
  bool sender_known = false;
};
WalkValues walk_values(const Values& v);
bounds::ContributionOptions contribution_options(const WalkValues& w);
/// The walk options as manifest parameters.
nlohmann::json walk_manifest(const WalkValues& w);

/// The fields the complete-graph walk bounds share (sum and histogram), from `eps0`, `delta` and the walk
/// values.
template <class Params>
void set_walk_fields(Params& p, const Values& v, const WalkValues& w) {
  p.epsilon = v.real("eps0");
  p.delta = v.real("delta");
  p.delta_prime = w.delta_prime;
  p.steps = w.steps;
  p.steps_per_node = w.steps_per_node;
  p.contributions = contribution_options(w);
  p.composition = bounds::parse_composition(w.composition);
  p.colluders = w.colluders;
  p.sender_known = w.sender_known;
  p.delta_tilde = w.delta_tilde;
}

/// One bound: `check` validates the n-independent parameters (before the grid; InvalidInput always stops),
/// `evaluate` computes one row (its InvalidInput skips the row with skip-invalid).
struct BoundRun {
  std::string name;  // "complete-sum"
  nlohmann::json parameters;
  std::function<void()> check;
  std::function<bounds::Columns(double n)> evaluate;
};

/// A bound model named "bound <name>": checking evaluates every n of the grid (milliseconds) and writes
/// nothing; running writes the files and returns the summary.
Model bound_model(const std::string& name, const std::string& help, std::vector<Parameter> parameters,
                  std::function<BoundRun(const Values&)> make);

}  // namespace netdp::jobs::bound
