// CUDA backend of the random-walk accountant (docs/math.md §5.2-5.4) against the CPU backend, the oracle
// (docs/design.md principle 1): every method (spectral E3, finite E2, series E1), both sender views, clipping
// on and off, forced small tiles, a memory limit and single sources, on fresh random graphs, a hypercube
// (large degenerate eigenspaces: the eigenvectors differ between LAPACK and cuSOLVER, G = V diag(g) V^T does
// not), a ring and other awkward graphs. Error <= 1e-9 relative to max(1, |cpu value|): the spectral graph
// term is a sum with cancellation, so small entries only carry an absolute error. Skipped where no CUDA
// device answers; run in CI on the emulated device (docs/cuda_backend.md), where the eigensolver and the
// dense product are LAPACKE and CBLAS on the engine's own column-major buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "support/cuda_required.hpp"
#include "support/loss_matrix_compare.hpp"
#include "support/stop_support.hpp"

namespace {

using netdp::CsrMatrix;
using netdp::DeviceKind;
using netdp::Graph;
using netdp::SenderView;
using netdp::WalkLossMethod;
using netdp::WalkLossParams;
using netdp::WalkLossRun;

constexpr double kTolerance = 1e-9;
constexpr WalkLossMethod kMethods[] = {WalkLossMethod::spectral, WalkLossMethod::finite,
                                       WalkLossMethod::series};
constexpr SenderView kViews[] = {SenderView::anonymous, SenderView::known};

/// max over entries of |gpu - cpu| / max(1, |cpu|).
double max_scaled_error(const std::vector<double>& gpu, const std::vector<double>& cpu) {
  double worst = 0.0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    worst = std::max(worst, std::abs(gpu[i] - cpu[i]) / std::max(1.0, std::abs(cpu[i])));
  }
  return worst;
}

using netdp::testing::on;

std::string describe(const WalkLossParams& p) {
  return "method=" + netdp::to_string(p.method) + " sender=" + netdp::to_string(p.sender) +
         " clip=" + std::to_string(p.clip) + " steps=" + std::to_string(p.steps) +
         " tile=" + std::to_string(p.tile_sources) + " limit=" + std::to_string(p.memory_limit) +
         (p.source ? " source=" + std::to_string(*p.source) : std::string());
}

/// CUDA vs CPU on the same parameters; returns the CUDA matrix. The CPU oracle runs untiled and unlimited so
/// that it does not depend on the tiling under test.
std::vector<double> expect_matches_cpu(const Graph& g, const CsrMatrix& w, const WalkLossParams& p,
                                       WalkLossRun* run = nullptr) {
  return netdp::testing::expect_cuda_matches_cpu(
      p, run, describe(p), kTolerance,
      [&](const WalkLossParams& q, WalkLossRun* r) { return netdp::walk_loss_matrix(g, w, q, r); },
      max_scaled_error);
}

WalkLossParams base_params() {
  WalkLossParams p;
  p.alpha = 2.0;
  p.sigma = 1.3;  // alpha / sigma^2 != 1, so a lost factor would show
  p.steps = 12;
  return p;
}

CsrMatrix metropolis(const Graph& g) {
  return netdp::gossip_matrix(g, netdp::Weighting::metropolis);
}

/// Calls body(p) for every method and sender view, p being base_params() with those two set.
template <class Body>
void for_each_method_and_view(Body&& body) {
  for (WalkLossMethod method : kMethods) {
    for (SenderView sender : kViews) {
      WalkLossParams p = base_params();
      p.method = method;
      p.sender = sender;
      body(p);
    }
  }
}

TEST(WalkLossCuda, MatchesCpuOnRandomGraphs) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (std::uint64_t seed : {1u, 2u}) {
    const Graph g = netdp::erdos_renyi_graph(150, 0.06, seed);
    const CsrMatrix w = metropolis(g);
    for_each_method_and_view([&](WalkLossParams p) {
      for (bool clip : {false, true}) {
        p.clip = clip;
        SCOPED_TRACE("seed " + std::to_string(seed));
        expect_matches_cpu(g, w, p);
      }
    });
  }
}

TEST(WalkLossCuda, SmallTilesMatchCpuAndOneTile) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(150, 0.06, 7);
  const CsrMatrix w = metropolis(g);
  for_each_method_and_view([&](WalkLossParams p) {
    p.tile_sources = 7;
    WalkLossRun tiled_run;
    const std::vector<double> tiled = expect_matches_cpu(g, w, p, &tiled_run);
    EXPECT_EQ(tiled_run.tile_sources, 7) << describe(p);
    EXPECT_EQ(tiled_run.tiles, 22) << describe(p);  // ceil(150 / 7)

    p.tile_sources = 150;
    WalkLossRun single_run;
    const std::vector<double> single = expect_matches_cpu(g, w, p, &single_run);
    EXPECT_EQ(single_run.tiles, 1) << describe(p);
    ASSERT_EQ(tiled.size(), single.size());
    // cuBLAS / cuSPARSE may pick different kernels for different block widths: equal to rounding.
    EXPECT_LE(max_scaled_error(tiled, single), kTolerance) << describe(p);
  });
}

TEST(WalkLossCuda, HypercubeRingAndAwkwardGraphsMatchCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  // Hypercube d = 6: eigenvalues 1 - 2k/7 with multiplicity C(6, k). Ring: pairs of equal eigenvalues. Path:
  // lambda_2 close to 1 (large -ln(1 - lambda_2)). Star: a hub. Complete: W = J/n, the graph term vanishes.
  const std::vector<Graph> graphs = {netdp::hypercube_graph(6), netdp::ring_graph(50), netdp::path_graph(60),
                                     netdp::star_graph(41), netdp::complete_graph(40)};
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const CsrMatrix w = metropolis(graphs[i]);
    for_each_method_and_view([&](WalkLossParams p) {
      for (bool clip : {false, true}) {
        p.clip = clip;
        p.steps = 30;
        p.tile_sources = 7;
        SCOPED_TRACE("graph " + std::to_string(i));
        expect_matches_cpu(graphs[i], w, p);
      }
    });
  }
}

TEST(WalkLossCuda, SingleSourceMatchesCpuAndFullMatrix) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(150, 0.06, 3);
  const CsrMatrix w = metropolis(g);
  for_each_method_and_view([&](WalkLossParams p) {
    const std::vector<double> full = netdp::walk_loss_matrix(g, w, on(DeviceKind::cuda, p));
    ASSERT_EQ(full.size(), std::size_t{150} * 150);
    for (netdp::node_t source : {0, 17, 149}) {
      p.source = source;
      const std::vector<double> row = expect_matches_cpu(g, w, p);
      ASSERT_EQ(row.size(), std::size_t{150});
      const std::vector<double> full_row(full.begin() + std::ptrdiff_t{source} * 150,
                                         full.begin() + std::ptrdiff_t{source + 1} * 150);
      EXPECT_LE(max_scaled_error(row, full_row), kTolerance) << describe(p);
      EXPECT_EQ(row[static_cast<std::size_t>(source)], 0.0) << describe(p);  // the self pair
    }
  });
}

TEST(WalkLossCuda, LargeStagingInSeveralChunksPerTileMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  // The series method on a ring of n = 12,288 (no eigendecomposition, so the CPU oracle stays fast): rows
  // of 98,304 bytes, 2,730 per 256 MiB pinned chunk, so tiles of 5,000 sources take two chunks each and the
  // one-tile run five (memory_plan::plan_staging). Sanitizer passes skip this test (small cases only), and so
  // does the emulated device (2.4 GB of output for what is a staging test).
#if defined(NETDP_EMULATED_DEVICE)
  GTEST_SKIP() << "too large for the emulated device";
#endif
  const Graph g = netdp::ring_graph(12'288);
  const CsrMatrix w = metropolis(g);
  WalkLossParams p = base_params();
  p.method = WalkLossMethod::series;
  p.sender = SenderView::known;
  p.steps = 6;
  for (std::int64_t tile : {5'000, 0}) {
    p.tile_sources = tile;
    WalkLossRun run;
    expect_matches_cpu(g, w, p, &run);
    EXPECT_EQ(run.tiles, tile == 0 ? 1 : 3) << describe(p);
  }
}

TEST(WalkLossCuda, RunsAreReproducible) {
  NETDP_NEEDS_CUDA_DEVICE();
  // Deterministic cuSOLVER mode, cuBLAS and non-transposed SpMM on one stream, no atomics in our kernels.
  const Graph g = netdp::erdos_renyi_graph(150, 0.06, 5);
  const CsrMatrix w = metropolis(g);
  for (WalkLossMethod method : kMethods) {
    WalkLossParams p = on(DeviceKind::cuda, base_params());
    p.method = method;
    p.sender = SenderView::known;
    p.tile_sources = 7;
    const std::vector<double> first = netdp::walk_loss_matrix(g, w, p);
    EXPECT_TRUE(first == netdp::walk_loss_matrix(g, w, p)) << describe(p);
  }
}

TEST(WalkLossCuda, MemoryLimitSplitsIntoTilesOrThrows) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(150, 0.06, 9);
  const CsrMatrix w = metropolis(g);
  WalkLossParams p = base_params();
  // Series: about 19 KB for W (64-bit CSR) and 3.6 KB per source (X, Y, S: 3 n doubles): 128 KB holds
  // about 31 sources, balanced to 5 tiles of 30 (memory_plan::plan_walk_series).
  p.method = WalkLossMethod::series;
  p.memory_limit = std::int64_t{128} << 10;
  WalkLossRun run;
  expect_matches_cpu(g, w, p, &run);
  EXPECT_GT(run.tiles, 1);
  EXPECT_LT(run.tile_sources, 150);

  for (WalkLossMethod method : kMethods) {
    p.method = method;
    p.memory_limit = 1000;  // not even W (series) or the eigenvectors (spectral) fit
    EXPECT_THROW(netdp::walk_loss_matrix(g, w, on(DeviceKind::cuda, p)), netdp::InsufficientMemory)
        << describe(p);
  }
}

TEST(WalkLossCuda, ChebyshevSolverMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  // The Chebyshev engine against the CPU's Chebyshev solver on the same expansion (the driver's choice is the
  // same on both devices), the automatic tile and tiles of 7; also within 1e-6 of the eigen solver's rows,
  // the tolerance asked for, so that the comparison is not between two equal mistakes.
  const Graph g = netdp::erdos_renyi_graph(150, 0.06, 11);
  const CsrMatrix w = metropolis(g);
  for (WalkLossMethod method : {WalkLossMethod::spectral, WalkLossMethod::finite}) {
    for (SenderView sender : kViews) {
      for (std::int64_t tile : {0, 7}) {
        WalkLossParams p = base_params();
        p.method = method;
        p.sender = sender;
        p.solver = netdp::WalkLossSolver::chebyshev;
        p.tolerance = 1e-8;
        p.tile_sources = tile;
        WalkLossRun run;
        const std::vector<double> gpu = expect_matches_cpu(g, w, p, &run);
        EXPECT_EQ(run.solver, "chebyshev") << describe(p);
        EXPECT_EQ(run.tiles, tile == 7 ? 22 : 1) << describe(p);
        p.solver = netdp::WalkLossSolver::eigen;
        const std::vector<double> eigen = netdp::walk_loss_matrix(g, w, on(DeviceKind::cpu, p));
        EXPECT_LE(max_scaled_error(gpu, eigen), 1e-6) << describe(p);
      }
    }
  }
}

TEST(WalkLossCuda, AStopRequestEndsTheTileLoopBeforeAnyRow) {
  NETDP_NEEDS_CUDA_DEVICE();
  // The driver (src/accounting/walk_loss.cpp) checks for a stop request before each tile of every engine.
  const Graph g = netdp::ring_graph(20);
  const CsrMatrix w = metropolis(g);
  netdp::testing::QuietProgressSink watcher;
  const netdp::ProgressSinkScope scope(watcher);
  for (netdp::WalkLossSolver solver : {netdp::WalkLossSolver::eigen, netdp::WalkLossSolver::chebyshev}) {
    for (WalkLossMethod method : kMethods) {
      WalkLossParams p = on(DeviceKind::cuda, base_params());
      p.method = method;
      p.solver = solver;
      p.tile_sources = 3;
      netdp::testing::RowCounter rows;
      netdp::request_stop(SIGINT);
      EXPECT_THROW(netdp::walk_loss(g, w, p, rows), netdp::RunStopped) << describe(p);
      netdp::clear_stop();
      EXPECT_EQ(rows.rows, 0) << describe(p);
      EXPECT_EQ(netdp::walk_loss(g, w, p, rows).tiles, 7) << describe(p);  // and runs whole without one
      EXPECT_EQ(rows.rows, 20) << describe(p);
    }
  }
}

TEST(WalkLossCuda, AbsentDeviceIndexThrows) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::ring_graph(10);
  const CsrMatrix w = metropolis(g);
  WalkLossParams p = base_params();
  p.device = netdp::DeviceSpec{DeviceKind::cuda, netdp::cuda_device_count()};
  EXPECT_THROW(netdp::walk_loss_matrix(g, w, p), netdp::DeviceUnavailable);
}

}  // namespace
