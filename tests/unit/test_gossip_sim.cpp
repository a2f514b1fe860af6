// Gossip simulator (docs/math.md §6.1-6.3, 2.4): Monte Carlo means against closed forms, invariants of every
// protocol, the randomness layout and reproducibility across threads and batch sizes.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

/// An irregular connected graph (degrees 1 to 4), so that W-MH has unequal weights.
Graph small_graph() {
  const std::pair<node_t, node_t> edges[] = {{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}, {2, 6}};
  return graph_from_edges(7, edges);
}

using testing::cpu_gossip_params;
using testing::Dense;
using testing::dense_identity;
using testing::dense_product;

double frobenius2(const Dense& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return s;
}

/// With x = 0, e(t) = (1/n) E||M_t eta||^2 = (D sigma^2 / n) ||M_t||_F^2 and the error to the noisy average
/// is (D sigma^2 / n)(||M_t||_F^2 - 1) (M_t doubly stochastic: M_t J/n = J/n). Every t within 4 stderr.
void expect_zero_init_matches(const GossipSimResult& r, const std::vector<Dense>& m, int dim, double sigma,
                              std::size_t n) {
  for (std::size_t t = 0; t < m.size(); ++t) {
    const double f2 = frobenius2(m[t]);
    const double expected = dim * sigma * sigma / double(n) * f2;
    EXPECT_NEAR(r.mean[t], expected, 4 * r.std_error[t]) << "t = " << t;
    const double expected_noisy = dim * sigma * sigma / double(n) * (f2 - 1);
    EXPECT_NEAR(r.noisy_mean[t], expected_noisy, 4 * r.noisy_std_error[t] + 1e-12) << "t = " << t;
  }
}

TEST(GossipSim, SyncZeroInitMatchesFrobeniusNormOfPowers) {
  const auto [g, w] = testing::with_metropolis(small_graph());
  auto p = cpu_gossip_params(GossipProtocol::sync, 12, 4000);
  p.dim = 2;
  p.sigma = 1.5;
  p.seed = 11;
  std::vector<double> x(g.n * 2, 0.0);
  auto r = gossip_sim(g, w, x, p);
  ASSERT_EQ(r.t.size(), 13u);
  const std::size_t n = g.n;
  std::vector<Dense> powers{dense_identity(n)};
  for (int t = 1; t <= 12; ++t) powers.push_back(dense_product(to_dense(w), powers.back(), n));
  expect_zero_init_matches(r, powers, 2, 1.5, n);
}

TEST(GossipSim, AcceleratedZeroInitMatchesChebyshevPolynomial) {
  const auto [g, w] = testing::with_metropolis(small_graph());
  auto p = cpu_gossip_params(GossipProtocol::accelerated, 10, 4000);
  p.sigma = 2.0;
  p.seed = 5;
  std::vector<double> x(g.n, 0.0);
  auto r = gossip_sim(g, w, x, p);
  const double gamma = chebyshev_gamma(spectral_summary(w).gap(GapDefinition::second));
  EXPECT_DOUBLE_EQ(r.gamma, gamma);
  // P_0 = I, P_1 = W, P_{t+1} = gamma W P_t + (1 - gamma) P_{t-1} (docs/math.md §2.4).
  const std::size_t n = g.n;
  const Dense wd = to_dense(w);
  std::vector<Dense> poly{dense_identity(n), wd};
  for (int t = 2; t <= 10; ++t) {
    Dense next = dense_product(wd, poly[t - 1], n);
    for (std::size_t i = 0; i < next.size(); ++i) next[i] = gamma * next[i] + (1 - gamma) * poly[t - 2][i];
    poly.push_back(next);
  }
  expect_zero_init_matches(r, poly, 1, 2.0, n);
}

/// The node average (1/n) sum_v x_v of a state, per coordinate.
std::vector<double> average(const std::vector<double>& state, int dim) {
  std::vector<double> a(dim, 0.0);
  const std::size_t n = state.size() / dim;
  for (std::size_t v = 0; v < n; ++v)
    for (int k = 0; k < dim; ++k) a[k] += state[v * dim + k] / double(n);
  return a;
}

TEST(GossipSim, DoublyStochasticStepsPreserveTheNoisyAverage) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(30, 0.2, 4));
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated, GossipProtocol::er_per_round,
                        GossipProtocol::dropout, GossipProtocol::randomized}) {
    auto p = cpu_gossip_params(protocol, protocol == GossipProtocol::randomized ? 2000 : 25, 3);
    p.dim = 3;
    p.init.kind = InitKind::normal;
    p.edge_probability = 0.25;
    p.dropout = 0.4;
    p.seed = 9;
    auto x = initial_values(g.n, p);
    auto states = gossip_sim_trajectory(g, w, x, p, 2);
    ASSERT_EQ(states.size(), std::size_t(p.steps) + 1);
    const auto start = average(states[0], 3);
    for (std::size_t t = 0; t < states.size(); ++t) {
      const auto now = average(states[t], 3);
      // Randomized gossip preserves the sum, n times the average: the same check.
      for (int k = 0; k < 3; ++k)
        ASSERT_NEAR(now[k], start[k], 1e-12) << to_string(protocol) << " t = " << t << " k = " << k;
    }
    // And the error to the noisy average goes down: gossip mixes.
    const auto r = gossip_sim(g, w, x, p);
    EXPECT_LT(r.noisy_mean.back(), r.noisy_mean.front()) << to_string(protocol);
  }
}

TEST(GossipSim, NoiseFollowsTheDocumentedStreamLayout) {
  const auto [g, w] = testing::with_metropolis(small_graph());
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::dropout}) {
    auto p = cpu_gossip_params(protocol, 1, 5);
    p.dim = 3;
    p.sigma = 0.7;
    p.seed = 0x1234567890abcdefULL;
    p.init.kind = InitKind::uniform;
    auto x = initial_values(g.n, p);
    // init: uniform double i at offset 2 i of (kind 1, run 0, round 0).
    PhiloxStream init(p.seed, std::uint64_t{1} << 56, 2 * 13);
    EXPECT_EQ(x[13], init.next_uniform_double());
    const std::int64_t run = 4;
    auto x0 = gossip_sim_trajectory(g, w, x, p, run)[0];
    for (std::size_t i = 0; i < x0.size(); ++i) {
      PhiloxStream s(p.seed, std::uint64_t{2} << 56 | std::uint64_t(run) << 24, 4 * (i / 2));
      auto [z0, z1] = s.next_normal_pair();
      EXPECT_EQ(x0[i], x[i] + p.sigma * (i % 2 == 0 ? z0 : z1)) << to_string(protocol) << " i = " << i;
    }
  }
}

TEST(GossipSim, SyncTrajectoryIsPowersOfW) {
  const auto [g, w] = testing::with_metropolis(small_graph());
  auto p = cpu_gossip_params(GossipProtocol::sync, 6, 2);
  p.dim = 10;  // two panels of 8 columns, the second one short
  p.init.kind = InitKind::normal;
  auto x = initial_values(g.n, p);
  auto states = gossip_sim_trajectory(g, w, x, p, 1);
  const Dense wd = to_dense(w);
  std::vector<double> expected = states[0];
  for (int t = 1; t <= 6; ++t) {
    std::vector<double> next(expected.size(), 0.0);
    for (node_t i = 0; i < g.n; ++i)
      for (node_t j = 0; j < g.n; ++j)
        for (int k = 0; k < 10; ++k) next[i * 10 + k] += wd[i * g.n + j] * expected[j * 10 + k];
    expected = next;
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(states[t][i], expected[i], 1e-13);
  }
}

TEST(GossipSim, SameSeedSameResultsForThreadsAndBatches) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(40, 0.15, 2));
  const int threads = omp_get_max_threads();
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated, GossipProtocol::randomized,
                        GossipProtocol::er_per_round, GossipProtocol::dropout}) {
    auto p = cpu_gossip_params(protocol, protocol == GossipProtocol::randomized ? 500 : 15, 13);
    p.dim = 3;  // 39 columns: panels straddle runs, the last one is short
    p.init.kind = InitKind::normal;
    p.edge_probability = 0.2;
    p.dropout = 0.3;
    p.seed = 21;
    p.record_every = 2;
    auto x = initial_values(g.n, p);
    omp_set_num_threads(1);
    p.batch_runs = 1;
    auto one = gossip_sim(g, w, x, p);
    omp_set_num_threads(2);
    p.batch_runs = 13;
    auto two = gossip_sim(g, w, x, p);
    p.batch_runs = 5;
    auto mixed = gossip_sim(g, w, x, p);
    EXPECT_EQ(one.t, two.t);
    EXPECT_EQ(one.mean, two.mean) << to_string(protocol);
    EXPECT_EQ(one.std_error, two.std_error) << to_string(protocol);
    EXPECT_EQ(one.noisy_mean, two.noisy_mean) << to_string(protocol);
    EXPECT_EQ(one.mean, mixed.mean) << to_string(protocol);
    EXPECT_EQ(one.noisy_std_error, mixed.noisy_std_error) << to_string(protocol);
    p.seed = 22;
    EXPECT_NE(one.mean, gossip_sim(g, w, x, p).mean) << to_string(protocol);
  }
  omp_set_num_threads(threads);
}

TEST(GossipSim, OneRunReportsItsOwnError) {
  const auto [g, w] = testing::with_metropolis(small_graph());
  for (auto protocol : {GossipProtocol::accelerated, GossipProtocol::er_per_round}) {
    auto p = cpu_gossip_params(protocol, 8, 1);
    p.init.kind = InitKind::normal;
    p.edge_probability = 0.6;
    auto x = initial_values(g.n, p);
    auto r = gossip_sim(g, w, x, p);
    auto states = gossip_sim_trajectory(g, w, x, p, 0);
    const auto xbar = average(x, 1), noisy = average(states[0], 1);
    for (std::size_t t = 0; t < states.size(); ++t) {
      double e = 0, en = 0;
      for (double value : states[t]) {
        e += (value - xbar[0]) * (value - xbar[0]) / g.n;
        en += (value - noisy[0]) * (value - noisy[0]) / g.n;
      }
      EXPECT_NEAR(r.mean[t], e, 1e-13 * (1 + e));
      EXPECT_NEAR(r.noisy_mean[t], en, 1e-13 * (1 + en));
      EXPECT_TRUE(std::isnan(r.std_error[t]));  // one run: no spread to estimate
    }
  }
}

TEST(GossipSim, MonteCarloStaysUnderTheBounds) {
  const auto [g, w] = testing::with_metropolis(hypercube_graph(4));
  const double gap = spectral_summary(w).gap(GapDefinition::absolute);
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated, GossipProtocol::randomized}) {
    auto p = cpu_gossip_params(protocol, protocol == GossipProtocol::randomized ? 600 : 30, 400);
    p.init.kind = InitKind::uniform;
    p.sigma = 0.3;
    p.record_every = protocol == GossipProtocol::randomized ? 20 : 1;
    auto x = initial_values(g.n, p);
    auto r = gossip_sim(g, w, x, p);
    GossipBoundInputs in{protocol, g.n, 1, p.sigma, r.initial_spread, gap};
    for (std::size_t i = 0; i < r.t.size(); ++i)
      EXPECT_LE(r.mean[i], gossip_sim_bound(in, r.t[i]) + 4 * r.std_error[i])
          << to_string(protocol) << " t = " << r.t[i];
  }
}

TEST(GossipSim, TheoryHelpers) {
  GossipBoundInputs in{GossipProtocol::accelerated, 100, 2, 0.5, 0.3, 0.04};
  EXPECT_DOUBLE_EQ(gossip_sim_bound(in, 0), 2 * (0.3 + 0.5) + 2 * 0.5 / 100);
  EXPECT_DOUBLE_EQ(gossip_sim_bound(in, 10), 2 * (0.8 * std::exp(-10 * 0.2) + 0.005));
  // T_stop = ceil(ln((n / (D sigma^2)) max(D sigma^2, S)) / sqrt(gap)) = ceil(ln(100) / 0.2) = 24.
  EXPECT_EQ(gossip_sim_stopping_time(in), 24);
  in.protocol = GossipProtocol::randomized;  // lambda(p) = 2 gap / n = 8e-4
  EXPECT_EQ(gossip_sim_stopping_time(in), int(std::ceil(std::log(100.0) / 8e-4)));
  in.protocol = GossipProtocol::dropout;
  EXPECT_TRUE(std::isnan(gossip_sim_bound(in, 3)));
  EXPECT_THROW(gossip_sim_stopping_time(in), InvalidInput);
  in.protocol = GossipProtocol::sync;
  in.sigma = 0;
  EXPECT_THROW(gossip_sim_stopping_time(in), InvalidInput);
}

TEST(GossipSim, BadInput) {
  const auto [g, w] = testing::with_metropolis(small_graph());
  std::vector<double> x(g.n, 0.0);
  auto p = cpu_gossip_params(GossipProtocol::sync, 5, 10);
  auto expect_bad = [&](auto change) {
    auto q = p;
    change(q);
    EXPECT_THROW(gossip_sim(g, w, std::vector<double>(g.n * q.dim, 0.0), q), InvalidInput);
  };
  expect_bad([](GossipSimParams& q) { q.runs = 0; });
  expect_bad([](GossipSimParams& q) { q.dim = 0; });
  expect_bad([](GossipSimParams& q) { q.sigma = -1; });
  expect_bad([](GossipSimParams& q) { q.steps = 0; });
  expect_bad([](GossipSimParams& q) { q.dropout = 1.5; });
  expect_bad([](GossipSimParams& q) { q.edge_probability = -0.1; });
  expect_bad([](GossipSimParams& q) { q.record_every = 0; });
  expect_bad([](GossipSimParams& q) { q.memory_limit = 1000; });  // not even one run fits
  p.device = {DeviceKind::cuda, 0};
  if (cuda_device_count() == 0) {
    EXPECT_THROW(gossip_sim(g, w, x, p), DeviceUnavailable);
  }
  p.protocol = GossipProtocol::sync;
  p.device = {DeviceKind::cpu, 0};
  p.sigma = 0;  // allowed: no noise, x^0 = x
  EXPECT_EQ(gossip_sim(g, w, x, p).mean.back(), 0.0);
  EXPECT_THROW(gossip_sim(g, w, std::vector<double>(3, 0.0), p), InvalidInput);
  EXPECT_THROW(gossip_sim(g, gossip_matrix(g, Weighting::lazy_uniform), x, p),
               InvalidInput);  // not symmetric
  p.memory_limit = 1000;
  EXPECT_THROW(gossip_sim(g, w, x, p), InsufficientMemory);
  EXPECT_THROW(parse_gossip_protocol("push-sum"), InvalidInput);
  EXPECT_THROW(parse_init_spec("gaussian"), InvalidInput);
  EXPECT_EQ(parse_init_spec("file:a.txt").path, "a.txt");
}

}  // namespace
}  // namespace netdp
