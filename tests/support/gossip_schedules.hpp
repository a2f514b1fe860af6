#pragma once
// Gossip schedules and exact-accountant parameters shared by the accountants' tests (test_gossip_view*,
// test_gossip_loss_sequence): W-MH rounds of given graphs, a constant schedule, randomized ticks.
#include <utility>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::testing {

/// gossip-loss's exact accountant on the CPU (docs/math.md §6.9).
inline GossipLossParams exact_params(int steps, int t_start, ObserverKnowledge knows) {
  GossipLossParams p;
  p.accounting = GossipAccounting::exact;
  p.observer_knows = knows;
  p.steps = steps;
  p.t_start = t_start;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

inline GossipRound metropolis_round(const Graph& g) {
  return {gossip_matrix(g, Weighting::metropolis), g};
}

/// One synchronous round per graph, W-MH on each.
inline GossipSchedule synchronous(const std::vector<Graph>& graphs) {
  GossipSchedule s;
  s.n = graphs.front().n;
  for (const Graph& g : graphs) s.rounds.push_back(metropolis_round(g));
  s.steps = static_cast<int>(graphs.size());
  return s;
}

/// The round of g, `steps` times, stored once (constant = true).
inline GossipSchedule constant_schedule(const Graph& g, int steps) {
  GossipSchedule s = synchronous({g});
  s.constant = true;
  s.steps = steps;
  return s;
}

/// Randomized gossip: one activated edge per tick.
inline GossipSchedule randomized(node_t n, std::vector<std::pair<node_t, node_t>> activations) {
  GossipSchedule s;
  s.n = n;
  s.activations = std::move(activations);
  s.steps = static_cast<int>(s.activations.size());
  return s;
}

}  // namespace netdp::testing
