// The exact gossip accountant on each observer's ball (docs/math.md §6.9 "Computation"): the basis built on W
// restricted to the nodes the view can touch against the same basis on dense n-vectors (both paths of the
// CPU backend), a hand calculation on a ring whose balls are proper, exact zeros past t_start + steps hops,
// one source's row against the all-pairs row, and the memory a thread is charged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "accounting/gossip_view.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "support/gossip_schedules.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using testing::exact_params;

constexpr auto kInput = ObserverKnowledge::input;
constexpr auto kNoise = ObserverKnowledge::input_and_noise;

kernels::GossipViewProblem problem(const Graph& g, const CsrMatrix& w, int steps, int t_start,
                                   bool knows_noise, bool use_balls) {
  kernels::GossipViewProblem p = gossip_view_problem(g, w, t_start, steps, knows_noise);
  p.use_balls = use_balls;
  return p;
}

/// Row v of the backend's projections ||P_v e_u||^2 for every observer v (observer-major).
std::vector<double> projections(const kernels::GossipViewProblem& p) {
  std::vector<double> out(static_cast<std::size_t>(p.n * p.n), -1.0);
  std::vector<kernels::GossipViewObserver> observers(static_cast<std::size_t>(p.n));
  kernels::gossip_view_cpu(p, 0, p.n, -1, out, observers);
  return out;
}

struct Case {
  std::string name;
  testing::MetropolisGraph graph;
};

std::vector<Case> sparse_cases() {
  std::vector<Case> cases;
  cases.push_back({"ring n=40", testing::with_metropolis(ring_graph(40))});
  cases.push_back({"grid 7x7", testing::with_metropolis(grid_graph(7, 7))});
  cases.push_back({"rgg n=120", testing::with_metropolis(random_geometric_graph(120, 0.12, 4))});
  cases.push_back({"path n=30", testing::with_metropolis(path_graph(30))});
  return cases;
}

TEST(GossipViewBall, BallsAreSmallerThanTheGraphInTheseCases) {
  // The comparison below only tests the ball path if it runs: a thread charged less than the dense basis
  // (n x rank doubles) for every observer means every observer found a ball under half the graph.
  for (const auto& [name, mg] : sparse_cases()) {
    const auto& [g, w] = mg;
    const auto ball = problem(g, w, 2, 0, true, true), dense = problem(g, w, 2, 0, true, false);
    for (node_t v = 0; v < g.n; ++v) {
      const std::vector<node_t> one{v};
      EXPECT_LT(kernels::gossip_view_thread_bytes(ball, one), kernels::gossip_view_thread_bytes(dense, one))
          << name << ", v = " << v;
    }
  }
}

TEST(GossipViewBall, EqualsTheDensePath) {
  for (const auto& [name, mg] : sparse_cases()) {
    const auto& [g, w] = mg;
    for (int steps : {1, 2, 3})
      for (int t_start : {0, 1})
        for (bool knows_noise : {false, true}) {
          const auto ball = projections(problem(g, w, steps, t_start, knows_noise, true));
          const auto dense = projections(problem(g, w, steps, t_start, knows_noise, false));
          for (std::size_t k = 0; k < ball.size(); ++k)
            ASSERT_NEAR(ball[k], dense[k], 1e-12) << name << ", T = " << steps << ", t_start = " << t_start
                                                  << ", v = " << k / g.n << ", u = " << k % g.n;
        }
  }
}

TEST(GossipViewBall, RingByHand) {
  // docs/math.md §6.9's counterexample on a ring of 40 (W = 1/3 on the ring and the diagonal, T = 2 from
  // t = 0): v's view touches only v - 2 .. v + 2, a ball of 5 nodes. Its rows e_{v+1}, e_{v-1},
  // (e_v + e_{v+1} + e_{v+2})/3, (e_v + e_{v-1} + e_{v-2})/3 give ||P e_{v+-2}||^2 = 2/3 and 1 for the
  // neighbours; knowing its noise, v recovers y_{v+-2}: 1. Every other node: 0.
  const node_t n = 40;
  const auto [g, w] = testing::with_metropolis(ring_graph(n));
  const auto input = gossip_loss_matrix(g, w, exact_params(2, 0, kInput));
  const auto noise = gossip_loss_matrix(g, w, exact_params(2, 0, kNoise));
  for (node_t v = 0; v < n; ++v)
    for (node_t u = 0; u < n; ++u) {
      if (u == v) continue;
      const node_t hops = std::min((u - v + n) % n, (v - u + n) % n);
      const double expected_input = hops == 1 ? 1.0 : hops == 2 ? 2.0 / 3.0 : 0.0;
      const double expected_noise = hops <= 2 ? 1.0 : 0.0;
      const std::size_t k = static_cast<std::size_t>(u) * n + v;  // loss rows by source u
      EXPECT_NEAR(input[k], expected_input, 1e-14) << u << " -> " << v;
      EXPECT_NEAR(noise[k], expected_noise, 1e-14) << u << " -> " << v;
      if (hops > 2) {
        EXPECT_EQ(input[k], 0.0);
        EXPECT_EQ(noise[k], 0.0);
      }
    }
}

TEST(GossipViewBall, OneSourceRowIsTheAllPairsRowWithZerosPastTheReach) {
  // v's view is supported within t_start + steps - 1 hops of its neighbours, so a source farther than
  // t_start + steps from v has an exact 0; every entry lies in [0, LDP level].
  std::vector<testing::MetropolisGraph> graphs;
  graphs.push_back(testing::with_metropolis(grid_graph(12, 12)));
  graphs.push_back(testing::with_metropolis(random_geometric_graph(150, 0.11, 9)));
  graphs.push_back(testing::with_metropolis(path_graph(50)));
  for (const auto& [g, w] : graphs)
    for (auto knows : {kInput, kNoise}) {
      GossipLossParams p = exact_params(4, 1, knows);
      p.alpha = 3, p.sigma = 0.8;
      const double ldp = gossip_ldp_loss(p);
      const auto all = gossip_loss_matrix(g, w, p);
      for (node_t u : {node_t(0), node_t(g.n / 2), node_t(g.n - 1)}) {
        p.source = u;
        const auto row = gossip_loss_matrix(g, w, p);
        p.source.reset();
        ASSERT_EQ(row.size(), std::size_t(g.n));
        EXPECT_EQ(std::memcmp(row.data(), all.data() + std::size_t(u) * g.n, g.n * sizeof(double)), 0) << u;
        const std::vector<node_t> distance = bfs_distances(g, u);
        for (node_t v = 0; v < g.n; ++v) {
          EXPECT_GE(row[v], 0.0);
          EXPECT_LE(row[v], ldp);
          if (distance[v] < 0 || distance[v] > p.t_start + p.steps) {
            EXPECT_EQ(row[v], 0.0) << u << " -> " << v;
          }
        }
      }
    }
}

TEST(GossipViewBall, AThreadIsChargedForItsBallOnly) {
  // Ring of 10^4, T = 10: a view touches 2 (t_start + T) + 1 nodes, so a thread needs a few hundred doubles
  // per basis vector instead of 10^4, plus the search's n labels (4 bytes each).
  const node_t n = 10000;
  const auto [g, w] = testing::with_metropolis(ring_graph(n));
  const auto ball = problem(g, w, 10, 0, true, true), dense = problem(g, w, 10, 0, true, false);
  const std::vector<node_t> observers{0, 17, n - 1};
  const std::int64_t dense_bytes = kernels::gossip_view_thread_bytes(dense, observers);
  const std::int64_t ball_bytes = kernels::gossip_view_thread_bytes(ball, observers);
  EXPECT_GE(dense_bytes, std::int64_t(8) * n * 21);  // Q: n x (2 T + 1)
  EXPECT_LT(ball_bytes, std::int64_t(4) * n + 8 * 21 * 64);
  EXPECT_GE(ball_bytes, std::int64_t(4) * n + 8 * 21 * 21);
}

TEST(GossipViewBall, OneSourceOnALargeRingFitsAFewMegabytes) {
  // Ring of 2 10^5, T = 10 from t = 1: 22 observers reach u, each view touches 23 nodes. The dense bases
  // alone would take 8 n (2 T + 1) = 34 MB per thread; with the balls the plan holds a few n-vectors (the
  // row, mu, the search labels), so a 16 MB limit passes and the estimate stays under it.
  const node_t n = 200000;
  const auto [g, w] = testing::with_metropolis(ring_graph(n));
  GossipLossParams p = exact_params(10, 1, kNoise);
  p.source = 0;
  p.memory_limit = std::int64_t(16) << 20;
  GossipLossRun run;
  const auto row = gossip_loss_matrix(g, w, p, &run);
  EXPECT_LT(run.memory_estimate, p.memory_limit);
  EXPECT_EQ(run.view_observers, 22);
  for (node_t v = 1; v < n; ++v) {
    const node_t hops = std::min(v, n - v);
    if (hops > 11) {
      ASSERT_EQ(row[v], 0.0) << v;
    }
  }
  EXPECT_GT(row[1], 0.0);
  EXPECT_LE(row[1], gossip_ldp_loss(p));
}

}  // namespace
}  // namespace netdp
