#pragma once
// Internals of `netdp bound ...` (MATH_SPEC 3-4 closed-form and numerical bounds): every bound subcommand
// fills a library parameter struct and hands run_bound() one function n -> columns.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "netdp/bounds/common.hpp"

namespace netdp::cli::bound {

/// The grid of n and the output shared by every bound subcommand.
struct GridOptions {
  std::vector<double> n, logspace;  // --n 10,20,50 and --n-logspace START,STOP,NUM
  std::string rounding = "none", out;
  bool skip_invalid = false;
  bool check_only = false;  // not an option: evaluate every n and stop before writing (study validation)
};
void add_grid_options(CLI::App& c, GridOptions& o);

/// Options of the random-walk bounds on the complete graph (MATH_SPEC 4).
struct WalkOptions {
  double delta_prime = 1e-7, delta_hat = 1e-7, delta_tilde = 1e-7;
  double steps = 0, steps_per_node = 100, colluders = 1;
  std::string contributions = "chernoff", nv_formula = "proof", composition = "optimal_min";
  bool sender_known = false;
};
void add_walk_options(CLI::App& c, WalkOptions& o, double default_steps_per_node);
bounds::ContributionOptions contribution_options(const WalkOptions& o);
nlohmann::json walk_parameters(const WalkOptions& o);

/// A subcommand: `check` validates the n-independent parameters (before the grid; InvalidInput always
/// stops), `evaluate` computes one row (its InvalidInput skips the row with --skip-invalid).
struct BoundRun {
  std::string name;
  nlohmann::json parameters;
  std::function<void()> check;
  std::function<bounds::Columns(double n)> evaluate;
};
int run_bound(const BoundRun& run, const GridOptions& grid, const nlohmann::json& invocation);

/// Registers one subcommand under `bound`; `make` builds the run once the command line is parsed.
struct Registered {
  CLI::App* app;
  std::function<int()> run;
  GridOptions* grid;  // the subcommand's grid options, owned by `run`
};
Registered add_complete_sum(CLI::App& bound, const nlohmann::json& invocation);
Registered add_complete_histogram(CLI::App& bound, const nlohmann::json& invocation);
Registered add_ring_sum(CLI::App& bound, const nlohmann::json& invocation);
Registered add_ring_histogram(CLI::App& bound, const nlohmann::json& invocation);
Registered add_sgd_rdp(CLI::App& bound, const nlohmann::json& invocation);
Registered add_sgd_closed_form(CLI::App& bound, const nlohmann::json& invocation);
Registered add_sgd_sigma(CLI::App& bound, const nlohmann::json& invocation);

}  // namespace netdp::cli::bound
