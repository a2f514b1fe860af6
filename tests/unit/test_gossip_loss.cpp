// Gossip accountant (docs/math.md §6.1-6.2, Theorem 6.1) against hand calculations, an independent dense
// implementation of the formula, invariants and docs/math.md §Z.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gossip_loss_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

GossipLossParams params(int steps, int t_start = 0, bool cap = false) {
  return {.accounting = GossipAccounting::theorem,  // this file tests Theorem 6.1's sum
          .steps = steps,
          .t_start = t_start,
          .cap_ldp = cap,
          .source = std::nullopt,  // every source's row
          .device = {DeviceKind::cpu, 0}};
}

/// Theorem 6.1 literally, with dense powers of W and row norms taken along rows (no symmetry shortcut).
/// Returns the n x n matrix including the diagonal f(u, u), uncapped.
std::vector<double> dense_oracle(const Graph& g, const CsrMatrix& w, const GossipLossParams& p) {
  const std::size_t n = g.n;
  const auto wd = to_dense(w);
  auto power = testing::dense_identity(n);
  std::vector<double> f(n * n, 0.0);
  for (int t = 0; t < p.t_start + p.steps; ++t) {
    if (t > 0) power = testing::dense_product(wd, power, n);
    if (t >= p.t_start) testing::add_gossip_messages(power, g, gossip_ldp_loss(p), f);
  }
  return f;
}

void expect_close(double expected, double actual, double rel) {
  EXPECT_NEAR(expected, actual, rel * std::max(1.0, std::fabs(expected)));
}

TEST(GossipLoss, TwoNodesClosedForm) {
  // K2 with metropolis: W = J/2, so W^0 = I and W^t = J/2 for t >= 1; row norms 1 then 1/2.
  // f(0, 1) = scale (1 + (T - 1)/2) with t = 0 included, scale T/2 from t = 1 (hand calculation).
  const auto [g, w] = testing::with_metropolis(path_graph(2));
  auto p = params(5);
  p.alpha = 3;
  p.sigma = 2;
  p.sensitivity = 1.5;
  const double scale = 3 * 2.25 / 8;
  EXPECT_DOUBLE_EQ(gossip_ldp_loss(p), scale);
  auto f = gossip_loss_matrix(g, w, p);
  expect_close(scale * 3.0, f[1], 1e-14);
  expect_close(scale * 3.0, f[2], 1e-14);
  EXPECT_EQ(f[0], 0.0);
  EXPECT_EQ(f[3], 0.0);
  p.t_start = 1;
  f = gossip_loss_matrix(g, w, p);
  expect_close(scale * 2.5, f[1], 1e-14);
  p.cap_ldp = true;
  f = gossip_loss_matrix(g, w, p);
  EXPECT_DOUBLE_EQ(f[1], scale);
}

TEST(GossipLoss, PathOfThreeByHand) {
  // Path 0-1-2, metropolis: W = [[2/3,1/3,0],[1/3,1/3,1/3],[0,1/3,2/3]]; row norms of W: 5/9, 1/3, 5/9.
  // T = 2, t = 0, 1:  f(0,1) = 1 + (4/9)/(5/9) = 9/5;  f(1,0) = 1 + (1/9)/(1/3) = 4/3;
  //                   f(0,2) = 0 + (1/9)/(1/3) = 1/3;  f(2,0) = 1/3 (scale = 1).
  const auto [g, w] = testing::with_metropolis(path_graph(3));
  auto f = gossip_loss_matrix(g, w, params(2));
  expect_close(9.0 / 5.0, f[0 * 3 + 1], 1e-14);
  expect_close(4.0 / 3.0, f[1 * 3 + 0], 1e-14);
  expect_close(1.0 / 3.0, f[0 * 3 + 2], 1e-14);
  expect_close(1.0 / 3.0, f[2 * 3 + 0], 1e-14);
  expect_close(9.0 / 5.0, f[2 * 3 + 1], 1e-14);  // mirror symmetry of the path
}

TEST(GossipLoss, MatchesDenseOracleOnRandomGraphs) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    Graph g = erdos_renyi_graph(40, 0.12, seed);
    for (Weighting scheme : {Weighting::metropolis, Weighting::hamilton_literal, Weighting::max_degree}) {
      auto w = gossip_matrix(g, scheme);
      for (int t_start : {0, 1}) {
        auto p = params(6, t_start);
        auto oracle = dense_oracle(g, w, p);
        auto f = gossip_loss_matrix(g, w, p);
        for (std::size_t u = 0; u < 40; ++u)
          for (std::size_t v = 0; v < 40; ++v)
            expect_close(u == v ? 0.0 : oracle[u * 40 + v], f[u * 40 + v], 1e-12);
      }
    }
  }
}

TEST(GossipLoss, OracleColumnSumsEqualScaleTimesStepsTimesDegree) {
  // sum_u f(u, v), u = v included, = scale * sum_t sum_{w in N(v)} ||row w||^2 / ||row w||^2 = scale T d_v
  // for any symmetric W; on vertex-transitive graphs the row sums (losses from u) equal it too.
  for (const Graph& g : {erdos_renyi_graph(30, 0.2, 7), hypercube_graph(4), ring_graph(9)}) {
    auto w = gossip_matrix(g, Weighting::metropolis);
    auto p = params(7);
    auto oracle = dense_oracle(g, w, p);
    auto f = gossip_loss_matrix(g, w, p);
    const std::size_t n = g.n;
    for (std::size_t v = 0; v < n; ++v) {
      double column = oracle[v * n + v];  // the diagonal term, which netdp reports as 0
      for (std::size_t u = 0; u < n; ++u)
        if (u != v) column += f[u * n + v];
      expect_close(gossip_ldp_loss(p) * p.steps * g.degree(static_cast<node_t>(v)), column, 1e-12);
    }
  }
  Graph cube = hypercube_graph(5);
  auto w = gossip_matrix(cube, Weighting::metropolis);
  auto p = params(4);
  auto oracle = dense_oracle(cube, w, p);
  auto f = gossip_loss_matrix(cube, w, p);
  for (std::size_t u = 0; u < 32; ++u) {
    double row = oracle[u * 32 + u];
    for (std::size_t v = 0; v < 32; ++v)
      if (u != v) row += f[u * 32 + v];
    expect_close(gossip_ldp_loss(p) * 4 * 5, row, 1e-12);
  }
}

TEST(GossipLoss, CapIsTheMinimumWithTheLdpLevel) {
  const auto [g, w] = testing::with_metropolis(hypercube_graph(6));
  auto raw = gossip_loss_matrix(g, w, params(8, 0, false));
  auto capped = gossip_loss_matrix(g, w, params(8, 0, true));
  const double ldp = gossip_ldp_loss(params(8));
  int above = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    EXPECT_EQ(capped[i], std::min(raw[i], ldp));
    above += raw[i] > ldp;
  }
  EXPECT_GT(above, 0);  // the cap is exercised: neighbours exceed the LDP level without it
}

TEST(GossipLoss, TilingGivesIdenticalResults) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(150, 0.05, 11));
  for (Propagation propagation : {Propagation::sparse, Propagation::dense}) {
    auto p = params(9, 0, true);
    p.propagation = propagation;
    GossipLossRun run;
    auto whole = gossip_loss_matrix(g, w, p, &run);
    EXPECT_EQ(run.tiles, 1);
    for (std::int64_t tile : {1, 7, 64, 149}) {
      p.tile_sources = tile;
      auto tiled = gossip_loss_matrix(g, w, p, &run);
      EXPECT_EQ(run.tiles, (150 + tile - 1) / tile);
      EXPECT_EQ(whole, tiled) << "tile " << tile;
    }
  }
}

TEST(GossipLoss, MemoryLimitForcesTilesWithIdenticalResults) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(300, 0.03, 5));
  auto p = params(10);
  auto whole = gossip_loss_matrix(g, w, p);
  p.memory_limit = 400'000;  // bytes: norms (24 kB) + workspace leave room for a few rows per tile only
  GossipLossRun run;
  auto tiled = gossip_loss_matrix(g, w, p, &run);
  EXPECT_GT(run.tiles, 1);
  EXPECT_EQ(whole, tiled);
  p.memory_limit = 1000;
  EXPECT_THROW(gossip_loss_matrix(g, w, p), InsufficientMemory);
}

// docs/gossip_loss.md "One pass for long horizons": the one pass uses the same panels and sums as the two
// passes, so its rows are the same bits, on either propagation, for all sources, a range or one source, and
// any thread count.
TEST(GossipLoss, OnePassGivesTheTwoPassesBits) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(70, 0.08, 4));
  const struct { node_t first, count; } ranges[] = {{0, 70}, {3, 21}, {69, 1}};
  for (bool dense : {false, true})
    for (int t_start : {0, 1})
      for (const auto& range : ranges) {
        const kernels::GossipLossProblem problem{g, w, t_start, 9, 1.5, false, dense};
        std::vector<double> norms(std::size_t(9) * 70), two(std::size_t(range.count) * 70);
        kernels::gossip_row_norms_cpu(problem, norms);
        kernels::gossip_loss_rows_cpu(problem, norms, range.first, range.count, two);
        for (int threads : {1, 2}) {
          const auto one = testing::with_threads(threads, [&] {
            const auto shares = kernels::gossip_shares_one_pass_cpu(problem, range.first, range.count, {});
            std::vector<double> rows(std::size_t(range.count) * 70);
            kernels::gossip_loss_rows_from_shares_cpu(problem, shares, range.first, range.count, rows);
            return rows;
          });
          EXPECT_EQ(one, two) << "dense " << dense << ", t_start " << t_start << ", rows " << range.first
                              << " + " << range.count << ", threads " << threads;
        }
      }
}

// The driver takes the one pass when it holds less than the T x n norms (T = 60 on 6 nodes, sparse panels of
// 8: 1,200 bytes against 2,880), and its tiles are whole panels; the losses still match Theorem 6.1 computed
// densely.
TEST(GossipLoss, LongHorizonsRunInOnePassAndMatchTheOracle) {
  const auto [g, w] = testing::with_metropolis(ring_graph(6));
  GossipLossRun run;
  auto p = params(60);
  p.propagation = Propagation::sparse;  // W is half full: auto would take dense panels of 64 (9,552 bytes)
  const auto f = gossip_loss_matrix(g, w, p, &run);
  EXPECT_EQ(run.passes, 1);
  const auto oracle = dense_oracle(g, w, p);
  for (std::size_t u = 0; u < 6; ++u)
    for (std::size_t v = 0; v < 6; ++v) expect_close(u == v ? 0.0 : oracle[u * 6 + v], f[u * 6 + v], 1e-12);
  p.steps = 2;
  gossip_loss_matrix(g, w, p, &run);
  EXPECT_EQ(run.passes, 2);
  // Tiles of one panel (8 sources) on 20 nodes: rows 0-7, 8-15, 16-19.
  const auto [g20, w20] = testing::with_metropolis(ring_graph(20));
  auto tiled = params(200);
  tiled.tile_sources = 3;  // rounded up to a whole panel
  const auto whole = gossip_loss_matrix(g20, w20, params(200));
  EXPECT_EQ(gossip_loss_matrix(g20, w20, tiled, &run), whole);
  EXPECT_EQ(run.passes, 1);
  EXPECT_EQ(run.tile_sources, 8);
  EXPECT_EQ(run.tiles, 3);
}

// The powers before the first row report their progress (the rows' progress is the sink's): shares that
// only increase, ending at 1, in both methods.
TEST(GossipLoss, ThePowersBeforeTheRowsReportTheirProgress) {
  const auto [g, w] = testing::with_metropolis(ring_graph(40));
  for (int steps : {5, 500}) {
    std::vector<double> seen;
    LossMatrixCollector rows(40);
    const GossipLossRun run =
        gossip_loss(g, w, params(steps), rows, [&](double done) { seen.push_back(done); });
    EXPECT_EQ(run.passes, steps == 5 ? 2 : 1);
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  }
}

TEST(GossipLoss, DenseAndSparsePropagationAgree) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(120, 0.3, 3));
  auto p = params(12);
  p.propagation = Propagation::sparse;
  auto sparse = gossip_loss_matrix(g, w, p);
  p.propagation = Propagation::dense;
  GossipLossRun run;
  auto dense = gossip_loss_matrix(g, w, p, &run);
  EXPECT_EQ(run.propagation, "dense");
  for (std::size_t i = 0; i < sparse.size(); ++i) expect_close(sparse[i], dense[i], 1e-12);
}

TEST(GossipLoss, SourceRowEqualsTheMatrixRow) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(90, 0.08, 2));
  auto p = params(6, 1, true);
  auto all = gossip_loss_matrix(g, w, p);
  for (node_t u : {0, 17, 89}) {
    p.source = u;
    auto row = gossip_loss_matrix(g, w, p);
    ASSERT_EQ(row.size(), 90u);
    EXPECT_TRUE(std::equal(row.begin(), row.end(), all.begin() + u * 90));
  }
}

TEST(GossipLoss, CompleteGraphHasUniformLoss) {
  // W = J/n: every message after t = 0 carries (1/n)^2 / (1/n) = 1/n of x_u, from each of the n - 1
  // neighbours.
  const int n = 12, steps = 5;
  const auto [g, w] = testing::with_metropolis(complete_graph(n));
  auto f = gossip_loss_matrix(g, w, params(steps));
  const double expected = 1.0 + (steps - 1) * double(n - 1) / n;  // t = 0: only w = u counts
  for (int u = 0; u < n; ++u)
    for (int v = 0; v < n; ++v) expect_close(u == v ? 0.0 : expected, f[u * n + v], 1e-13);
}

TEST(GossipLoss, AppendixZHypercubeByDistance) {
  // docs/math.md §Z item 2: hypercube d = 11, W-MH, alpha = 2, Delta = sigma = 1, T = 19, u = 0,
  // unclipped.
  const double theorem[] = {2.25,   0.634,  0.239,  0.118,  0.070,  0.0454,
                            0.0317, 0.0225, 0.0168, 0.0123, 0.00945};
  const double code[] = {1.26, 0.642, 0.245, 0.125, 0.0752, 0.0507, 0.0360, 0.0269, 0.0202, 0.0158, 0.0121};
  const auto [g, w] = testing::with_metropolis(hypercube_graph(11));
  for (int t_start : {0, 1}) {
    auto p = params(19, t_start);
    p.source = 0;
    auto row = gossip_loss_matrix(g, w, p);
    std::vector<double> sum(12, 0.0);
    std::vector<int> count(12, 0);
    for (int v = 1; v < 2048; ++v) {
      int d = __builtin_popcount(v);
      sum[d] += row[v];
      ++count[d];
    }
    for (int d = 1; d <= 11; ++d) {
      const double expected = (t_start == 0 ? theorem : code)[d - 1];
      // The spec prints 3 significant digits.
      EXPECT_NEAR(sum[d] / count[d], expected, 0.006 * expected)
          << "distance " << d << " t_start " << t_start;
    }
  }
}

TEST(GossipLoss, RejectsBadParameters) {
  const auto [g, w] = testing::with_metropolis(ring_graph(6));
  auto expect_invalid = [&](auto mutate) {
    auto p = params(3);
    mutate(p);
    EXPECT_THROW(gossip_loss_matrix(g, w, p), InvalidInput);
  };
  expect_invalid([](GossipLossParams& p) { p.alpha = 1.0; });
  expect_invalid([](GossipLossParams& p) { p.sigma = 0.0; });
  expect_invalid([](GossipLossParams& p) { p.sigma = -1.0; });
  expect_invalid([](GossipLossParams& p) { p.sensitivity = 0.0; });
  expect_invalid([](GossipLossParams& p) { p.steps = 0; });
  expect_invalid([](GossipLossParams& p) { p.t_start = 2; });
  expect_invalid([](GossipLossParams& p) { p.source = 6; });
  expect_invalid([](GossipLossParams& p) { p.source = -1; });
  // A row-stochastic but non-symmetric W (lazy-uniform on an irregular graph) is not a gossip matrix.
  Graph star = star_graph(5);
  EXPECT_THROW(gossip_loss_matrix(star, gossip_matrix(star, Weighting::lazy_uniform), params(3)),
               InvalidInput);
  // W for another graph size.
  EXPECT_THROW(gossip_loss_matrix(ring_graph(7), w, params(3)), InvalidInput);
}

}  // namespace
}  // namespace netdp
