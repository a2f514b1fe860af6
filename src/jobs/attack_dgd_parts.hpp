#pragma once
// The data side of `attack dgd` (docs/attack.md "D-GD"): each node's update function, the public theta^0 and
// the closed-form inversion of a reconstructed gradient back to the node's data, for Assumption 4.7 itself
// and the built-in convex models (simulation/convex_models.hpp).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/attack/attack_dgd.hpp"
#include "netdp/jobs/attack_dgd_job.hpp"

namespace netdp {

DgdObjective parse_dgd_objective(std::string_view text);  // assumption | quadratic | least-squares
std::string to_string(DgdObjective o);
DgdInit parse_dgd_init(std::string_view text);  // optimum | zero | random
std::string to_string(DgdInit i);

struct DgdProblem {
  int dim = 0;                 // parameters per node (least-squares: features + the intercept)
  std::int64_t examples = 0;   // 0 for assumption
  std::vector<double> theta0;  // n x dim, public
  attack::UpdateFunction update;
  /// The relative error ||x_hat - x|| / ||x|| of the data recovered from node v's estimated gradient; empty
  /// when the model has no closed-form inversion (assumption, or several examples per node).
  std::function<double(node_t v, const double* gradient)> invert;
  std::string inversion;  // how, for summary.json ("none" without)
};

/// Updates g_v = -eta grad f_v(theta) (l2 = 0) or Assumption 4.7's constants (Philox stream kind 20, N(0,
/// I)), and theta^0 (random: kind 22). InvalidParameter "data" for a bad file.
DgdProblem make_dgd_problem(const AttackDgdJob& job, node_t n);

}  // namespace netdp
