#pragma once
// Small graphs the attack tests share (test_attack_gossip.cpp, test_attack_dgd.cpp).
#include <utility>
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp::attack {

inline Graph from_edges(node_t n, std::vector<std::pair<node_t, node_t>> edges) {
  return graph_from_edges(n, edges);
}

/// The path 0-1-...-(n-1).
inline Graph path(node_t n) {
  std::vector<std::pair<node_t, node_t>> e;
  for (node_t i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
  return from_edges(n, e);
}

}  // namespace netdp::attack
