#pragma once
// Single-source bodies of the Chebyshev walk-loss solver (docs/walk_loss.md "Chebyshev solver"): the graph
// term G e_u = p(W) (e_u - 1/n) for a block of source columns, with p = sum_k c_k T_k(B), B = (2 W - (hi +
// lo) I) / (hi - lo) on the complement of the all-ones vector. Every element of a column is computed from
// that column alone, in a fixed order, so results do not depend on the block, the thread count or the device.
//
// Layout: element (v, j) of a block (node v, source lane j) sits at v * row_stride + j * lane_stride. Both
// twins keep their blocks node-major: the CPU's row-major n x L panels (row_stride = L, lane_stride = 1) and
// the CUDA twin's n x cols tiles (row_stride = cols, lane_stride = 1), whose row bodies (v, j) it runs with
// cuda::for_each_row (docs/cuda_backend.md "Walk-loss twins").
#include <cstdint>

#include "common/gossip_spmm_bodies.hpp"  // spmm::column_sum
#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::walk_chebyshev {

/// One step of the recurrence for one element, from y = (W t_k) at that element:
///   t_{k+1} = a (y - o_k) - b (t_k - o_k) - (t_{k-1} - o_{k-1})
/// with a = 4/(hi - lo), b = 2 (hi + lo)/(hi - lo) (for the first step, T_1 = B T_0, a and b are halved and
/// there is no t_{k-1}). o_k is the lane mean of the stored t_k: W maps the complement of 1 to itself, but
/// rounding adds small multiples of 1, which T_k would amplify (the eigenvalue 1 lies outside [lo, hi]), so
/// every vector is used projected (W 1 = 1, so W (t - o 1) = W t - o 1). Rounded one operation at a time.
NETDP_HD inline double chebyshev_next(double a, double b, double y, double t, double t_prev, double o,
                                      double o_prev, bool first) {
  const double next = rn_sub(rn_mul(a, rn_sub(y, o)), rn_mul(b, rn_sub(t, o)));
  return first ? next : rn_sub(next, rn_sub(t_prev, o_prev));
}

/// Lane j (1-D body over the lanes): source[j] = first + j, the sources of a device tile (the CPU's panels
/// list theirs on the host, padding a short panel with copies of its last source).
struct LaneSourcesBody {
  std::int64_t first;
  std::int64_t* source;

  NETDP_HD void operator()(std::int64_t j) const { source[j] = first + j; }
};

/// Element (v, j) of the start (row body): t0 = e_u - 1/n for u = source[j] (the deflated unit vector),
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

/// Element (v, j) of one step (row body, after y = W t_k by the sparse product): t_{k+1} over t_{k-1}, then
/// s += c_{k+1} t_{k+1}; LaneMeanBody on t_{k+1} then gives o_{k+1}. (The CPU runs the same arithmetic in one
/// streaming pass after its sparse product and sums o_{k+1} there, in the same node order.)
struct StepBody {
  const double* y;
  const double* mean;       // o_k per lane
  const double* mean_prev;  // o_{k-1} per lane
  const double* t;
  double* t_prev;  // in: t_{k-1} (ignored when first), out: t_{k+1}
  double* s;
  std::int64_t row_stride, lane_stride;
  double a, b, coefficient;
  bool first;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const std::int64_t i = v * row_stride + j * lane_stride;
    const double next = chebyshev_next(a, b, y[i], t[i], t_prev[i], mean[j], mean_prev[j], first);
    t_prev[i] = next;
    s[i] = rn_add(s[i], rn_mul(coefficient, next));
  }
};

/// Lane j (1-D body over the lanes): mean[j] = (sum_v s[v, j]) / n, summed in node order (spmm::column_sum):
/// the o_k of the steps, and at the end the mean of the sum, subtracted by ProjectBody (G e_u has no
/// component along 1).
struct LaneMeanBody {
  const double* s;
  std::int64_t n, row_stride, lane_stride;
  double* mean;

  NETDP_HD void operator()(std::int64_t j) const {
    mean[j] = spmm::column_sum(s + j * lane_stride, n, row_stride) / double(n);
  }
};

/// Element (v, j) (row body): s -= mean[j].
struct ProjectBody {
  const double* mean;
  std::int64_t row_stride, lane_stride;
  double* s;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const std::int64_t i = v * row_stride + j * lane_stride;
    s[i] = rn_sub(s[i], mean[j]);
  }
};

}  // namespace netdp::kernels::walk_chebyshev
