#pragma once
// Single-source bodies of the CUDA gossip accountant (kernels/cuda/gossip_loss_cuda.cu; docs/gossip_loss.md
// "How it is computed", docs/cuda_backend.md "Node-major gossip engines"): every per-thread part of its
// kernels, written once over plain pointers with the maths of common/gossip_loss_math.hpp and the
// warp-per-row product of common/gossip_spmm_bodies.hpp. The .cu file launches the row bodies with
// cuda::for_each_row and the pass-1 body with cuda::row_sums (cuda/gossip_spmm.cuh);
// tests/backend/test_gossip_loss_bodies.cpp runs the same code on the host (host_for_each_row,
// host_row_sums) and compares it with the CPU backend (kernels/cpu/gossip_loss_cpu.cpp).
//
// Layout: node-major. A tile of cols sources s .. s + cols - 1 (32 to 64 of them) is a row-major n x cols
// block X (ld = cols), X[w cols + j] = (W^t)_{w, s + j}; the shares S use the same layout. The loss block is
// column-major (column j = row s + j of the row-major loss matrix), as the row staging hands it to the sink.
#include <cmath>
#include <cstdint>

#include "common/gossip_loss_math.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::gossip_loss {

/// X = W^0 for the tile's sources (row body over n x cols): X[w, j] = 1 if w = first + j, else 0.
struct IdentityRowsBody {
  double* x;
  std::int64_t cols, first;

  NETDP_HD void operator()(std::int64_t w, std::int64_t j) const {
    x[w * cols + j] = w == first + j ? 1.0 : 0.0;
  }
};

/// Power t of a tile, entry (w, j): y[w, j] = (W x)[w, j] summed in CSR order (spmm::row_entry) and stored,
/// or, with y = nullptr, x[w, j] itself (t = 0, and the dense path, where DGEMM has made the power). The
/// leading members of the pass bodies below.
template <class Offset, class Column>
struct PowerStep {
  spmm::RowProduct<Offset, Column> product;  // W and x
  std::int64_t cols;
  double* y;  // nullptr: x is the power

  NETDP_HD double entry(std::int64_t w, std::int64_t j) const {
    const std::int64_t at = w * cols + j;
    if (!y) return product.x[at];
    const double value = product.entry(w, cols, j);
    y[at] = value;
    return value;
  }
};

/// Pass 1, fused into the product (a row-sum body: cuda::row_sums / host_row_sums): the power, then
/// r_t(w) += sum_j (W^t)_{w, s + j}^2, the tile's part of r_t(w) = ||row w of W^t||^2 (docs/math.md §6.2),
/// each square rounded, the tile's columns summed by lanes and the fixed halving tree, the tiles added in
/// order (norms_t zeroed first). The CPU sums the squares of column u of W^t in node order instead (equal by
/// symmetry): the two agree to the bound of the device-bodies test, not bit for bit.
template <class Offset, class Column>
struct NormsStepBody {
  PowerStep<Offset, Column> power;
  double* norms_t;

  NETDP_HD double part(std::int64_t w, std::int64_t j) const {
    const double value = power.entry(w, j);
    return rn_mul(value, value);
  }
  NETDP_HD void done(std::int64_t w, double sum) const { norms_t[w] = rn_add(norms_t[w], sum); }
};

/// Pass 2, fused into the product (row body): the power, then S[w, j] += (W^t)_{w, s + j}^2 / r_t(w), the
/// share of the message w sends at time t (docs/math.md §6.1 eq. M1). A product, a quotient, then one sum
/// rounded on its own: the CPU's rounding, element for element.
template <class Offset, class Column>
struct SharesStepBody {
  PowerStep<Offset, Column> power;
  const double* norms_t;
  double* s;

  NETDP_HD void operator()(std::int64_t w, std::int64_t j) const {
    const double value = power.entry(w, j);
    const std::int64_t at = w * power.cols + j;
    s[at] = rn_add(s[at], message_share(value, norms_t[w]));
  }
};

/// Pass 2, element (v, j) (row body over n x cols): out[v + j n] = pair_loss(sum_{w in N(v)} S[w, j]) for
/// source first + j: v hears every message of its neighbours (M1, P^T_{v,w} = all t for a fixed graph). The
/// neighbours are summed from 0 in the graph's sorted order, like the CPU backend; a node without neighbours
/// gets pair_loss(0). The lanes of a row read consecutive shares; the column-major losses are written once
/// per tile.
struct NeighbourLossesBody {
  const double* s;
  const std::int64_t* adj_offsets;
  const std::int32_t* adj;
  std::int64_t n, cols, first;
  double scale;
  bool cap_ldp;
  double* out;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    double sum = 0.0;
    for (std::int64_t e = adj_offsets[v]; e < adj_offsets[v + 1]; ++e)
      sum = rn_add(sum, s[static_cast<std::int64_t>(adj[e]) * cols + j]);
    out[v + j * n] = pair_loss(sum, scale, cap_ldp, v == first + j);
  }
};

}  // namespace netdp::kernels::gossip_loss
