// The CUDA random-walk accountant's single-source bodies (kernels/common/walk_loss_bodies.hpp,
// walk_loss_chebyshev.hpp, with the node-major product of common/gossip_spmm_bodies.hpp) run on the host,
// through the source the GPU compiles, in the order kernels/cuda/walk_loss_cuda.cu launches them
// (host_for_each_row for the row bodies, as the emulated device), with the vendor-library steps replaced by
// the CPU backend's own (kernels/cpu/): cuSOLVER's syevd by symmetric_eigen_cpu (LAPACK dsyevd) and
// walk_eigen_weights, cuBLAS's GEMM by the CPU's own row-major DGEMM call on blocks of 32 rows (the bodies'
// column-major B transposed into the CPU's `scaled`, an exact copy); the sparse product is the device's own
// node-major body (gossip::NodeMajorStepBody without its Chebyshev term, cuda::multiply's sparse path; shown
// equal to the CPU's csr_row_product by GossipSpmmBodies.RowEntryIsTheCpuCsrProductBitForBit). Compared with
// walk_spectral_rows_cpu / walk_series_rows_cpu: 0 ulps everywhere, since every body performs the CPU's
// operations in the CPU's order (V g products, S + X (1/t) rounded twice, the sender max, walk_pair_loss).
// What only a GPU sees (cuSOLVER's eigenvectors, cuBLAS's summation order) is bounded by test_walk_loss_cuda
// (tests/backend/test_walk_loss_twins.cpp compares the twins' rows by memcmp). Graphs: a path, a star,
// hypercube:dim=3, G(200, 0.05), and for the series (the only method defined there) a path with an isolated
// node. The Chebyshev solver's bodies (common/walk_loss_chebyshev.hpp) run in ChebyshevEngine::loss_rows's
// order against walk_chebyshev_rows_cpu, 0 ulps too. Label device-bodies: no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <cblas.h>

#include "common/for_each.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "common/walk_loss_bodies.hpp"
#include "common/walk_loss_chebyshev.hpp"
#include "cpu/power_panels.hpp"
#include "netdp/accounting/walk_loss_chebyshev.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/ground/serial_blas.hpp"
#include "support/test_support.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp {
namespace {

namespace wl = kernels::walk_loss;
using kernels::host_for_each;
using kernels::host_for_each_row;
using kernels::SymmetricEigen;
using kernels::WalkLossProblem;
using testing::GraphCase;

std::vector<GraphCase> cases() {
  return testing::bodies_graph_cases(
      testing::graph_case("er:n=200,p=0.05", erdos_renyi_graph(200, 0.05, 23)));
}

/// method 0 (E3), 1 (E2), 2 (series) with the driver's constants for alpha = 2, sigma = 1.3, N_u = 1.7.
WalkLossProblem problem(const GraphCase& c, int method, bool sender_known, bool clip, int steps) {
  const double n = c.w.n;
  const double constant = method == 0   ? std::log(double(steps)) / n
                          : method == 1 ? [&] {
                              double h = 0.0;
                              for (int t = 1; t <= steps; ++t) h += 1.0 / t;
                              return h / n;
                            }()
                                        : 0.0;
  const double ratio = 2.0 / (1.3 * 1.3);
  return WalkLossProblem{c.graph, c.w, method, sender_known, steps, constant, 1.7 * ratio, clip, ratio / 2};
}

std::string describe(const GraphCase& c, const WalkLossProblem& p) {
  return c.name + " method=" + std::to_string(p.method) + " sender_known=" + std::to_string(p.sender_known) +
         " clip=" + std::to_string(p.clip) + " T=" + std::to_string(p.steps);
}

// ---- the CUDA driver's order on the host ----

/// TileEngine::emit: the column-major loss block of sources s .. s + cols - 1 from the graph-term block
/// (node-major, or column-major for the spectral GEMM's block).
void finish(const WalkLossProblem& p, std::int64_t s, std::int64_t cols, const double* term,
            bool column_major, double* out) {
  const std::int64_t n = p.w.n;
  host_for_each_row(n, cols,
                    wl::WalkLossesBody{term, column_major ? 1 : cols, column_major ? n : 1,
                                       p.sender_known ? p.graph.offsets.data() : nullptr,
                                       p.sender_known ? p.graph.adjacency.data() : nullptr, n, s,
                                       p.sender_known, p.constant, p.scale, p.clip, p.clip_level, out});
}

/// Spectral / finite for sources first .. first + count - 1 in tiles of b: row-major loss rows.
std::vector<double> body_spectral_rows(const WalkLossProblem& p, const SymmetricEigen& eigen,
                                       std::int64_t first, std::int64_t count, std::int64_t b) {
  const std::int64_t n = p.w.n;
  const std::vector<double> g = kernels::walk_eigen_weights(eigen.values, p.method, p.steps);
  std::vector<double> rows(static_cast<std::size_t>(count * n));
  std::vector<double> scaled(static_cast<std::size_t>(n * b)), scaled_rows(scaled.size()),
      graph(scaled.size());
  kernels::use_single_threaded_blas();
  for (std::int64_t s = first; s < first + count; s += b) {
    const std::int64_t cols = std::min(b, first + count - s);
    host_for_each_row(
        n, cols, wl::ScaleEigenvectorRowsBody{eigen.vectors.data(), g.data(), n, cols, s, scaled.data()});
    // cuBLAS's V B^T replaced by the CPU's call: B (column-major cols x n) as the CPU's row-major `scaled`,
    // then G[s + r, :] = scaled[r, :] V^T in blocks of kGemmRows rows; the row-major cols x n result is the
    // column-major n x cols graph block.
    for (std::int64_t r = 0; r < cols; ++r)
      for (std::int64_t i = 0; i < n; ++i) scaled_rows[r * n + i] = scaled[r + i * cols];
    for (std::int64_t r0 = 0; r0 < cols; r0 += kernels::kGemmRows)
      kernels::gemm_row_block(scaled_rows.data() + r0 * n, std::min(kernels::kGemmRows, cols - r0), n,
                              eigen.vectors.data(), n, graph.data() + r0 * n);
    finish(p, s, cols, graph.data(), true, rows.data() + (s - first) * n);
  }
  return rows;
}

/// y = W x on a node-major n x cols block: cuda::multiply's sparse path.
void propagate(CsrView w, const double* x, double* y, std::int64_t cols) {
  host_for_each_row(
      w.n, cols,
      kernels::gossip::NodeMajorStepBody<offset_t, node_t>{
          {w.offsets.data(), w.columns.data(), w.values.data(), x}, nullptr, 0.0, 0.0, cols, y});
}

/// Series for sources first .. first + count - 1 in tiles of b: row-major loss rows, and the sums S of the
/// last tile (node-major n x cols).
std::vector<double> body_series_rows(const WalkLossProblem& p, std::int64_t first, std::int64_t count,
                                     std::int64_t b, std::vector<double>* last_sums = nullptr) {
  const std::int64_t n = p.w.n;
  std::vector<double> rows(static_cast<std::size_t>(count * n));
  std::vector<double> block_a(static_cast<std::size_t>(n * b)), block_b(block_a.size()), sums(block_a.size());
  for (std::int64_t s = first; s < first + count; s += b) {
    const std::int64_t cols = std::min(b, first + count - s), elements = n * cols;
    double* x = block_a.data();
    double* y = block_b.data();
    host_for_each_row(n, cols, kernels::spmm::IdentityRowsBody{x, cols, s});
    std::fill(sums.begin(), sums.end(), 0.0);
    for (int t = 1; t <= p.steps; ++t) {
      propagate(p.w, x, y, cols);
      std::swap(x, y);
      host_for_each(elements, wl::AccumulateSeriesBody{x, 1.0 / t, sums.data()});
    }
    finish(p, s, cols, sums.data(), false, y);
    std::copy(y, y + elements, rows.begin() + (s - first) * n);
    if (last_sums) last_sums->assign(sums.begin(), sums.begin() + elements);
  }
  return rows;
}

/// Chebyshev solver (ChebyshevEngine::loss_rows's launches) for sources first .. first + count - 1 in tiles
/// of b: row-major loss rows. Node-major blocks: row stride cols, lane stride 1.
std::vector<double> body_chebyshev_rows(const WalkLossProblem& p, const kernels::WalkChebyshevExpansion& e,
                                        std::int64_t first, std::int64_t count, std::int64_t b) {
  namespace wc = kernels::walk_chebyshev;
  const std::int64_t n = p.w.n;
  const auto block = static_cast<std::size_t>(n * b);
  std::vector<double> rows(static_cast<std::size_t>(count * n)), t(block), t_prev(block), y(block),
      sum(block), means(3 * static_cast<std::size_t>(b));
  std::vector<std::int64_t> sources(static_cast<std::size_t>(b));
  const double a = 4.0 / (e.hi - e.lo), bb = 2.0 * (e.hi + e.lo) / (e.hi - e.lo);
  const int degree = static_cast<int>(e.coefficients.size()) - 1;
  for (std::int64_t s = first; s < first + count; s += b) {
    const std::int64_t cols = std::min(b, first + count - s);
    double* tk = t.data();
    double* tk_prev = t_prev.data();
    double* mean = means.data();
    double* mean_prev = means.data() + b;
    double* mean_next = means.data() + 2 * b;
    host_for_each(cols, wc::LaneSourcesBody{s, sources.data()});
    host_for_each_row(n, cols, wc::StartBody{sources.data(), n, cols, 1, e.coefficients[0], tk, sum.data()});
    host_for_each(cols, wc::LaneMeanBody{tk, n, cols, 1, mean});
    for (int k = 0; k < degree; ++k) {
      const bool first_step = k == 0;
      propagate(p.w, tk, y.data(), cols);
      host_for_each_row(n, cols,
                        wc::StepBody{y.data(), mean, mean_prev, tk, tk_prev, sum.data(), cols, 1,
                                     first_step ? 0.5 * a : a, first_step ? 0.5 * bb : bb,
                                     e.coefficients[static_cast<std::size_t>(k) + 1], first_step});
      host_for_each(cols, wc::LaneMeanBody{tk_prev, n, cols, 1, mean_next});
      std::swap(tk, tk_prev);
      double* spare = mean_prev;
      mean_prev = mean;
      mean = mean_next;
      mean_next = spare;
    }
    host_for_each(cols, wc::LaneMeanBody{sum.data(), n, cols, 1, mean});
    host_for_each_row(n, cols, wc::ProjectBody{mean, cols, 1, sum.data()});
    finish(p, s, cols, sum.data(), false, y.data());
    std::copy(y.begin(), y.begin() + n * cols, rows.begin() + (s - first) * n);
  }
  return rows;
}

std::vector<double> cpu_rows(const WalkLossProblem& p, const SymmetricEigen* eigen, node_t first,
                             node_t count) {
  std::vector<double> rows(static_cast<std::size_t>(count) * p.w.n);
  if (p.method == 2)
    kernels::walk_series_rows_cpu(p, first, count, rows);
  else
    kernels::walk_spectral_rows_cpu(p, *eigen, first, count, rows);
  return rows;
}

/// "body vs CPU" with all 17 digits and the distance in ulps of the CPU value (gtest shows 6 digits).
std::string versus(double body, double cpu) {
  const double m = std::abs(cpu),
               ulps = body == cpu ? 0.0 : std::abs(body - cpu) / (std::nextafter(m, INFINITY) - m);
  char text[96];
  std::snprintf(text, sizeof text, "%.17g vs CPU %.17g, %.0f ulps apart", body, cpu, ulps);
  return text;
}

void expect_rows_equal(const std::vector<double>& rows, const std::vector<double>& cpu, std::int64_t n,
                       std::int64_t first, const std::string& what) {
  ASSERT_EQ(rows.size(), cpu.size()) << what;
  for (std::size_t i = 0; i < cpu.size(); ++i)
    ASSERT_EQ(rows[i], cpu[i]) << what << ": eps(" << first + std::int64_t(i) / n << " -> " << i % n
                               << "): " << versus(rows[i], cpu[i]) << " (0 ulps asked)";
}

// ---- the bodies ----

TEST(WalkLossBodies, ScaleEigenvectorRowsGiveTheCpuGraphRows) {
  // Spectral (E3) and finite (E2), anonymous view, no clip: eps = scale (c_T / n + G[u, v]), so the rows
  // carry G itself; tiles of 1, 5 and all sources, and a range of sources.
  for (const GraphCase& c : cases()) {
    if (!is_connected(c.graph)) continue;  // a second eigenvalue 1: g = -ln(0) (the driver rejects the graph)
    const std::int64_t n = c.w.n;
    const SymmetricEigen eigen = kernels::symmetric_eigen_cpu(c.w);
    for (int method : {0, 1}) {
      const WalkLossProblem p = problem(c, method, false, false, 11);
      const std::vector<double> cpu = cpu_rows(p, &eigen, 0, static_cast<node_t>(n));
      for (std::int64_t b : {std::int64_t{1}, std::int64_t{5}, n})
        expect_rows_equal(body_spectral_rows(p, eigen, 0, n, b), cpu, n, 0,
                          describe(c, p) + ", tile " + std::to_string(b));
      const std::int64_t first = n / 2, count = n - n / 2;
      expect_rows_equal(body_spectral_rows(p, eigen, first, count, 3),
                        std::vector<double>(cpu.begin() + first * n, cpu.end()), n, first,
                        describe(c, p) + ", sources from " + std::to_string(first));
    }
  }
}

TEST(WalkLossBodies, AccumulateSeriesIsTheCpuSeries) {
  // s_u(v) = sum_t (W^t e_u)_v / t: with the anonymous view, no clip and constant 0, eps = scale s_u(v); the
  // sums themselves are checked through scale = 1.
  for (const GraphCase& c : cases()) {
    const std::int64_t n = c.w.n;
    for (int steps : {1, 2, 13}) {
      WalkLossProblem p = problem(c, 2, false, false, steps);
      p.scale = 1.0;
      const std::vector<double> cpu = cpu_rows(p, nullptr, 0, static_cast<node_t>(n));
      std::vector<double> sums;
      const std::vector<double> rows = body_series_rows(p, 0, n, n, &sums);
      for (std::int64_t u = 0; u < n; ++u) {
        for (std::int64_t v = 0; v < n; ++v) {
          if (u == v) continue;  // the self pair is 0
          ASSERT_EQ(sums[v * n + u], cpu[u * n + v])
              << describe(c, p) << ": s_" << u << "(" << v << "): " << versus(sums[v * n + u], cpu[u * n + v])
              << " (0 ulps asked)";
        }
      }
      expect_rows_equal(rows, cpu, n, 0, describe(c, p));
      for (std::int64_t b : {1, 4})
        expect_rows_equal(body_series_rows(p, 0, n, b), cpu, n, 0,
                          describe(c, p) + ", tile " + std::to_string(b));
    }
  }
}

TEST(WalkLossBodies, WalkLossesAreTheCpuViews) {
  // Every method, both sender views, clip on and off: the whole tile loop of walk_loss_cuda, 0 ulps.
  for (const GraphCase& c : cases()) {
    const std::int64_t n = c.w.n;
    const SymmetricEigen eigen = kernels::symmetric_eigen_cpu(c.w);
    for (int method : {0, 1, 2}) {
      if (method != 2 && !is_connected(c.graph)) continue;
      for (bool known : {false, true}) {
        for (bool clip : {false, true}) {
          const WalkLossProblem p = problem(c, method, known, clip, 9);
          const std::vector<double> cpu = cpu_rows(p, &eigen, 0, static_cast<node_t>(n));
          ASSERT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << "vacuous: " << describe(c, p);
          const std::vector<double> rows =
              method == 2 ? body_series_rows(p, 0, n, 6) : body_spectral_rows(p, eigen, 0, n, 6);
          expect_rows_equal(rows, cpu, n, 0, describe(c, p));
        }
      }
    }
  }
}

TEST(WalkLossBodies, ChebyshevBodiesAreTheCpuSolver) {
  // The Chebyshev solver's launches (LaneSources, Start, one SpMM + Step + LaneMean per degree, LaneMean +
  // Project on the sum, then WalkLosses) against walk_chebyshev_rows_cpu: 0 ulps. E3 and E2, both sender
  // views, a tile of n/3 (a short last tile), one tile of all sources, and a range of sources in two tiles.
  // The expansion is planned from the dense spectrum's ends at tolerance 1e-6 (the bits are at stake here,
  // not the accuracy; few launches: each is a parallel region, slow on a loaded machine).
  struct Setting {
    int method;
    bool known;
    int tiling;  // 0: tiles of n/3; 1: one tile; 2: sources n/2 .. n - 1 in two tiles
  };
  const Setting settings[] = {{0, false, 0}, {1, true, 1}, {0, true, 2}, {1, false, 2}};
  for (const GraphCase& c : cases()) {
    if (!is_connected(c.graph)) continue;
    const std::int64_t n = c.w.n;
    const SymmetricEigen eigen = kernels::symmetric_eigen_cpu(c.w);
    double lo = 0, hi = 0;
    walk_chebyshev_interval(c.w, eigen.values[static_cast<std::size_t>(n) - 2], eigen.values[0], &lo, &hi);
    for (const Setting& setting : settings) {
      const WalkChebyshevPlan plan = plan_walk_chebyshev(setting.method, 40, lo, hi, 1e-6);
      ASSERT_GE(plan.degree, 2) << c.name;
      const kernels::WalkChebyshevExpansion e{lo, hi, plan.coefficients};
      const WalkLossProblem p = problem(c, setting.method, setting.known, false, 40);
      std::vector<double> cpu(static_cast<std::size_t>(n * n));
      kernels::walk_chebyshev_rows_cpu(p, e, 0, static_cast<node_t>(n), cpu);
      ASSERT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << "vacuous: " << describe(c, p);
      const std::string what = describe(c, p) + ", chebyshev K = " + std::to_string(plan.degree);
      if (setting.tiling < 2) {
        const std::int64_t b = setting.tiling == 0 ? std::max<std::int64_t>(1, n / 3) : n;
        expect_rows_equal(body_chebyshev_rows(p, e, 0, n, b), cpu, n, 0,
                          what + ", tile " + std::to_string(b));
      } else {
        const std::int64_t first = n / 2, count = n - n / 2;
        expect_rows_equal(body_chebyshev_rows(p, e, first, count, count / 2 + 1),
                          std::vector<double>(cpu.begin() + first * n, cpu.end()), n, first,
                          what + ", sources from " + std::to_string(first));
      }
    }
  }
}

}  // namespace
}  // namespace netdp
