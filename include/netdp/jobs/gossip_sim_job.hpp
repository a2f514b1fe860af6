#pragma once
// One gossip simulation from specs to a results directory: what `netdp gossip-sim` runs. Outputs are
// described in docs/gossip_sim.md.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/core/spectral.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/gossip_sim_privacy.hpp"
#include "netdp/simulation/gossip_sim_stop.hpp"

namespace netdp {

struct GossipSimJob {
  std::string graph;             // graph spec; er-per-round and sequence use only its number of nodes
  std::string sequence;          // --protocol sequence: the list of matrix files (load_gossip_sequence)
  GossipSimParams params;        // params.steps is ignored when auto_steps; edge_probability comes from er_c
                                 // (er-per-round) or is er-p itself (dropout-er)
  bool auto_steps = false;       // T = T_stop (docs/math.md §2.3, 6.3)
  double er_c = 1.0;             // er-per-round: q = c ln(n) / n (docs/math.md §6.4)
  std::optional<double> er_p;    // dropout-er: the edge probability p of every round's G(n, p) (required)
  std::optional<double> target;  // report the first t whose mean error is <= target
  GapDefinition gap = GapDefinition::second;
  bool privacy = false;  // also the pairwise losses of every run, aggregated (gossip_sim_privacy)
  GossipPrivacyParams privacy_params;  // memory_limit is taken from params.memory_limit
  std::optional<StopRule> stop_at;     // with privacy: each run stopped at this rule (gossip_sim_stop)
  std::string out_dir;
  bool progress = true;       // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;  // how the job was asked for (command line), copied to the manifest
};

/// The checks that need no graph (bad numbers, contradictory options), without running anything; the
/// run starts with them, and `netdp run` calls them for every grid point before any unit runs.
void check_gossip_sim_job(const GossipSimJob& job);

/// Runs the job: mse.csv, with privacy the privacy_* files, and the summary as a typed result (the writer
/// stage writes them, docs/outputs.md).
RunResult run_gossip_sim_job(const GossipSimJob& job);

}  // namespace netdp
