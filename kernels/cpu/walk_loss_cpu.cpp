// CPU backend of the random-walk accountant (docs/math.md §5.2-5.4): LAPACK eigendecomposition and BLAS
// products for the spectral methods, panel propagation for the series (see walk_loss_kernels.hpp).
#include <lapacke.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <cblas.h>

#include "common/csr_host.hpp"
#include "common/rounding.hpp"
#include "common/walk_loss_bodies.hpp"
#include "common/walk_loss_chebyshev.hpp"
#include "common/walk_loss_math.hpp"
#include "cpu/power_panels.hpp"
#include "netdp/ground/serial_blas.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp::kernels {

SymmetricEigen symmetric_eigen_cpu(CsrView w) {
  // The CUDA twin's eigensolver reads the same triangle (cuda/dense_solvers.hpp; on the emulated device the
  // same LAPACK call on the same bytes: docs/cuda_backend.md "Walk-loss twins").
  SymmetricEigen e;
  e.vectors = to_dense(w);  // symmetric: row- and column-major copies are the same
  e.values.resize(static_cast<std::size_t>(w.n));
  use_single_threaded_blas();
  lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', w.n, e.vectors.data(), w.n, e.values.data());
  if (info != 0) throw std::runtime_error("LAPACK dsyevd failed with info = " + std::to_string(info));
  return e;
}

namespace {

/// Row v of the loss for source u from the graph-term row G[u, :], anonymous or sender-known view.
void finish_row(const WalkLossProblem& p, node_t u, const double* graph_row, double* out) {
  for (node_t v = 0; v < p.w.n; ++v) {
    double term = graph_row[v];
    if (p.sender_known) {
      // v knows which neighbour w sent the token: the last hop is post-processing (docs/math.md §5.4).
      term = -std::numeric_limits<double>::infinity();
      for (node_t w : p.graph.neighbors(v)) term = std::max(term, graph_row[w]);
      if (p.graph.degree(v) == 0) term = 0.0;
    }
    out[v] = walk_pair_loss(term, p.constant, p.scale, p.clip, p.clip_level, v == u);
  }
}

}  // namespace

void walk_spectral_rows_cpu(const WalkLossProblem& p, const SymmetricEigen& eigen, node_t first, node_t count,
                            std::span<double> rows) {
  const std::size_t n = static_cast<std::size_t>(p.w.n);
  const auto g = walk_eigen_weights(eigen.values, p.method, p.steps);
  // scaled[r][i] = V[first + r, i] g_i, then G[first + r, :] = scaled[r, :] V^T. The column-major V, read
  // row-major, is V^T.
  std::vector<double> scaled(static_cast<std::size_t>(count) * n), graph_rows(scaled.size());
#pragma omp parallel for
  for (node_t r = 0; r < count; ++r)
    for (std::size_t i = 0; i < n; ++i)
      scaled[r * n + i] = eigen.vectors[i * n + static_cast<std::size_t>(first + r)] * g[i];
  // One single-threaded GEMM of a fixed shape per block of rows, blocks over the threads: a row's values do
  // not depend on the blocks, so they are the same for every thread count and source range.
  use_single_threaded_blas();
  const node_t block = static_cast<node_t>(kGemmRows);
#pragma omp parallel for schedule(dynamic, 1)
  for (node_t r0 = 0; r0 < count; r0 += block)
    gemm_row_block(scaled.data() + r0 * n, std::min(block, count - r0), p.w.n, eigen.vectors.data(), p.w.n,
                   graph_rows.data() + r0 * n);
#pragma omp parallel for
  for (node_t r = 0; r < count; ++r) finish_row(p, first + r, graph_rows.data() + r * n, rows.data() + r * n);
}

void walk_series_rows_cpu(const WalkLossProblem& p, node_t first, node_t count, std::span<double> rows) {
  constexpr int L = kSparseLanes;
  const std::size_t n = static_cast<std::size_t>(p.w.n);
  for_each_panel<L>(first, count, true, [&](node_t start, node_t valid) {
    std::vector<double> x(n * L), y(n * L), s(n * L, 0.0), graph_row(n);
    auto source = panel_sources<L>(start, valid);
    // s_u(v) = sum_{t=1}^T (W^t e_u)_v / t, lane j holding source[j] (Lemma D.17, E1).
    walk_powers<L>(p.w, p.steps + 1, nullptr, source, x, y, [&](int t, const std::vector<double>& xt) {
      if (t == 0) return;
      const walk_loss::AccumulateSeriesBody accumulate{xt.data(), 1.0 / t, s.data()};  // the CUDA twin's
      for (std::size_t i = 0; i < n * L; ++i) accumulate(static_cast<std::int64_t>(i));
    });
    for (int j = 0; j < valid; ++j) {
      for (std::size_t v = 0; v < n; ++v) graph_row[v] = s[v * L + j];
      finish_row(p, source[j], graph_row.data(),
                 rows.data() + static_cast<std::size_t>(source[j] - first) * n);
    }
  });
}

std::int64_t walk_series_cpu_workspace_bytes(node_t n, int threads) {
  return std::int64_t(threads) * (3 * std::int64_t(kSparseLanes) + 1) * n * 8;
}

namespace {

/// One step of the Chebyshev recurrence over a whole n x L row-major panel: first y = W t_k (the engines' CSR
/// product, row by row, gathers only), then one streaming pass that writes t_{k+1} over t_{k-1} in `t_prev`,
/// adds c t_{k+1} to s and sums the lanes of t_{k+1} (for o_{k+1}) in node order, as LaneMeanBody does.
/// Arithmetic of walk_chebyshev::chebyshev_next. The two passes are kept apart on purpose: fusing the
/// recurrence into the product's row loop mixes the random gathers with four panel streams and ran 1.5-2x
/// slower on ER n = 16,384 (benchmarks/RESULTS.md, issue 16); the bits are the same either way.
template <int L, bool First>
void chebyshev_step(CsrView w, const double* __restrict__ t, double* __restrict__ y,
                    double* __restrict__ t_prev, double* __restrict__ s, const double* mean,
                    const double* mean_prev, double a, double b, double c, double* sum) {
  const auto* offsets = w.offsets.data();
  const auto* columns = w.columns.data();
  const double* values = w.values.data();
  for (std::int64_t v = 0; v < w.n; ++v) csr_row_product<L>(offsets, columns, values, v, t, L, y);
  double o[L], o_prev[L], acc[L];
  for (int j = 0; j < L; ++j) o[j] = mean[j], o_prev[j] = mean_prev[j], acc[j] = 0.0;
  for (std::int64_t v = 0; v < w.n; ++v) {
    const double* __restrict__ yv = y + v * L;
    const double* __restrict__ tv = t + v * L;
    double* __restrict__ tp = t_prev + v * L;
    double* __restrict__ sv = s + v * L;
    for (int j = 0; j < L; ++j) {
      const double next = walk_chebyshev::chebyshev_next(a, b, yv[j], tv[j], tp[j], o[j], o_prev[j], First);
      tp[j] = next;
      sv[j] = rn_add(sv[j], rn_mul(c, next));
      acc[j] = rn_add(acc[j], next);
    }
  }
  for (int j = 0; j < L; ++j) sum[j] = acc[j];
}

}  // namespace

void walk_chebyshev_rows_cpu(const WalkLossProblem& p, const WalkChebyshevExpansion& e, node_t first,
                             node_t count, std::span<double> rows) {
  constexpr int L = kChebyshevLanes;
  const std::size_t n = static_cast<std::size_t>(p.w.n);
  const auto n64 = static_cast<std::int64_t>(n);
  const double a = 4.0 / (e.hi - e.lo), b = 2.0 * (e.hi + e.lo) / (e.hi - e.lo);
  const int degree = static_cast<int>(e.coefficients.size()) - 1;
  for_each_panel<L>(first, count, true, [&](node_t start, node_t valid) {
    std::vector<double> t(n * L), t_prev(n * L), s(n * L), y(n * L), graph_row(n);
    const auto source = panel_sources<L>(start, valid);
    std::array<std::int64_t, L> lane_source{};
    for (int j = 0; j < L; ++j) lane_source[j] = source[j];
    const walk_chebyshev::StartBody start_body{lane_source.data(), n64,      L,       1,
                                               e.coefficients[0],  t.data(), s.data()};
    for (std::int64_t v = 0; v < n64; ++v)
      for (int j = 0; j < L; ++j) start_body(v, j);
    std::array<double, L> mean{}, mean_prev{},
        sum{};  // o_k, o_{k-1} per lane (common/walk_loss_chebyshev.hpp)
    const walk_chebyshev::LaneMeanBody start_mean{t.data(), n64, L, 1, mean.data()};
    for (int j = 0; j < L; ++j) start_mean(j);
    // T_{k+1} = 2 B T_k - T_{k-1}, s += c_{k+1} T_{k+1} (docs/walk_loss.md "Solvers"); the first step
    // T_1 = B T_0 with a and b halved.
    for (int k = 0; k < degree; ++k) {
      const double c = e.coefficients[static_cast<std::size_t>(k) + 1];
      if (k == 0)
        chebyshev_step<L, true>(p.w, t.data(), y.data(), t_prev.data(), s.data(), mean.data(),
                                mean_prev.data(), 0.5 * a, 0.5 * b, c, sum.data());
      else
        chebyshev_step<L, false>(p.w, t.data(), y.data(), t_prev.data(), s.data(), mean.data(),
                                 mean_prev.data(), a, b, c, sum.data());
      t.swap(t_prev);  // t = T_{k+1}, t_prev = T_k
      mean_prev = mean;
      for (int j = 0; j < L; ++j) mean[j] = sum[j] / double(n);
    }
    const walk_chebyshev::LaneMeanBody mean_body{s.data(), n64, L, 1, mean.data()};
    for (int j = 0; j < L; ++j) mean_body(j);
    const walk_chebyshev::ProjectBody project{mean.data(), L, 1, s.data()};
    for (std::int64_t v = 0; v < n64; ++v)
      for (int j = 0; j < L; ++j) project(v, j);
    for (int j = 0; j < valid; ++j) {
      for (std::size_t v = 0; v < n; ++v) graph_row[v] = s[v * L + j];
      finish_row(p, source[j], graph_row.data(),
                 rows.data() + static_cast<std::size_t>(source[j] - first) * n);
    }
  });
}

std::int64_t walk_chebyshev_cpu_workspace_bytes(node_t n, int threads) {
  return std::int64_t(threads) * (4 * std::int64_t(kChebyshevLanes) + 1) * n * 8;
}

}  // namespace netdp::kernels
