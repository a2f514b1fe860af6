#pragma once
// One D-GD reconstruction attack from specs to a results directory: what `netdp attack dgd` runs
// (docs/attack.md "D-GD"). Outputs are described in docs/outputs.md.
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/attack/attack_dgd.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp {

/// What a node's update is: Assumption 4.7 itself (a constant N(0, I) vector per node), or -eta grad f_v of
/// a built-in convex model (convex_models.hpp) on synthetic or CSV data. least-squares gets an intercept.
enum class DgdObjective { assumption, quadratic, least_squares };
/// The public initial parameters theta^0: every node at the minimiser of the global objective (the
/// attack starts near convergence), all zero, or N(0, I) per node (removed by the parallel gossip).
enum class DgdInit { optimum, zero, random };

struct AttackDgdJob {
  std::string graph;  // graph spec
  WeightsSpec weights;
  std::string attackers = "0";  // "LIST" | "random:K"
  attack::DgdAttackParams params;
  DgdObjective objective = DgdObjective::assumption;
  DgdInit init = DgdInit::optimum;
  std::string data;  // CSV path; empty: synthetic from the seed
  int dim = 1;       // synthetic data and assumption: p
  int samples = 1;   // synthetic examples per node
  double step_size = 0.1;
  int runs = 1;
  std::string out_dir;
  bool progress = true;  // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;
};

/// The check phase (Model::check, netdp run --dry-run, Python's check()): the combinations of attackers,
/// weights, objective and data, the attackers against the graph's nodes and the data file read whole.
void check_attack_dgd_job(const AttackDgdJob& job);
/// Runs the attack (runs replicates with independent noise, same data): nodes.csv, iterations.csv,
/// estimates.csv and the summary as a typed result (the writer stage writes them, docs/outputs.md).
RunResult run_attack_dgd_job(const AttackDgdJob& job);

}  // namespace netdp
