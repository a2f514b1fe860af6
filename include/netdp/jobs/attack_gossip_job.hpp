#pragma once
// One gossip reconstruction attack from specs to a results directory: what `netdp attack gossip` runs
// (docs/attack.md). Outputs are described in docs/outputs.md.
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/attack/attack_gossip.hpp"
#include "netdp/attack/attack_privacy.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

struct AttackGossipJob {
  std::string graph;  // graph spec
  WeightsSpec weights;
  std::string attackers = "0";  // "LIST" | "all" | "random:K"
  attack::GossipAttackParams params;
  bool float_check = true;    // also the floating-point reduction, and where it disagrees
  bool centralities = false;  // with attackers all: centralities.csv and the correlations (docs/math.md §7.4)
  // Privacy beside reconstruction (docs/math.md §7.2): sigma > 0 writes each victim's mu (and epsilon at
  // delta when delta > 0) for noise of that standard deviation added once by every node.
  attack::AttackPrivacyParams privacy{.sigma = 0};
  std::string out_dir;
  nlohmann::json invocation;
};

/// The check phase (Model::check, netdp run --dry-run, Python's check()): attackers against the graph's
/// nodes, the combinations of method, weights, dynamic and sigma, and a W file read whole and checked.
void check_attack_gossip_job(const AttackGossipJob& job);
/// Runs the attack: nodes.csv and relations.csv (a set of attackers) or attackers.csv and reconstructible.npy
/// (attackers all), with a sigma privacy.csv or mu.npy (and epsilon.npy) and privacy_by_distance.csv, and the
/// summary, as a typed result (the writer stage writes them, docs/outputs.md).
RunResult run_attack_gossip_job(const AttackGossipJob& job);

}  // namespace netdp
