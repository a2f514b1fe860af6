#pragma once
// One complete gossip-loss computation from specs to a results directory: what `netdp gossip-loss` runs, and
// what the demo and study runner call. Outputs are described in docs/outputs.md.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

struct GossipLossJob {
  std::string graph;        // graph spec, e.g. "hypercube:dim=11"
  WeightsSpec weights;      // metropolis by default
  GossipLossParams params;  // params.steps is ignored when auto_steps
  bool auto_steps = false;  // T = T_stop (docs/math.md §2.3)
  GapDefinition gap = GapDefinition::second;
  std::string out_dir;
  bool write_matrix = true;     // loss.npy; without it only the statistics files (large sweeps)
  std::optional<double> delta;  // exact accounting: epsilon at this delta for every pair (epsilon.npy)
  bool diagonal_local = false;  // loss.npy's (u, u): the LDP level instead of 0 (docs/math.md §12 item 60)
  bool progress = true;         // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;    // how the job was asked for (command line), copied to the manifest
};

/// The checks that need no graph (bad numbers, contradictory options), without running anything; the
/// run starts with them, and `netdp run` calls them for every grid point before any unit runs.
void check_gossip_loss_job(const GossipLossJob& job);

/// Runs the job: loss.npy (and mu.npy, epsilon.npy) streamed into `out` as the rows come, by_distance.csv,
/// per_observer.csv (all pairs only) and the summary in the typed result the writer stage then writes into
/// `out` (docs/outputs.md).
RunResult run_gossip_loss_job(const GossipLossJob& job, const ResultsDir& out);

}  // namespace netdp
