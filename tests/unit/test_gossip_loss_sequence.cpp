// Time-varying gossip accountant (docs/math.md §6.1, 6.3-6.5) against the fixed-W accountant, an independent
// dense implementation of Theorem 6.1 / C.9, hand calculations and the mean-loss identity (eq. 6.4).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "support/gossip_schedules.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using testing::add_gossip_messages;
using testing::constant_schedule;
using testing::Dense;
using testing::dense_identity;
using testing::dense_product;
using testing::randomized;
using testing::synchronous;

/// Theorem 6.1's accounting, pinned: these tests check (M1) itself (the exact default:
/// test_gossip_view_sequence).
GossipLossParams params(int t_start = 0, bool cap = false) {
  return {.accounting = GossipAccounting::theorem,
          .alpha = 3,
          .sigma = 1.5,
          .sensitivity = 0.8,
          .t_start = t_start,
          .cap_ldp = cap,
          .source = std::nullopt,  // every source's row
          .device = {DeviceKind::cpu, 0}};
}

/// One round of the oracle: a dense W_t and its communication graph E_t. Randomized ticks become
/// W_t = I - (e_v - e_w)(e_v - e_w)^T / 2 with E_t = {{v, w}} (docs/math.md §6.3).
struct DenseRound {
  Dense w;
  Graph graph;
};

std::vector<DenseRound> dense_rounds(const GossipSchedule& s) {
  std::vector<DenseRound> out;
  const std::size_t n = s.n;
  for (int t = 0; t < s.steps; ++t) {
    if (!s.randomized()) {
      out.push_back({to_dense(s.round(t).w), s.round(t).graph});
      continue;
    }
    auto [v, w] = s.activations[t];
    Dense m = dense_identity(n);
    std::vector<std::pair<node_t, node_t>> edges;
    if (v != w) {
      m[v * n + v] = m[w * n + w] = m[v * n + w] = m[w * n + v] = 0.5;
      edges.push_back({v, w});
    }
    out.push_back({m, graph_from_edges(s.n, edges)});
  }
  return out;
}

/// Theorem 6.1 (M1), row-w orientation, with explicit products W_{0:t}; uncapped, diagonal included.
Dense oracle_m1(const GossipSchedule& s, const GossipLossParams& p) {
  const std::size_t n = s.n;
  auto rounds = dense_rounds(s);
  Dense product = dense_identity(n), f(n * n, 0.0);
  for (int t = 0; t < s.steps; ++t) {
    if (t >= p.t_start) add_gossip_messages(product, rounds[t].graph, gossip_ldp_loss(p), f);
    product = dense_product(rounds[t].w, product, n);
  }
  return f;
}

/// Theorem C.9 with every Q_{t,j,k} = W_j^k W_{j-1}^K ... W_t^K built from scratch; uncapped.
Dense oracle_c9(const GossipSchedule& s, int K, const GossipLossParams& p) {
  const std::size_t n = s.n;
  auto rounds = dense_rounds(s);
  Dense f(n * n, 0.0);
  for (int t = 0; t < s.steps; ++t)
    for (int j = t; j < s.steps; ++j)
      for (int k = 0; k < K; ++k) {
        Dense q = dense_identity(n);
        for (int i = t; i < j; ++i)
          for (int r = 0; r < K; ++r) q = dense_product(rounds[i].w, q, n);
        for (int r = 0; r < k; ++r) q = dense_product(rounds[j].w, q, n);
        add_gossip_messages(q, rounds[j].graph, gossip_ldp_loss(p), f);
      }
  return f;
}

void expect_close(double expected, double actual, double rel) {
  EXPECT_NEAR(expected, actual, rel * std::max(1.0, std::fabs(expected)));
}

/// Off-diagonal entries of `oracle` (capped at `cap` when > 0) against `f`, whose diagonal must be 0.
void expect_matches(const Dense& oracle, const Dense& f, std::size_t n, double cap = 0) {
  ASSERT_EQ(f.size(), n * n);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      if (u == v) {
        EXPECT_EQ(f[u * n + v], 0.0);
        continue;
      }
      const double expected = cap > 0 ? std::min(oracle[u * n + v], cap) : oracle[u * n + v];
      expect_close(expected, f[u * n + v], 1e-12);
    }
}

std::vector<Graph> varying_graphs(node_t n) {
  // Different random graphs per round, two of them with isolated nodes (dropout-like, W_uu = 1).
  return {erdos_renyi_graph(n, 0.15, 1), erdos_renyi_graph(n, 0.1, 2, false), erdos_renyi_graph(n, 0.25, 3),
          erdos_renyi_graph(n, 0.08, 4, false)};
}

std::vector<std::pair<node_t, node_t>> random_activations(node_t n, int steps, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<node_t> node(0, n - 1);
  std::vector<std::pair<node_t, node_t>> a;
  for (int t = 0; t < steps; ++t) a.push_back({node(rng), node(rng)});  // v == w: an idle tick
  return a;
}

TEST(GossipLossSequence, ConstantScheduleEqualsFixedAccountant) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(40, 0.12, seed));
    for (int t_start : {0, 1})
      for (bool cap : {false, true}) {
        auto p = params(t_start, cap);
        p.steps = 6;
        auto fixed = gossip_loss_matrix(g, w, p);
        // T + t_start rounds: messages at t = t_start .. T + t_start - 1, like the fixed accountant's window.
        auto constant = gossip_loss_sequence_matrix(constant_schedule(g, 6 + t_start), p);
        auto copies = gossip_loss_sequence_matrix(synchronous(std::vector<Graph>(6 + t_start, g)), p);
        for (std::size_t i = 0; i < fixed.size(); ++i) {
          expect_close(fixed[i], constant[i], 1e-12);
          EXPECT_EQ(constant[i], copies[i]);
        }
      }
  }
}

TEST(GossipLossSequence, MatchesDenseOracleOnTimeVaryingSchedule) {
  auto graphs = varying_graphs(25);
  graphs.push_back(graphs[1]);  // revisit a graph: W_{0:t} is no power of any one matrix
  graphs.push_back(graphs[0]);
  auto s = synchronous(graphs);
  for (int t_start : {0, 1}) {
    auto p = params(t_start);
    auto oracle = oracle_m1(s, p);
    expect_matches(oracle, gossip_loss_sequence_matrix(s, p), 25);
    p.cap_ldp = true;
    expect_matches(oracle, gossip_loss_sequence_matrix(s, p), 25, gossip_ldp_loss(p));
  }
}

TEST(GossipLossSequence, RandomizedMatchesDenseOracle) {
  auto s = randomized(15, random_activations(15, 80, 7));
  for (int t_start : {0, 1}) {
    auto p = params(t_start);
    expect_matches(oracle_m1(s, p), gossip_loss_sequence_matrix(s, p), 15);
  }
  // The same ticks written as a synchronous schedule of one-edge rounds take the other code path.
  GossipSchedule rounds;
  rounds.n = 15;
  rounds.steps = s.steps;
  for (auto [v, w] : s.activations) {
    std::vector<std::pair<node_t, node_t>> edge;
    std::vector<Triplet> entries;
    for (node_t i = 0; i < 15; ++i)
      if (v == w || (i != v && i != w)) entries.push_back({i, i, 1.0});
    if (v != w) {
      edge.push_back({v, w});
      for (node_t a : {v, w})
        for (node_t b : {v, w}) entries.push_back({a, b, 0.5});
    }
    rounds.rounds.push_back({csr_from_triplets(15, entries), graph_from_edges(15, edge)});
  }
  auto a = gossip_loss_sequence_matrix(s, params());
  auto b = gossip_loss_sequence_matrix(rounds, params());
  for (std::size_t i = 0; i < a.size(); ++i) expect_close(a[i], b[i], 1e-12);
}

TEST(GossipLossSequence, RandomizedThreeNodesByHand) {
  // scale = 1. Tick 0, edge {0,1}: P = I, node 0 receives e_1, node 1 receives e_0:
  //   f(1,0) += 1, f(0,1) += 1. Then rows 0, 1 of P become (1/2, 1/2, 0) (norm 1/2).
  // Tick 1, edge {1,2}: node 1 receives row 2 = e_2: f(2,1) += 1; node 2 receives (1/2, 1/2, 0) / (1/2):
  //   f(0,2) += (1/4)/(1/2) = 1/2, f(1,2) += 1/2. Then rows 1, 2 become (1/4, 1/4, 1/2) (norm 3/8).
  // Tick 2 idle. Tick 3, edge {0,2}: node 0 receives (1/4, 1/4, 1/2) / (3/8): f(1,0) += (1/16)/(3/8) = 1/6,
  //   f(2,0) += (1/4)/(3/8) = 2/3; node 2 receives (1/2, 1/2, 0) / (1/2): f(0,2) += 1/2, f(1,2) += 1/2.
  GossipLossParams p = params();
  p.alpha = 2;
  p.sigma = 1;
  p.sensitivity = 1;
  auto two = gossip_loss_sequence_matrix(randomized(3, {{0, 1}, {1, 2}}), p);
  const Dense after_two = {0, 1, 0.5, 1, 0, 0.5, 0, 1, 0};
  for (std::size_t i = 0; i < 9; ++i) EXPECT_DOUBLE_EQ(after_two[i], two[i]) << i;
  auto four = gossip_loss_sequence_matrix(randomized(3, {{0, 1}, {1, 2}, {2, 2}, {2, 0}}), p);
  const Dense after_four = {0, 1, 1, 7.0 / 6.0, 0, 1, 2.0 / 3.0, 1, 0};
  for (std::size_t i = 0; i < 9; ++i) EXPECT_DOUBLE_EQ(after_four[i], four[i]) << i;
  p.t_start = 1;  // without tick 0
  auto late = gossip_loss_sequence_matrix(randomized(3, {{0, 1}, {1, 2}}), p);
  const Dense after_two_late = {0, 0, 0.5, 0, 0, 0.5, 0, 1, 0};
  for (std::size_t i = 0; i < 9; ++i) EXPECT_DOUBLE_EQ(after_two_late[i], late[i]) << i;
  p.t_start = 0;
  p.cap_ldp = true;
  EXPECT_DOUBLE_EQ(gossip_loss_sequence_matrix(randomized(3, {{0, 1}, {1, 2}, {2, 2}, {2, 0}}), p)[3], 1.0);
  EXPECT_EQ(gossip_communications(randomized(3, {{0, 1}, {1, 2}, {2, 2}, {2, 0}})),
            (std::vector<std::int64_t>{2, 2, 2}));
}

TEST(GossipLossSequence, ColumnSumsEqualScaleTimesCommunications) {
  // sum_u f(u, v), u = v included, = scale sum_w sum_{t in P_{v,w}} 1 = scale T_v (eq. 6.4 with equality).
  const std::vector<GossipSchedule> schedules = {synchronous(varying_graphs(20)),
                                                 randomized(20, random_activations(20, 150, 3))};
  for (const auto& s : schedules)
    for (int t_start : {0, 1}) {
      auto p = params(t_start);
      auto oracle = oracle_m1(s, p);
      auto f = gossip_loss_sequence_matrix(s, p);
      auto comms = gossip_communications(s, t_start);
      const std::size_t n = s.n;
      for (std::size_t v = 0; v < n; ++v) {
        double column = oracle[v * n + v], off = 0;
        for (std::size_t u = 0; u < n; ++u)
          if (u != v) off += f[u * n + v];
        column += off;
        expect_close(gossip_ldp_loss(p) * double(comms[v]), column, 1e-12);
        const double bound = gossip_mean_loss_bound(comms[v], s.n, p);
        EXPECT_LE(off / double(n), bound * (1 + 1e-12));
        expect_close(bound, column / double(n), 1e-12);
      }
    }
  // T_v of a constant schedule: (T - t_start) d_v.
  Graph g = ring_graph(7);
  auto comms = gossip_communications(constant_schedule(g, 5), 1);
  for (node_t v = 0; v < 7; ++v) EXPECT_EQ(comms[v], 4 * 2);
}

TEST(GossipLossSequence, SourceRowsAndThreadCountGiveIdenticalValues) {
  const std::vector<GossipSchedule> schedules = {synchronous(varying_graphs(30)),
                                                 randomized(30, random_activations(30, 200, 9))};
  for (const auto& s : schedules) {
    auto p = params(0, true);
    auto whole = gossip_loss_sequence_matrix(s, p);
    for (node_t u : {0, 17, 29}) {
      p.source = u;
      auto row = gossip_loss_sequence_matrix(s, p);
      ASSERT_EQ(row.size(), 30u);
      for (std::size_t v = 0; v < 30; ++v) EXPECT_EQ(whole[u * 30 + v], row[v]);
    }
    p.source.reset();
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    auto single = gossip_loss_sequence_matrix(s, p);
    omp_set_num_threads(threads);
    EXPECT_EQ(whole, single);
  }
}

TEST(GossipLossSequence, MemoryLimitIsCheckedBeforeAllocating) {
  auto s = synchronous(varying_graphs(50));
  auto p = params();
  p.memory_limit = 1000;
  EXPECT_THROW(gossip_loss_sequence_matrix(s, p), InsufficientMemory);
  p.memory_limit = 1 << 20;
  GossipLossRun run;
  gossip_loss_sequence_matrix(s, p, &run);
  EXPECT_EQ(run.propagation, "dense-product");
  EXPECT_EQ(run.memory_estimate, 8 * (2 * 50 * 50 + 50 * 50 + 50 + 50 * 50));
}

TEST(ErGossipBound, ClosedForms) {
  // Theorem 6.6, n = 100, T = 10, d_v = 5, alpha = 2, sigma = Delta = 1: LDP level 1; non-neighbour
  // (2 / 1) * 10 * 5 / 95 = 100/95; sigma^2 = 1 >= alpha (alpha - 1)/2 = 1: valid.
  auto b = er_gossip_loss_bound(100, 0.05, 10, 5, 2.0, 1.0, 1.0, false);
  EXPECT_DOUBLE_EQ(b.value, 100.0 / 95.0);
  EXPECT_DOUBLE_EQ(b.probability, 0.95);
  EXPECT_TRUE(b.valid);
  b = er_gossip_loss_bound(100, 0.05, 10, 5, 2.0, 1.0, 1.0, true);
  EXPECT_DOUBLE_EQ(b.value, 1.0);
  EXPECT_DOUBLE_EQ(b.probability, 0.05);
  // alpha = 3, sigma = 2, Delta = 3: LDP 3 * 9 / 8 = 27/8; 2 * 27/8 * 4 * 9 / 41 = 243/41;
  // condition 4 >= 9 * 3 * 2 / 2 = 27 fails.
  b = er_gossip_loss_bound(50, 0.1, 4, 9, 3.0, 2.0, 3.0, false);
  EXPECT_DOUBLE_EQ(b.value, 243.0 / 41.0);
  EXPECT_FALSE(b.valid);
  EXPECT_DOUBLE_EQ(er_gossip_loss_bound(50, 0.1, 4, 9, 3.0, 2.0, 3.0, true).value, 27.0 / 8.0);
  // Reference code: d = 5 + 2 = 7; T = 1: min(2 * 1 * 7/93, 1) = 14/93; T = 10: capped at 1.
  const auto code = ErBoundVariant::reference_code;
  EXPECT_DOUBLE_EQ(er_gossip_loss_bound(100, 0.05, 1, 5, 2.0, 1.0, 1.0, false, code).value, 14.0 / 93.0);
  EXPECT_DOUBLE_EQ(er_gossip_loss_bound(100, 0.05, 10, 5, 2.0, 1.0, 1.0, false, code).value, 1.0);
  EXPECT_DOUBLE_EQ(er_gossip_loss_bound(10, 0.5, 1, 9, 2.0, 1.0, 1.0, false, code).value, 1.0);  // d >= n
}

TEST(MuffliatoSgd, Theorem69IsTSquaredTimesTheFixedAccountant) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(30, 0.15, 5));
  auto p = params(1);  // t_start is ignored: Theorem 6.9 starts at W^0
  p.steps = 3;         // K
  auto fixed_p = params(0);
  fixed_p.steps = 3;
  auto fixed = gossip_loss_matrix(g, w, fixed_p);
  auto sgd = muffliato_sgd_loss_matrix(g, w, p, 5);
  for (std::size_t i = 0; i < fixed.size(); ++i) EXPECT_EQ(sgd[i], fixed[i] * 25.0);
  p.cap_ldp = true;
  auto capped = muffliato_sgd_loss_matrix(g, w, p, 5);
  int at_cap = 0;
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    EXPECT_EQ(capped[i], std::min(fixed[i] * 25.0, 5 * gossip_ldp_loss(p)));
    at_cap += capped[i] == 5 * gossip_ldp_loss(p);
  }
  EXPECT_GT(at_cap, 0);
}

TEST(MuffliatoSgd, TheoremC9ByHand) {
  // K2 with metropolis: W = J/2, so Q = I (share 1 to the neighbour) or J/2 (share (1/4)/(1/2) = 1/2).
  // K = 1, T = 3: Q_{t,j,0} = W^{j-t}: t = 0: 1 + 1/2 + 1/2, t = 1: 1 + 1/2, t = 2: 1  -> 4.5.
  // K = 2, T = 2: t = 0: j = 0: I, W; j = 1: W^2, W^3 -> 1 + 3/2; t = 1: I, W -> 1 + 1/2  -> 4.
  Graph k2 = path_graph(2);
  auto p = params();
  p.alpha = 2;
  p.sigma = 1;
  p.sensitivity = 1;
  EXPECT_DOUBLE_EQ(muffliato_sgd_loss_sequence_matrix(constant_schedule(k2, 3), 1, p)[1], 4.5);
  EXPECT_DOUBLE_EQ(muffliato_sgd_loss_sequence_matrix(constant_schedule(k2, 2), 2, p)[2], 4.0);
  // Round 0 on K2, round 1 with no edge (W = I), K = 2: only round 0 talks, to the gradient of t = 0:
  // I then W -> 1.5.
  auto s = synchronous({k2, graph_from_edges(2, {})});
  auto f = muffliato_sgd_loss_sequence_matrix(s, 2, p);
  EXPECT_DOUBLE_EQ(f[1], 1.5);
  EXPECT_DOUBLE_EQ(f[2], 1.5);
  p.cap_ldp = true;  // cap T * LDP = 2
  EXPECT_DOUBLE_EQ(muffliato_sgd_loss_sequence_matrix(constant_schedule(k2, 2), 2, p)[1], 2.0);
}

TEST(MuffliatoSgd, TheoremC9WithConstantWIsAWeightedFixedSum) {
  // Q_{t,j,k} = W^{(j-t)K+k}: power s is counted T - floor(s/K) times, so C.9 = sum_{m=1}^{T} fixed(m K).
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(20, 0.2, 8));
  const int T = 4;
  for (int K : {1, 3}) {
    auto expected = Dense(400, 0.0);
    for (int m = 1; m <= T; ++m) {
      auto p = params();
      p.steps = m * K;
      auto fixed = gossip_loss_matrix(g, w, p);
      for (std::size_t i = 0; i < 400; ++i) expected[i] += fixed[i];
    }
    auto f = muffliato_sgd_loss_sequence_matrix(constant_schedule(g, T), K, params());
    for (std::size_t i = 0; i < 400; ++i) expect_close(expected[i], f[i], 1e-12);
  }
}

TEST(MuffliatoSgd, TheoremC9MatchesDenseOracle) {
  auto s = synchronous(varying_graphs(12));
  for (int K : {1, 2}) {
    auto p = params();
    expect_matches(oracle_c9(s, K, p), muffliato_sgd_loss_sequence_matrix(s, K, p), 12);
  }
}

TEST(GossipLossSequence, BadInput) {
  auto good = synchronous(varying_graphs(10));
  auto p = params();
  auto expect_bad = [&](GossipSchedule s) {
    EXPECT_THROW(gossip_loss_sequence_matrix(s, p), InvalidInput);
    EXPECT_THROW(validate(s), InvalidInput);
  };
  auto s = good;
  s.steps = 5;  // 4 rounds
  expect_bad(s);
  s = good;
  s.constant = true;  // a constant schedule stores one round
  expect_bad(s);
  s = good;
  s.steps = 0;
  s.rounds.clear();
  expect_bad(s);
  s = good;
  s.rounds[2].w = gossip_matrix(ring_graph(11), Weighting::metropolis);  // W does not match the graph's n
  expect_bad(s);
  s = good;
  s.rounds[1].graph = ring_graph(11);
  expect_bad(s);
  s = good;
  s.rounds[3].w.values[0] += 0.1;  // not stochastic
  expect_bad(s);
  s = good;
  s.rounds[0].w = gossip_matrix(complete_graph(10), Weighting::metropolis);  // support off E_0
  expect_bad(s);
  expect_bad(randomized(4, {{0, 1}, {2, 4}}));
  s = randomized(4, {{0, 1}, {2, 3}});
  s.steps = 3;
  expect_bad(s);
  s = randomized(4, {{0, 1}});
  s.rounds = good.rounds;
  expect_bad(s);

  p.alpha = 1.0;
  EXPECT_THROW(gossip_loss_sequence_matrix(good, p), InvalidInput);
  p = params();
  p.sigma = 0;
  EXPECT_THROW(gossip_loss_sequence_matrix(good, p), InvalidInput);
  p = params();
  p.source = 10;
  EXPECT_THROW(gossip_loss_sequence_matrix(good, p), InvalidInput);
  p = params();
  EXPECT_THROW(muffliato_sgd_loss_sequence_matrix(good, 0, p), InvalidInput);
  EXPECT_THROW(muffliato_sgd_loss_sequence_matrix(randomized(4, {{0, 1}}), 1, p), InvalidInput);
  EXPECT_THROW(muffliato_sgd_loss_matrix(good.rounds[0].graph, good.rounds[0].w, p, 0), InvalidInput);

  EXPECT_THROW(er_gossip_loss_bound(1, 0.5, 1, 0, 2, 1, 1, false), InvalidInput);
  EXPECT_THROW(er_gossip_loss_bound(10, 1.5, 1, 0, 2, 1, 1, false), InvalidInput);
  EXPECT_THROW(er_gossip_loss_bound(10, 0.5, 0, 0, 2, 1, 1, false), InvalidInput);
  EXPECT_THROW(er_gossip_loss_bound(10, 0.5, 1, 10, 2, 1, 1, false), InvalidInput);
  EXPECT_THROW(er_gossip_loss_bound(10, 0.5, 1, 3, 1, 1, 1, false), InvalidInput);
  EXPECT_THROW(er_gossip_loss_bound(10, 0.5, 1, 3, 2, -1, 1, false), InvalidInput);
}

}  // namespace
}  // namespace netdp
