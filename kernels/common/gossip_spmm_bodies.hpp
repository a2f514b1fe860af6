#pragma once
// Single-source bodies of the node-major gossip engines (docs/cuda_backend.md "Node-major gossip engines"):
// the warp-per-row sparse product and the fused steps around it, written once over plain pointers. The GPU
// runs a row body with cuda::for_each_row (kernels/cuda/gossip_spmm.cuh: a group of lanes_per_row(cols)
// lanes of one warp per row, lane l taking the columns l, l + lanes, ...); the emulated device and the
// device-bodies test (tests/backend/test_gossip_spmm_bodies.cpp) run the very same functor with
// host_for_each_row below.
//
// Layout: a block of `cols` columns is node-major, row-major n x cols (ld = cols): X[v cols + c] is node v of
// column c, so the 32 lanes reading row u of X read 256 consecutive bytes (coalesced), and the entries of W's
// row (offsets, columns, values) are the same address for every lane of the group (one broadcast load).
//
// Rounding: every product and sum is rounded on its own (rn_mul / rn_add, common/rounding.hpp), in W's CSR
// order from 0, which is the CPU's csr_row_product (common/csr_product.hpp) column by column, so a row body
// gives the CPU engines' bits (tested bit for bit against csr_row_product).
#include <cstdint>

#include "common/gossip_sim_bodies.hpp"  // gossip::tree_sum: the one halving tree
#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels {

namespace spmm {

/// Entry (row, c) of Y = W X for a node-major X with leading dimension ld: sum_k values[k] X[columns[k], c]
/// over W's row in CSR order, from 0, each product and sum rounded once (csr_row_product's order for column
/// c). Offsets are 64-bit from the host's CsrView, 32-bit where a caller narrows them.
template <class Offset, class Column>
NETDP_HD inline double row_entry(const Offset* offsets, const Column* columns, const double* values,
                                 std::int64_t row, const double* x, std::int64_t ld, std::int64_t c) {
  double sum = 0.0;
  for (Offset k = offsets[row]; k < offsets[row + 1]; ++k)
    sum = rn_add(sum, rn_mul(values[k], x[static_cast<std::int64_t>(columns[k]) * ld + c]));
  return sum;
}

/// W's CSR rows and the node-major block x they multiply: the leading members of every fused step body
/// (aggregates, so a body is still initialised by one flat list).
template <class Offset, class Column>
struct RowProduct {
  const Offset* offsets;
  const Column* columns;
  const double* values;
  const double* x;

  /// Entry (row, c) of W x, x with leading dimension ld (row_entry).
  NETDP_HD double entry(std::int64_t row, std::int64_t ld, std::int64_t c) const {
    return row_entry(offsets, columns, values, row, x, ld, c);
  }
};

/// Block X = W^0 for the sources first .. first + cols - 1 (row body over n x cols, node-major): X[w, j] = 1
/// if w = first + j, else 0. The start of every propagation of unit sources (the gossip and walk
/// accountants).
struct IdentityRowsBody {
  double* x;
  std::int64_t cols, first;

  NETDP_HD void operator()(std::int64_t w, std::int64_t j) const {
    x[w * cols + j] = w == first + j ? 1.0 : 0.0;
  }
};

/// x[0] + x[stride] + ... + x[(count - 1) stride], added in index order from 0, each sum rounded once: the
/// one column sum of a node-major block (stride = its width), one thread per column on the device (the
/// threads of a warp read consecutive columns of a row: coalesced). The walk's lane means and the gossip
/// accountant's fold of the norms' chunks.
NETDP_HD inline double column_sum(const double* x, std::int64_t count, std::int64_t stride) {
  double sum = 0.0;
  for (std::int64_t i = 0; i < count; ++i) sum = rn_add(sum, x[i * stride]);
  return sum;
}

/// Lanes given to one row by the GPU launch: the smallest power of two >= cols, at most a warp (32). A row of
/// 1 column is one thread (the scalar CSR kernel), a row of 32 or more columns one warp.
NETDP_HD constexpr int lanes_per_row(std::int64_t cols) {
  int lanes = 1;
  while (lanes < 32 && lanes < cols) lanes *= 2;
  return lanes;
}

}  // namespace spmm

/// Blocks smaller than this run on one host thread: a node-major tile is launched once per power, and on a
/// loaded machine a parallel region per small launch costs more than the work (the emulated device's suites).
inline constexpr std::int64_t kHostParallelEntries = std::int64_t{1} << 16;

/// body(row, c) for every row < rows and column c < cols on the host threads, rows in parallel and the
/// columns of a row in order (any order is allowed: each (row, c) is independent, as on the device).
template <class Body>
void host_for_each_row(std::int64_t rows, std::int64_t cols, const Body& body) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 64) if (rows * cols >= kHostParallelEntries)
#endif
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t c = 0; c < cols; ++c) body(row, c);
}

/// The host run of cuda::row_sums (kernels/cuda/gossip_spmm.cuh): for every row, lane l of
/// spmm::lanes_per_row(cols) sums body.part(row, c) for c = l, l + lanes, ... from 0, the lanes' sums go
/// through the fixed halving tree (gossip::tree_sum, the order of the device's shuffles), then
/// body.done(row, total): the device's bits.
template <class Body>
void host_row_sums(std::int64_t rows, std::int64_t cols, const Body& body) {
  const int lanes = spmm::lanes_per_row(cols);
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 64) if (rows * cols >= kHostParallelEntries)
#endif
  for (std::int64_t row = 0; row < rows; ++row) {
    double partial[32] = {};
    for (std::int64_t c = 0; c < cols; ++c)
      partial[c % lanes] = rn_add(partial[c % lanes], body.part(row, c));
    body.done(row, gossip::tree_sum(partial, lanes));
  }
}

namespace gossip {

/// The fixed-W step of gossip-sim, fused (row body over n x cols, node-major): y = W x (sync, and the first
/// accelerated step: prev = nullptr), or the Chebyshev recursion y = gamma (W x) + (1 - gamma) prev
/// (docs/math.md §2.4) with one_minus_gamma = the CPU's (1.0 - gamma), in one pass over x and prev instead of
/// an SpMM and an element-wise pass. The GPU runs one entry per lane (operator(), row<1>); the CPU twin
/// (kernels/cpu/gossip_sim_cpu.cpp) runs row<kSparseLanes> on its panels of 8 columns, W's row read once for
/// the 8: every entry the same products and sums in the same order (row_entry's), so the same bits.
template <class Offset, class Column>
struct NodeMajorStepBody {
  spmm::RowProduct<Offset, Column> product;  // W and x
  const double* prev;
  double gamma, one_minus_gamma;
  std::int64_t cols;
  double* y;

  NETDP_HD void operator()(std::int64_t v, std::int64_t c) const { row<1>(v, c); }

  /// Entries (v, c0) .. (v, c0 + L - 1). Ld > 0: cols is known to be Ld at compile time (the CPU's panels:
  /// the gathers' addresses without a multiplication by a runtime width).
  template <int L, int Ld = 0>
  NETDP_HD void row(std::int64_t v, std::int64_t c0) const {
    const std::int64_t ld = Ld > 0 ? Ld : cols;
    const Offset begin = product.offsets[v], end = product.offsets[v + 1];
    double sum[L] = {};
    for (Offset k = begin; k < end; ++k) {
      const double a = product.values[k];
      const double* xr = product.x + static_cast<std::int64_t>(product.columns[k]) * ld + c0;
      for (int j = 0; j < L; ++j) sum[j] = rn_add(sum[j], rn_mul(a, xr[j]));
    }
    const std::int64_t at = v * ld + c0;
    if constexpr (L == 1) {
      y[at] = prev ? rn_add(rn_mul(gamma, sum[0]), rn_mul(one_minus_gamma, prev[at])) : sum[0];
    } else {
      // The sums stored first, then combined: with the Chebyshev step read from sum[] instead, GCC 12 kept
      // only six of the eight accumulators of the loop above in vector registers (1.6x the time).
      for (int j = 0; j < L; ++j) y[at + j] = sum[j];
      if (prev)
        for (int j = 0; j < L; ++j)
          y[at + j] = rn_add(rn_mul(gamma, y[at + j]), rn_mul(one_minus_gamma, prev[at + j]));
    }
  }
};

/// Element idx of a column-major n x cols block `in` (the noisy start's layout, NoisyStartBody) copied to
/// its node-major place in `out`: idx = c n + v goes to v cols + c. Once per batch.
struct ToNodeMajorBody {
  const double* in;
  std::int64_t n, cols;
  double* out;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t c = idx / n, v = idx % n;
    out[v * cols + c] = in[idx];
  }
};

/// Column c of a node-major n x cols block: its average sum_v x[v, c] / n, summed in node order from 0 (the
/// CPU's node_average, bit for bit). One thread per column: the threads of a warp read consecutive columns
/// of each row, so the loads are coalesced.
struct NodeOrderAveragesBody {
  const double* x;
  std::int64_t n, cols;
  double* average;

  NETDP_HD void operator()(std::int64_t c) const { average[c] = column(x + c, cols); }

  /// The average of the column whose node v is xc[v ld] (ld = cols node-major, 1 column-major).
  NETDP_HD double column(const double* xc, std::int64_t ld) const {
    double sum = 0.0;
    for (std::int64_t v = 0; v < n; ++v) sum = rn_add(sum, xc[v * ld]);
    return sum / static_cast<double>(n);
  }
};

/// The error step of a recorded time, column c (coordinate c % dim of a run): sum_v (x[v, c] - xbar)^2 and
/// sum_v (x[v, c] - noisy average)^2 in node order from 0, both in one pass over the column (the CPU's
/// record_panel, bit for bit); gossip::RunErrorsBody then folds the D columns of each run. The GPU runs one
/// column per thread (operator(), columns<1>); the CPU twin runs columns<kSparseLanes> over its panels.
struct NodeOrderErrorsBody {
  const double* x;
  std::int64_t n, cols;
  int dim;
  const double *xbar, *noisy_average;
  double *col_true, *col_noisy;

  NETDP_HD void operator()(std::int64_t c) const { columns<1>(x + c, cols, c); }

  /// Columns c0 .. c0 + L - 1, node v of column c0 + j at xp[v ld + j] (ld = cols node-major, 1 with L = 1
  /// column-major, 8 on the CPU twin's panels).
  template <int L>
  NETDP_HD void columns(const double* xp, std::int64_t ld, std::int64_t c0) const {
    double ref_true[L], ref_noisy[L], sum_true[L], sum_noisy[L];
    for (int j = 0; j < L; ++j) {
      ref_true[j] = xbar[(c0 + j) % dim];
      ref_noisy[j] = noisy_average[c0 + j];
      sum_true[j] = sum_noisy[j] = 0.0;
    }
    for (std::int64_t v = 0; v < n; ++v)
      for (int j = 0; j < L; ++j) {
        const double value = xp[v * ld + j];
        const double dt = rn_sub(value, ref_true[j]), dn = rn_sub(value, ref_noisy[j]);
        sum_true[j] = rn_add(sum_true[j], rn_mul(dt, dt));
        sum_noisy[j] = rn_add(sum_noisy[j], rn_mul(dn, dn));
      }
    for (int j = 0; j < L; ++j) {
      col_true[c0 + j] = sum_true[j];
      col_noisy[c0 + j] = sum_noisy[j];
    }
  }
};

/// NodeOrderAveragesBody on a column-major n x cols block (ld = n: the time-varying engines' layout), column
/// c = idx: the same node-order sums, so the CPU twin's bits.
struct ColumnMajorAveragesBody {
  NodeOrderAveragesBody body;  // x column-major, cols unused
  NETDP_HD void operator()(std::int64_t c) const { body.average[c] = body.column(body.x + c * body.n, 1); }
};

/// NodeOrderErrorsBody on a column-major n x cols block (ld = n), column c = idx.
struct ColumnMajorErrorsBody {
  NodeOrderErrorsBody body;  // x column-major, cols unused
  NETDP_HD void operator()(std::int64_t c) const { body.columns<1>(body.x + c * body.n, 1, c); }
};

/// --clip-start (docs/gossip_sim.md; docs/math.md §12 item 58), element i: x^0 clipped to [0, 1] as
/// std::clamp(value, 0.0, 1.0) does (NaN and -0 kept). CPU only for now (device cuda refuses it).
struct ClipStartBody {
  double* x;
  NETDP_HD void operator()(std::int64_t i) const {
    const double value = x[i];
    x[i] = value < 0.0 ? 0.0 : (1.0 < value ? 1.0 : value);
  }
};

}  // namespace gossip
}  // namespace netdp::kernels
