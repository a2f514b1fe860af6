#pragma once
// The single-source bodies of the time-varying gossip accountant (docs/math.md §6.1, 6.3, 6.5;
// docs/cuda_backend.md "Gossip-loss-sequence twins"), run by the CPU twin
// (kernels/cpu/gossip_loss_sequence_cpu.cpp) and the CUDA twin (kernels/cuda/gossip_loss_sequence_cuda.cu).
//
// The state is a dense row-major product P (n x n, row w = row w of W_{0:t}) and the shares F (n x count,
// observer-major). Every entry is summed in one fixed order, whatever the launch geometry: a product entry
// over W's row in CSR order, a row norm over the columns in increasing order, an observer's shares over its
// neighbours in increasing id. A body over a block has two faces: body(row) does a whole row (the CPU twin:
// vectorised loops along the row) and body(row, c) one entry (the CUDA twin, consecutive threads on
// consecutive columns); each entry sees the same operations in the same order, so both write the same bits.
// The product is the project's one sparse product in its two faces: csr_row_product (common/csr_product.hpp)
// for a row, spmm::row_entry (common/gossip_spmm_bodies.hpp) for an entry, tested bit for bit against each
// other.
#include <cstdint>

#include "common/csr_product.hpp"
#include "common/gossip_loss_math.hpp"
#include "common/gossip_spmm_bodies.hpp"
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

/// Y = W X (X, Y row-major, rows of `width`: n x n for P, n x nT for Muffliato's noise coefficients): entry
/// (i, c) = sum over W's row i in CSR order of W_ik X_kc, from 0.
struct ProductBody {
  CsrArrays w;
  const double* x;
  double* y;
  std::int64_t width;
  NETDP_HD void operator()(std::int64_t row) const {
    csr_row_product(w.offsets, w.columns, w.values, row, x, width, y);
  }
  NETDP_HD void operator()(std::int64_t row, std::int64_t c) const {
    y[row * width + c] = spmm::row_entry(w.offsets, w.columns, w.values, row, x, width, c);
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
/// that sends.
struct MessageSharesBody {
  CsrArrays graph;
  const double* p;
  const double* norms;
  double* share;
  std::int64_t n, first, count;
  NETDP_HD void operator()(std::int64_t w) const {
    for (std::int64_t j = 0; j < count; ++j) (*this)(w, j);
  }
  NETDP_HD void operator()(std::int64_t w, std::int64_t j) const {
    if (graph.degree(static_cast<node_t>(w)) > 0)
      share[w * count + j] = message_share(p[w * n + first + j], norms[w]);
  }
};

/// F[v][j] += share[w][j] for every neighbour w of v in the round's graph, in increasing w.
struct AddSharesBody {
  CsrArrays graph;
  const double* share;
  double* f;
  std::int64_t count;
  NETDP_HD void operator()(std::int64_t v) const {
    double* fv = f + v * count;
    for (offset_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e) {
      const double* sw = share + static_cast<std::int64_t>(graph.columns[e]) * count;
      for (std::int64_t j = 0; j < count; ++j) fv[j] = rn_add(fv[j], sw[j]);
    }
  }
  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    double sum = f[v * count + j];
    for (offset_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e)
      sum = rn_add(sum, share[static_cast<std::int64_t>(graph.columns[e]) * count + j]);
    f[v * count + j] = sum;
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
