#pragma once
// One walk simulation from specs to a results directory: what `netdp walk-sim` runs. Outputs are described
// in docs/walk_sim.md.
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/simulation/walk_sim.hpp"

namespace netdp {

struct WalkSimJob {
  std::string graph;  // graph spec; complete:n=N is the implicit J/n walk
  std::string weights =
      "auto";  // auto | uniform | lazy-uniform | directed-ring | metropolis | ... | file:PATH
  WalkSimParams params;
  bool statistics_auto = false;  // statistics auto: resolved from accounting, save-paths and the device
  std::string out_dir;
  bool progress = true;       // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;  // how the job was asked for (command line), copied to the manifest
};

/// The checks that need no graph (bad numbers, contradictory options), without running anything; the
/// run starts with them, and `netdp run` calls them for every grid point before any unit runs.
void check_walk_sim_job(const WalkSimJob& job);

/// Runs the job: the CSVs and the summary as a typed result (the writer stage writes them, docs/outputs.md).
RunResult run_walk_sim_job(const WalkSimJob& job);

namespace jobs {
class Values;
struct RunContext;
/// The job the walk-sim model's parameters describe (what `netdp walk-sim` runs): its binding's make.
WalkSimJob walk_sim_job(const Values& v, const RunContext& context);
}  // namespace jobs

}  // namespace netdp
