#pragma once
// The single-source bodies of the time-varying gossip accountant (docs/math.md §6.1, 6.3, 6.5;
// docs/cuda_backend.md "Gossip-loss-sequence twins"), run by the CPU twin
// (kernels/cpu/gossip_loss_sequence_cpu.cpp) and the CUDA twin (kernels/cuda/gossip_loss_sequence_cuda.cu).
//
// The state is a dense row-major product P (n x n, row w = row w of W_{0:t}) and the shares F (n x count,
// observer-major). Every entry is summed in one fixed order, whatever the launch geometry: a product entry
// over W's row in CSR order, a row norm over the columns in increasing order, an observer's shares over its
// neighbours in increasing id. The bodies that cover a row take it in `blocks` pieces: the CPU twin runs one
// piece per row (whole rows: vectorised loops), the CUDA twin one entry per thread (coalesced), and each
// entry sees the same operations in the same order, so both write the same bits.
#include <cstdint>

#include "common/gossip_loss_math.hpp"
#include "common/hd.hpp"
#include "common/rounding.hpp"
#include "netdp/ground/types.hpp"

namespace netdp::kernels::sequence {

/// W_t or the graph E_t as plain device-or-host arrays.
struct CsrArrays {
  const offset_t* offsets = nullptr;
  const node_t* columns = nullptr;  // the graph's adjacency
  const double* values = nullptr;   // nullptr for a graph
  NETDP_HD node_t degree(node_t v) const { return static_cast<node_t>(offsets[v + 1] - offsets[v]); }
};

/// Entries [first, last) of a row of `width` split into `blocks` pieces: piece b of a row.
struct RowPiece {
  std::int64_t row, first, last;
  NETDP_HD static RowPiece of(std::int64_t i, std::int64_t blocks, std::int64_t width) {
    const std::int64_t row = i / blocks, b = i - row * blocks;
    const std::int64_t size = (width + blocks - 1) / blocks;
    const std::int64_t first = b * size < width ? b * size : width;
    const std::int64_t last = first + size < width ? first + size : width;
    return {row, first, last};
  }
};

/// ||row||^2 over `n` columns in increasing order.
NETDP_HD inline double row_norm_sq(const double* row, std::int64_t n) {
  double acc = 0;
  for (std::int64_t k = 0; k < n; ++k) acc = rn_add(acc, rn_mul(row[k], row[k]));
  return acc;
}

/// P = I (W_{0:0}) and its row norms 1. Index i: entry i of the n x n block.
struct IdentityBody {
  double* p;
  double* norms;
  std::int64_t n;
  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t row = i / n;
    const bool diagonal = i - row * n == row;
    p[i] = diagonal ? 1.0 : 0.0;
    if (diagonal) norms[row] = 1.0;
  }
};

/// Y = W X (X, Y row-major n x n): entry (i, c) = sum over W's row i in CSR order of W_ik X_kc, from 0.
/// Index: piece of a row (RowPiece with `blocks` pieces per row).
struct ProductBody {
  CsrArrays w;
  const double* x;
  double* y;
  std::int64_t n, blocks;
  NETDP_HD void operator()(std::int64_t i) const {
    const RowPiece piece = RowPiece::of(i, blocks, n);
    const offset_t begin = w.offsets[piece.row], end = w.offsets[piece.row + 1];
    double* yr = y + piece.row * n;
    if (piece.last - piece.first == 1) {  // one entry: its sum in a register
      const std::int64_t c = piece.first;
      double acc = 0.0;
      for (offset_t k = begin; k < end; ++k)
        acc = rn_add(acc, rn_mul(w.values[k], x[static_cast<std::int64_t>(w.columns[k]) * n + c]));
      yr[c] = acc;
      return;
    }
    for (std::int64_t c = piece.first; c < piece.last; ++c) yr[c] = 0.0;
    for (offset_t k = begin; k < end; ++k) {
      const double a = w.values[k];
      const double* xr = x + static_cast<std::int64_t>(w.columns[k]) * n;
      for (std::int64_t c = piece.first; c < piece.last; ++c) yr[c] = rn_add(yr[c], rn_mul(a, xr[c]));
    }
  }
};

/// norms[w] = ||row w of P||^2 for every w that sends in this round (degree > 0 in `graph`). Index: w.
struct RowNormsBody {
  CsrArrays graph;
  const double* p;
  double* norms;
  std::int64_t n;
  NETDP_HD void operator()(std::int64_t w) const {
    if (graph.degree(static_cast<node_t>(w)) > 0) norms[w] = row_norm_sq(p + w * n, n);
  }
};

/// The share of each source in the message of w: share[w][j] = P_{w, first + j}^2 / norms[w], for every w
/// that sends. Index: piece of w's row of `count` sources.
struct MessageSharesBody {
  CsrArrays graph;
  const double* p;
  const double* norms;
  double* share;
  std::int64_t n, first, count, blocks;
  NETDP_HD void operator()(std::int64_t i) const {
    const RowPiece piece = RowPiece::of(i, blocks, count);
    const std::int64_t w = piece.row;
    if (graph.degree(static_cast<node_t>(w)) == 0) return;
    const double* row = p + w * n + first;
    double* out = share + w * count;
    for (std::int64_t j = piece.first; j < piece.last; ++j) out[j] = message_share(row[j], norms[w]);
  }
};

/// F[v][j] += share[w][j] for every neighbour w of v in the round's graph, in increasing w. Index: piece of
/// v's row of `count` sources.
struct AddSharesBody {
  CsrArrays graph;
  const double* share;
  double* f;
  std::int64_t count, blocks;
  NETDP_HD void operator()(std::int64_t i) const {
    const RowPiece piece = RowPiece::of(i, blocks, count);
    const std::int64_t v = piece.row;
    double* fv = f + v * count;
    for (offset_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e) {
      const double* sw = share + static_cast<std::int64_t>(graph.columns[e]) * count;
      for (std::int64_t j = piece.first; j < piece.last; ++j) fv[j] = rn_add(fv[j], sw[j]);
    }
  }
};

// ---- Randomized gossip: one edge {v, w} per tick (docs/math.md §6.3) ----

/// v receives row w of P and w receives row v, with the norms before the averaging. Index: source j.
struct TickSharesBody {
  const double* p;
  const double* norms;
  double* f;
  std::int64_t n, first, count;
  node_t v, w;
  NETDP_HD void operator()(std::int64_t j) const {
    const double* pv = p + static_cast<std::int64_t>(v) * n + first;
    const double* pw = p + static_cast<std::int64_t>(w) * n + first;
    double* fv = f + static_cast<std::int64_t>(v) * count;
    double* fw = f + static_cast<std::int64_t>(w) * count;
    fv[j] = rn_add(fv[j], message_share(pw[j], norms[w]));
    fw[j] = rn_add(fw[j], message_share(pv[j], norms[v]));
  }
};

/// Rows v and w of P become their average (W_t of the tick). Index: column k.
struct AverageRowsBody {
  double* p;
  std::int64_t n;
  node_t v, w;
  NETDP_HD void operator()(std::int64_t k) const {
    double* pv = p + static_cast<std::int64_t>(v) * n;
    double* pw = p + static_cast<std::int64_t>(w) * n;
    pv[k] = pw[k] = rn_mul(0.5, rn_add(pv[k], pw[k]));
  }
};

/// The norm of the averaged row, for both ends. One index: the norm is one ordered sum.
struct PairNormBody {
  const double* p;
  double* norms;
  std::int64_t n;
  node_t v, w;
  NETDP_HD void operator()(std::int64_t) const {
    norms[v] = norms[w] = row_norm_sq(p + static_cast<std::int64_t>(v) * n, n);
  }
};

}  // namespace netdp::kernels::sequence
