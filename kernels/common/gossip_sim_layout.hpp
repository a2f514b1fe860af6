#pragma once
// The gossip simulator's Philox subsequences (the layout is documented in
// include/netdp/simulation/gossip_sim.hpp, docs/design.md principle 2): one definition for the CPU engine and
// the CUDA bodies, below both layers.
#include <cstdint>

namespace netdp {

/// kind << 56 | run << 24 | round.
enum class GossipStream : std::uint64_t { init = 1, noise = 2, activation = 3, er_graph = 4, dropout = 5 };
constexpr std::uint64_t gossip_subsequence(GossipStream kind, std::uint64_t run, std::uint64_t round) {
  return static_cast<std::uint64_t>(kind) << 56 | run << 24 | round;
}

}  // namespace netdp
