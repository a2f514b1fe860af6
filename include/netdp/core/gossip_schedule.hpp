#pragma once
// Who talks to whom in one run of a gossip protocol (docs/math.md §6.1, 6.3, 6.4, 6.8): produced by the simulator
// (gossip_sim), consumed by the time-varying accountant (gossip_loss_sequence).
#include <utility>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

/// Round t of a synchronous protocol: every node sends its value to its neighbours in `graph` (E_t), then
/// x <- W_t x. W_t is a symmetric gossip matrix supported on `graph` (isolated nodes: W_uu = 1).
struct GossipRound {
  CsrMatrix w;
  Graph graph;
};

struct GossipSchedule {
  node_t n = 0;
  /// Synchronous protocols: rounds t = 0 .. T-1. A fixed W is stored once with `constant = true` and `steps`.
  std::vector<GossipRound> rounds;
  bool constant = false;
  /// Randomized gossip (Alg 6.2): the edge {v, w} activated at each tick (v == w: nobody talks at that tick);
  /// W_t = I - (e_v - e_w)(e_v - e_w)^T / 2. Empty for synchronous protocols.
  std::vector<std::pair<node_t, node_t>> activations;
  int steps = 0;  // T: rounds or ticks

  bool randomized() const { return !activations.empty(); }
  /// Round t (t < steps) of a synchronous schedule.
  const GossipRound& round(int t) const {
    return constant ? rounds.front() : rounds[static_cast<std::size_t>(t)];
  }
};

}  // namespace netdp
