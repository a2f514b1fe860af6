#pragma once
// The files of `attack gossip` (docs/outputs.md,
// docs/attack.md "Outputs").
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/attack/attack_gossip.hpp"
#include "netdp/attack/attack_privacy.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

/// nodes.csv: node,attacker,observed,reconstructible,float_reconstructible,private,reconstructed,error.
void write_attack_nodes_csv(const ResultsDir& out, const attack::GossipAttackResult& r, node_t n);
/// relations.csv: relation,node (the support of each remaining relation, its pivot first).
void write_attack_relations_csv(const ResultsDir& out, const attack::GossipAttackResult& r);
/// attackers.csv: attacker,rank,reconstructed[,float_reconstructed].
void write_attackers_csv(const ResultsDir& out, const attack::AllAttackersResult& r, bool with_float);
/// privacy.csv (one set of attackers): node,distance,reconstructible,projection,mu,epsilon.
void write_attack_privacy_csv(const ResultsDir& out, const Graph& g, const attack::GossipAttackResult& r,
                              const attack::AttackPrivacy& p);
/// privacy_by_distance.csv: distance,pairs,reconstructible,mu_mean,mu_min,mu_max,epsilon_mean,epsilon_max;
/// returns the same rows for the summary.
nlohmann::json write_privacy_by_distance(const ResultsDir& out,
                                         const std::vector<attack::PrivacyByDistance>& rows, bool epsilon);
/// centralities.csv (one row per attacker) and the correlations of docs/math.md §7.4, returned for the
/// summary.
nlohmann::json write_attack_centralities(const ResultsDir& out, const Graph& g,
                                         const attack::AllAttackersResult& r);

}  // namespace netdp
