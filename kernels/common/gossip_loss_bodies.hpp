#pragma once
// Single-source bodies of the CUDA gossip accountant (kernels/cuda/gossip_loss_cuda.cu; docs/gossip_loss.md
// "How it is computed", docs/cuda_backend.md "Node-major gossip engines"): every per-thread part of its
// kernels, written once over plain pointers with the maths of common/gossip_loss_math.hpp and the
// warp-per-row product of common/gossip_spmm_bodies.hpp. The .cu file launches the row bodies with
// cuda::for_each_row (cuda/gossip_spmm.cuh) and the pass-1 chunk bodies with cuda::for_each;
// tests/backend/test_gossip_loss_bodies.cpp runs the same code on the host (host_for_each_row,
// host_for_each) and compares it with the CPU backend (kernels/cpu/gossip_loss_cpu.cpp).
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

/// The one summation order of the row norms r_t(u) = ||W^t e_u||^2 (docs/math.md §6.2; docs/cuda_backend.md
/// "Gossip-loss: the norms' one order"), both twins: the squares of column u of W^t summed in node order from
/// 0 within chunks of kNormChunk nodes, then the chunks' sums added in chunk order from 0, every square and
/// sum rounded once. The CPU twin runs it over its 8-lane panels (kernels/cpu/gossip_loss_cpu.cpp), the CUDA
/// twin with one thread per (chunk, source) then one per source (ChunkSquaresBody, ColumnNormsBody): the
/// same bits, whatever the tile or panel width. Chunks keep the GPU parallel (a plain node-order sum would be
/// one thread per source, 32 threads per tile, each n dependent additions long) at one extra addition per
/// chunk on the CPU; 256 nodes give 8,192 threads per 32-source tile at n = 65,536 and a final fold of 256
/// additions.
inline constexpr std::int64_t kNormChunk = 256;

/// out[j] = sum of x[w ld + j]^2 over nodes w0 <= w < w1 in node order from 0, for the L columns j < L of a
/// node-major block (ld = cols; the CPU's panels: L = ld = 8): one chunk of the one order.
template <int L>
NETDP_HD inline void chunk_square_sums(const double* x, std::int64_t ld, std::int64_t w0, std::int64_t w1,
                                       double* out) {
  double sum[L];
  for (int j = 0; j < L; ++j) sum[j] = 0.0;
  for (std::int64_t w = w0; w < w1; ++w)
    for (int j = 0; j < L; ++j) {
      const double value = x[w * ld + j];
      sum[j] = rn_add(sum[j], rn_mul(value, value));
    }
  for (int j = 0; j < L; ++j) out[j] = sum[j];
}

/// Chunks of the one order for n nodes.
NETDP_HD constexpr std::int64_t norm_chunks(std::int64_t n) {
  return (n + kNormChunk - 1) / kNormChunk;
}

/// Pass 1 on the GPU, after the power: the power alone (row body over n x cols), y[w, j] = (W x)[w, j] in CSR
/// order (PowerStep with y set).
template <class Offset, class Column>
struct PowerRowsBody {
  PowerStep<Offset, Column> power;
  NETDP_HD void operator()(std::int64_t w, std::int64_t j) const { power.entry(w, j); }
};

/// Pass 1, element idx = c cols + j (1-D body over norm_chunks(n) x cols): partial[idx] = chunk c of column j
/// of the tile's power x (node-major n x cols). The threads of a warp take consecutive columns of the same
/// nodes: coalesced reads.
struct ChunkSquaresBody {
  const double* x;
  std::int64_t n, cols;
  double* partial;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t c = idx / cols, j = idx - c * cols;
    const std::int64_t w0 = c * kNormChunk, w1 = w0 + kNormChunk < n ? w0 + kNormChunk : n;
    chunk_square_sums<1>(x + j, cols, w0, w1, partial + idx);
  }
};

/// Pass 1, source j of the tile (1-D body over cols): norms_t[first + j] = r_t(first + j), the chunks of
/// ChunkSquaresBody added in chunk order from 0 (spmm::column_sum over the chunks x cols block). Each
/// source's norm is written once: no tile adds to another.
struct ColumnNormsBody {
  const double* partial;
  std::int64_t chunks, cols, first;
  double* norms_t;

  NETDP_HD void operator()(std::int64_t j) const {
    norms_t[first + j] = spmm::column_sum(partial + j, chunks, cols);
  }
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
