#pragma once
// The tables of `attack gossip` (docs/outputs.md, docs/attack.md "Outputs"), added to its typed result.
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/attack/attack_gossip.hpp"
#include "netdp/attack/attack_privacy.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp {

/// nodes.csv: node,attacker,observed,reconstructible,float_reconstructible,private,reconstructed,error.
void add_attack_nodes_csv(RunResult& result, const attack::GossipAttackResult& r, node_t n);
/// relations.csv: relation,node (the support of each remaining relation, its pivot first).
void add_attack_relations_csv(RunResult& result, const attack::GossipAttackResult& r);
/// attackers.csv: attacker,rank,reconstructed[,float_reconstructed].
void add_attackers_csv(RunResult& result, const attack::AllAttackersResult& r, bool with_float);
/// privacy.csv (one set of attackers): node,distance,reconstructible,projection,mu,epsilon.
void add_attack_privacy_csv(RunResult& result, const Graph& g, const attack::GossipAttackResult& r,
                            const attack::AttackPrivacy& p);
/// privacy_by_distance.csv: distance,pairs,reconstructible,mu_mean,mu_min,mu_max,epsilon_mean,epsilon_max;
/// returns the same rows for the summary.
nlohmann::json add_privacy_by_distance(RunResult& result, const std::vector<attack::PrivacyByDistance>& rows,
                                       bool epsilon);
/// centralities.csv (one row per attacker) and the correlations of docs/math.md §7.4, returned for the
/// summary.
nlohmann::json add_attack_centralities(RunResult& result, const Graph& g,
                                       const attack::AllAttackersResult& r);

}  // namespace netdp
