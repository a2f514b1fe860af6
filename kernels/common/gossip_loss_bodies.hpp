#pragma once
// Single-source bodies of the CUDA gossip accountant (kernels/cuda/gossip_loss_cuda.cu; docs/gossip_loss.md
// "How it is computed", docs/cuda_backend.md "Single-source bodies and the device-bodies tests"): every
// per-thread part of its element kernels, written once over plain pointers with the maths of
// common/gossip_loss_math.hpp. The .cu file launches the element bodies with cuda::device_for_each_2d
// (launch.cuh) and keeps one __global__, the column reduction, for its shared-memory block tree;
// tests/backend/test_gossip_loss_bodies.cpp runs the same code on the host (host_for_each_2d,
// gossip::tree_sum) and compares it with the CPU backend (kernels/cpu/gossip_loss_cpu.cpp).
//
// Layout: a tile of cols sources s .. s + cols - 1 is a column-major n x cols block X (ld = n), column j =
// W^t e_{s + j}, so X[w + j n] = (W^t)_{w, s + j}; the shares S and the losses use the same layout, column j
// of the loss block being row s + j of the row-major loss matrix.
#include <cmath>
#include <cstdint>

#include "common/gossip_loss_math.hpp"
#include "common/gossip_sim_bodies.hpp"  // gossip::tree_level / tree_sum: the one block tree
#include "common/hd.hpp"
#include "common/propagation_bodies.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::gossip_loss {

/// sum + x * x rounded once (a fused multiply-add on both sides: __fma_rn on the device, std::fma, correctly
/// rounded, on the host).
NETDP_HD inline double add_square(double x, double sum) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(x, x, sum);
#else
  return std::fma(x, x, sum);
#endif
}

/// Pass 1, thread `tid` of a `threads`-wide block reducing one column: its strided part sum_{w = tid, tid +
/// threads, ...} column[w]^2, each term added with one rounding (add_square). The block then sums the parts
/// with the fixed halving tree (gossip::tree_level per level, a barrier between levels on the device;
/// gossip::tree_sum on the host): r_t(u) = ||W^t e_u||^2 = ||row u of W^t||^2 by symmetry (docs/math.md
/// §6.2). The CPU sums the squares in node order, so the two agree to the bound of the device-bodies test,
/// not bit for bit.
NETDP_HD inline double column_square_part(const double* column, std::int64_t n, int tid, int threads) {
  double sum = 0.0;
  for (std::int64_t w = tid; w < n; w += threads) sum = add_square(column[w], sum);
  return sum;
}

/// Pass 2, element (w, j) (2-D body over n x cols): S[w, j] += (W^t)_{w, s + j}^2 / r_t(w), the share of the
/// message w sends at time t (docs/math.md §6.1 eq. M1), norms_t = r_t. A product, a quotient, then one sum
/// rounded on its own: the CPU's rounding, element for element.
struct AccumulateSharesBody {
  const double* x;
  const double* norms_t;
  std::int64_t n;
  double* s;

  NETDP_HD void operator()(std::int64_t w, std::int64_t j) const {
    const std::int64_t at = w + j * n;
    s[at] = rn_add(s[at], message_share(x[at], norms_t[w]));
  }
};

/// Pass 2, element (v, j) (2-D body over n x cols): out[v, j] = pair_loss(sum_{w in N(v)} S[w, j]) for source
/// first + j: v hears every message of its neighbours (M1, P^T_{v,w} = all t for a fixed graph). The
/// neighbours are summed from 0 in the graph's sorted order, like the CPU backend; a node without neighbours
/// gets pair_loss(0).
struct NeighbourLossesBody {
  const double* s;
  const std::int64_t* adj_offsets;
  const std::int32_t* adj;
  std::int64_t n, first;
  double scale;
  bool cap_ldp;
  double* out;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const double* s_column = s + j * n;
    double sum = 0.0;
    for (std::int64_t e = adj_offsets[v]; e < adj_offsets[v + 1]; ++e) sum = rn_add(sum, s_column[adj[e]]);
    out[v + j * n] = pair_loss(sum, scale, cap_ldp, v == first + j);
  }
};

}  // namespace netdp::kernels::gossip_loss
