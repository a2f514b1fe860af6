#pragma once
// The walk engine's kinds of walk and Philox subsequences (the layout is documented in
// include/netdp/simulation/walk_sim.hpp, docs/design.md principle 2): one definition for the CPU engine and
// the CUDA bodies, below both layers.
#include <cstdint>

namespace netdp {

enum class WalkKind {
  complete,       // implicit K_n with self-transitions: W = J/n (docs/math.md §4)
  uniform,        // 1/d_v to each neighbour (row-normalised adjacency)
  lazy_uniform,   // 1/2 stay, 1/(2 d_v) to each neighbour (exact integer draw)
  weighted,       // any row-stochastic W on the edges and the diagonal (64-bit cumulative thresholds)
  directed_ring,  // v -> v + 1 mod n, deterministic (docs/math.md §3.1)
};

/// Philox subsequence of a stream kind and run (the layout of walk_sim.hpp).
enum class WalkStream : std::uint64_t { walk = 1, start = 2, retry = 3, noise = 4, values = 5 };
constexpr std::uint64_t walk_subsequence(WalkStream kind, std::uint64_t run) {
  return static_cast<std::uint64_t>(kind) << 56 | run;
}

}  // namespace netdp
