#pragma once
// One complete walk-loss computation from specs to a results directory: what `netdp walk-loss` runs.
// Outputs as gossip-loss (README "Output files"), plus collusion.csv with --colluders.
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

/// Which mean loss --target-mean-loss calibrates (docs/math.md §5.8 exposes both).
enum class TargetStatistic {
  max_observer,  // max_v (1/n) sum_{u != v} eps_{u->v}
  all_pairs,     // mean over all ordered pairs u != v
};

struct WalkLossJob {
  std::string graph;
  WeightsSpec weights;
  WalkLossParams params;    // params.steps is ignored when auto_steps
  bool auto_steps = false;  // T = T_RW (docs/math.md §2.3)
  GapDefinition gap = GapDefinition::second;
  int colluders = 0;            // K > 0: worst coalition of K observers per source (docs/math.md §5.5)
  double target_mean_loss = 0;  // > 0: choose sigma so that the statistic below equals it (docs/math.md §5.8)
  TargetStatistic target_statistic = TargetStatistic::max_observer;
  bool stated_condition = true;  // weak-convexity condition: stated (sigma^2 >= 2a(a-1)) or exact (a(a-1)/2)
  std::string out_dir;
  bool write_matrix = true;  // loss.npy; without it only the statistics files (large sweeps)
  bool diagonal_local =
      false;  // loss.npy's (u, u): alpha/(2 sigma^2) instead of 0 (docs/math.md §12 item 60)
  bool progress =
      true;  // progress lines and the weak-convexity warning on stderr (summary.json has it always)
  nlohmann::json invocation;
};

/// The checks that need no graph (bad numbers, contradictory options), without running anything; the
/// run starts with them, and `netdp run` calls them for every grid point before any unit runs.
void check_walk_loss_job(const WalkLossJob& job);

/// Runs the job: loss.npy streamed into `out` as the rows come, the tables and the summary in the typed
/// result the writer stage then writes into `out` (docs/outputs.md).
RunResult run_walk_loss_job(const WalkLossJob& job, const ResultsDir& out);

}  // namespace netdp
