#pragma once
// Single-source bodies of the Chebyshev walk-loss solver (docs/walk_loss.md "Chebyshev solver"): the graph
// term G e_u = p(W) (e_u - 1/n) for a block of source columns, with p = sum_k c_k T_k(B), B = (2 W - (hi +
// lo) I) / (hi - lo) on the complement of the all-ones vector. Every element of a column is computed from
// that column alone, in a fixed order, so results do not depend on the block, the thread count or the device.
//
// Layout: element (v, j) of a block (node v, source lane j) sits at v * row_stride + j * lane_stride (the
// CPU's row-major n x L panels: row_stride = L, lane_stride = 1; a column-major device block: 1 and n).
#include <cstdint>

#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::walk_chebyshev {

/// Lane j (1-D body over the lanes): mean[j] = (sum_v y[v, j]) / n, summed in node order. Subtracting it
/// projects W x back onto the complement of 1 (W preserves it exactly, rounding does not; the eigenvalue 1
/// lies outside [lo, hi], where T_k grows, so any drift must go at every step).
struct LaneMeanBody {
  const double* y;
  std::int64_t n, row_stride, lane_stride;
  double* mean;

  NETDP_HD void operator()(std::int64_t j) const {
    double sum = 0.0;
    for (std::int64_t v = 0; v < n; ++v) sum = rn_add(sum, y[v * row_stride + j * lane_stride]);
    mean[j] = sum / double(n);
  }
};

/// Element (v, j) of the start (2-D body): t0 = e_u - 1/n for u = source[j] (the deflated unit vector),
/// s = c_0 t0.
struct StartBody {
  const std::int64_t* source;
  std::int64_t n, row_stride, lane_stride;
  double c0;
  double* t0;
  double* s;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const std::int64_t i = v * row_stride + j * lane_stride;
    const double x = (v == source[j] ? 1.0 : 0.0) - 1.0 / double(n);
    t0[i] = x;
    s[i] = rn_mul(c0, x);
  }
};

/// Element (v, j) of one step (2-D body): with y = W t_k and its lane mean,
///   t_{k+1} = a (y - mean) - b t_k - t_{k-1}   (a = 4/(hi - lo), b = 2 (hi + lo)/(hi - lo); halved and
///                                               without t_{k-1} for the first step, T_1 = B T_0)
/// written over t_{k-1}, then s += c_{k+1} t_{k+1}. Products and sums rounded one at a time.
struct StepBody {
  const double* y;
  const double* mean;
  const double* t;
  double* t_prev;  // in: t_{k-1} (ignored when first), out: t_{k+1}
  double* s;
  std::int64_t row_stride, lane_stride;
  double a, b, coefficient;
  bool first;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const std::int64_t i = v * row_stride + j * lane_stride;
    double next = rn_sub(rn_mul(a, rn_sub(y[i], mean[j])), rn_mul(b, t[i]));
    if (!first) next = rn_sub(next, t_prev[i]);
    t_prev[i] = next;
    s[i] = rn_add(s[i], rn_mul(coefficient, next));
  }
};

}  // namespace netdp::kernels::walk_chebyshev
