#pragma once
// Per-element maths of the gossip simulator's time-varying protocols, shared by the CPU
// (src/gossip_sim_*.cpp) and CUDA (kernels/cuda/gossip_sim_varying_cuda.cu) backends (docs/design.md principle 1).
// Products and sums are written so that the host and the device round them the same way (no contraction
// across a product and a sum changes them: the products below are exact or are rounded before the sum on both
// sides).
#include <cstdint>

#include "common/hd.hpp"
#include "common/philox.hpp"

namespace netdp::kernels {

/// PhiloxStream::next_uniform_double on two raw words (the one definition is in common/philox.hpp).
using philox::uniform_from_words;

/// Randomized gossip (docs/math.md §2.2, 6.3): the edge e activated by the uniform u, i.e. the first e with
/// cumulative[e] > u (std::upper_bound); `edges` (= the number of edges) for an idle tick.
NETDP_HD inline std::int64_t activated_edge(const double* cumulative, std::int64_t edges, double u) {
  std::int64_t low = 0, high = edges;
  while (low < high) {
    const std::int64_t mid = low + (high - low) / 2;
    if (cumulative[mid] <= u)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

/// W-MH off-diagonal weight 1 / (1 + max(d_u, d_v)) (docs/math.md §2.2), as netdp::gossip_matrix computes it.
NETDP_HD inline double metropolis_weight(std::int32_t du, std::int32_t dv) {
  return 1.0 / (1.0 + (du > dv ? du : dv));
}

/// W-MH diagonal term of neighbour v of u: cap - W_uv with cap = 1 / (1 + d_u); gossip_matrix sums
/// W_uu = cap + sum_{v in N(u)} (cap - W_uv) in neighbour order (only non-negative terms).
NETDP_HD inline double metropolis_diagonal_term(std::int32_t du, std::int32_t dv) {
  return 1.0 / (1.0 + du) - metropolis_weight(du, dv);
}

/// G(n, q) by geometric skips over the pairs (u, v), u < v, in row order (docs/math.md §6.4): moves the pair
/// (u, v), whose index is `index`, `step` >= 1 pairs on; row u holds v = u + 1 .. n - 1.
NETDP_HD inline void advance_pair(std::int64_t step, std::int64_t n, std::int64_t& index, std::int64_t& u,
                                  std::int64_t& v) {
  index += step;
  v += step;
  while (v >= n) {  // carry into the next rows
    ++u;
    v = v - n + u + 1;
  }
}

}  // namespace netdp::kernels
