// The random-walk accountant's twins byte for byte (docs/cuda_backend.md "Walk-loss twins"): the CPU twin
// (kernels/cpu/walk_loss_cpu.cpp) and the CUDA twin (kernels/cuda/walk_loss_cuda.cu) built for the emulated
// device run the same bodies of kernels/common, and there the device's vendor routines are the CPU's own
// calls (kernels/emulated: LAPACK dsyevd on the same column-major W, the CPU's GEMM shapes, the CSR-order
// product), so for the same problem their loss rows, collected through a LossRowSink, must be equal to the
// last bit (memcmp): every method (spectral E3 and finite E2 by the eigendecomposition and by the Chebyshev
// solver, the series E1), both sender views, clip on and off, several T; complete, ring, path, star,
// hypercube, Erdos-Renyi graphs with Metropolis and max-degree W (n not a multiple of the 8-lane panels or
// the 32-row GEMM blocks); tiles of 1, 3, 7 sources and the automatic one, all sources and a range. On a GPU
// the eigensolver and the GEMM are cuSOLVER's and cuBLAS's (the one documented difference, bounded by
// test_walk_loss_cuda). Built only against the emulated device (tests/CMakeLists.txt, labels device-bodies
// and twins).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/accounting/walk_loss_chebyshev.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "support/twins_compare.hpp"
#include "support/twins_graphs.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp {
namespace {

using testing::CollectingSink;
using testing::expect_same_bytes;

using kernels::WalkLossProblem;

struct Case : testing::TwinGraph {
  kernels::SymmetricEigen eigen;  // the CPU twin's
  double lo = 0, hi = 0;          // the Chebyshev interval
};

std::vector<Case> cases() {
  std::vector<Case> cases;
  for (testing::TwinGraph& t : testing::twin_graphs(
           {.complete = 12, .hypercube_dim = 5, .er_max_degree = {90, 0.08}, .er = {131, 0.05}})) {
    kernels::SymmetricEigen eigen = kernels::symmetric_eigen_cpu(t.w);
    Case c{std::move(t), std::move(eigen)};
    const std::size_t n = static_cast<std::size_t>(c.g.n);
    walk_chebyshev_interval(c.w, c.eigen.values[n - 2], c.eigen.values[0], &c.lo, &c.hi);
    cases.push_back(std::move(c));
  }
  return cases;
}

/// method 0 (E3), 1 (E2), 2 (series) with the driver's constants for alpha = 2, sigma = 1.3, N_u = 1.7.
WalkLossProblem problem(const Case& c, int method, bool known, bool clip, int steps) {
  const double n = c.g.n;
  double harmonic = 0.0;
  for (int t = 1; t <= steps; ++t) harmonic += 1.0 / t;
  const double constant = method == 0 ? std::log(double(steps)) / n : method == 1 ? harmonic / n : 0.0;
  const double ratio = 2.0 / (1.3 * 1.3);
  return WalkLossProblem{c.g, c.w, method, known, steps, constant, 1.7 * ratio, clip, ratio / 2};
}

/// The CPU twin: eigen (spectral, finite), Chebyshev (e given) or series.
std::vector<double> cpu_rows(const Case& c, const WalkLossProblem& p,
                             const kernels::WalkChebyshevExpansion* e, node_t first, node_t count) {
  std::vector<double> rows(static_cast<std::size_t>(count) * c.g.n);
  if (p.method == 2)
    kernels::walk_series_rows_cpu(p, first, count, rows);
  else if (e)
    kernels::walk_chebyshev_rows_cpu(p, *e, first, count, rows);
  else
    kernels::walk_spectral_rows_cpu(p, c.eigen, first, count, rows);
  return rows;
}

/// The CUDA twin on the emulated device, in the driver's order (src/accounting/walk_loss.cpp): its own
/// eigendecomposition, the tiles in increasing order, rows through the sink.
std::vector<double> cuda_rows(const WalkLossProblem& p, const kernels::WalkChebyshevExpansion* e,
                              node_t first, node_t count, std::int64_t tile) {
  const node_t n = p.w.n;
  CollectingSink sink(n, first, count);
  auto engine = kernels::walk_loss_cuda(p, e, 0, first, count, tile, 0, sink);
  const kernels::CudaWalkLossRun plan = engine->plan();
  if (tile > 0) {
    EXPECT_EQ(plan.tile_sources, std::min<std::int64_t>(tile, count));
  }
  for (node_t s = first; s < first + count; s += static_cast<node_t>(plan.tile_sources))
    engine->loss_rows(s, static_cast<node_t>(std::min<std::int64_t>(plan.tile_sources, first + count - s)));
  engine->finish();
  EXPECT_EQ(sink.next(), first + count);
  return sink.rows();
}

std::string describe(const Case& c, const WalkLossProblem& p, bool chebyshev, std::int64_t tile) {
  return c.name + " method " + std::to_string(p.method) + (chebyshev ? " chebyshev" : "") + " known " +
         std::to_string(p.sender_known) + " clip " + std::to_string(p.clip) + " T " +
         std::to_string(p.steps) + " tile " + std::to_string(tile);
}

/// Every tiling of the test on one problem: all sources in tiles of 3, 7, the automatic width and (n <= 40)
/// 1, and a range of sources that starts inside a CPU panel. Returns the comparisons made.
int compare_tilings(const Case& c, const WalkLossProblem& p, const kernels::WalkChebyshevExpansion* e) {
  const node_t n = c.g.n;
  const std::vector<double> cpu = cpu_rows(c, p, e, 0, n);
  EXPECT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << "vacuous: " << describe(c, p, e, 0);
  int compared = 0;
  for (std::int64_t tile : {0, 1, 3, 7}) {
    if (tile == 1 && n > 40) continue;  // n tiles: slow on the emulated device, and 3 crosses as many edges
    expect_same_bytes(cpu, cuda_rows(p, e, 0, n, tile), describe(c, p, e, tile), static_cast<std::size_t>(n));
    ++compared;
  }
  const node_t first = n / 3 + 1, count = std::min<node_t>(11, n - first);
  const std::vector<double> part(cpu.begin() + static_cast<std::ptrdiff_t>(first) * n,
                                 cpu.begin() + static_cast<std::ptrdiff_t>(first + count) * n);
  expect_same_bytes(part, cpu_rows(c, p, e, first, count), describe(c, p, e, 0) + " CPU range",
                    static_cast<std::size_t>(n));
  expect_same_bytes(part, cuda_rows(p, e, first, count, 3), describe(c, p, e, 3) + " range",
                    static_cast<std::size_t>(n));
  return compared + 1;
}

TEST(WalkLossTwins, EigenRowsAreTheSameBytes) {
  int compared = 0;
  for (const Case& c : cases())
    for (int method : {0, 1})
      for (bool known : {false, true})
        for (bool clip : {false, true})
          for (int steps : {3, 20})
            compared += compare_tilings(c, problem(c, method, known, clip, steps), nullptr);
  EXPECT_EQ(compared, (5 * 5 + 2 * 4) * 2 * 2 * 2 * 2);  // er 90 and er 131: no tile of 1
}

TEST(WalkLossTwins, SeriesRowsAreTheSameBytes) {
  int compared = 0;
  for (const Case& c : cases())
    for (bool known : {false, true})
      for (bool clip : {false, true})
        for (int steps : {1, 9}) compared += compare_tilings(c, problem(c, 2, known, clip, steps), nullptr);
  EXPECT_EQ(compared, (5 * 5 + 2 * 4) * 2 * 2 * 2);
}

TEST(WalkLossTwins, ChebyshevRowsAreTheSameBytes) {
  int compared = 0;
  for (const Case& c : cases()) {
    for (int method : {0, 1}) {
      const WalkChebyshevPlan plan = plan_walk_chebyshev(method, 30, c.lo, c.hi, 1e-8);
      ASSERT_GE(plan.degree, 1) << c.name;
      const kernels::WalkChebyshevExpansion e{c.lo, c.hi, plan.coefficients};
      for (bool known : {false, true})
        compared += compare_tilings(c, problem(c, method, known, method == 1, 30), &e);
    }
  }
  EXPECT_EQ(compared, (5 * 5 + 2 * 4) * 2 * 2);
}

TEST(WalkLossTwins, LibraryMatricesAreTheSameBytesOnEitherDevice) {
  // walk_loss_matrix through either device: the driver's solver choice, the engines, the sink.
  for (const Case& c : cases()) {
    for (WalkLossMethod method : {WalkLossMethod::spectral, WalkLossMethod::finite, WalkLossMethod::series}) {
      for (WalkLossSolver solver : {WalkLossSolver::eigen, WalkLossSolver::chebyshev}) {
        if (method == WalkLossMethod::series && solver == WalkLossSolver::chebyshev) continue;
        WalkLossParams p;
        p.method = method;
        p.solver = solver;
        p.steps = 12;
        p.sigma = 3.0;
        p.sender = SenderView::known;
        testing::expect_same_matrix_on_either_device(
            c, p,
            [](const Graph& g, const CsrMatrix& w, const WalkLossParams& q) {
              return walk_loss_matrix(g, w, q);
            },
            c.name + " library method " + std::to_string(int(method)) + " solver " +
                std::to_string(int(solver)));
      }
    }
  }
}

}  // namespace
}  // namespace netdp
