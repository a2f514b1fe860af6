// Schedules of the gossip simulator (docs/math.md §6.3, 6.4, 6.8): each is what it claims, with fixed seeds and
// statistical checks at significance 0.001 (chi-square) or 4.5 standard deviations.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

GossipSimParams params(GossipProtocol protocol, int steps, std::uint64_t seed) {
  GossipSimParams p = testing::cpu_gossip_params(protocol, steps, 8);
  p.seed = seed;
  return p;
}

void expect_metropolis_on(const GossipRound& r) {
  validate(r.graph);
  validate_gossip_matrix(r.w, r.graph);
  const CsrMatrix expected = gossip_matrix(r.graph, Weighting::metropolis);
  EXPECT_EQ(r.w.offsets, expected.offsets);
  EXPECT_EQ(r.w.columns, expected.columns);
  EXPECT_EQ(r.w.values, expected.values);
}

TEST(GossipSchedule, FixedProtocolsShareOneW) {
  Graph g = ring_graph(9);
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated}) {
    auto s = sample_gossip_schedule(g, params(protocol, 7, 1), 3);
    EXPECT_TRUE(s.constant);
    EXPECT_FALSE(s.randomized());
    EXPECT_EQ(s.steps, 7);
    EXPECT_EQ(s.round(6).w.values, gossip_matrix(g, Weighting::metropolis).values);
    EXPECT_EQ(s.round(6).graph.adjacency, g.adjacency);
  }
}

TEST(GossipSchedule, ErPerRoundIsAFreshConnectedGraphEveryRound) {
  const node_t n = 60;
  const double q = 2 * std::log(double(n)) / n;  // c = 2
  auto p = params(GossipProtocol::er_per_round, 40, 7);
  p.edge_probability = q;
  Graph g = complete_graph(n);  // only its n matters
  auto s = sample_gossip_schedule(g, p, 5);
  ASSERT_EQ(s.rounds.size(), 40u);
  EXPECT_FALSE(s.constant);
  double edges = 0;
  for (int t = 0; t < 40; ++t) {
    const auto& r = s.round(t);
    EXPECT_TRUE(is_connected(r.graph)) << "round " << t;
    expect_metropolis_on(r);
    if (t > 0) {
      EXPECT_NE(r.graph.adjacency, s.round(t - 1).graph.adjacency) << "round " << t;
    }
    edges += double(r.graph.num_edges());
  }
  // Total edges ~ Bin(40 N, q), N = n(n-1)/2 (conditioning on connectivity moves it by < 1%).
  const double trials = 40.0 * n * (n - 1) / 2;
  EXPECT_NEAR(edges, trials * q, 4.5 * std::sqrt(trials * q * (1 - q)));
  // The same (seed, run) gives the same schedule; another run another one.
  EXPECT_EQ(sample_gossip_schedule(g, p, 5).round(17).graph.adjacency, s.round(17).graph.adjacency);
  EXPECT_NE(sample_gossip_schedule(g, p, 6).round(17).graph.adjacency, s.round(17).graph.adjacency);
}

TEST(GossipSchedule, ErPairsAreEquallyLikely) {
  // G(40, 1/2) is connected with probability 1 - O(40 2^-39), so the pairs are independent fair coins: the
  // chi-square statistic of the 780 pair counts over 400 rounds has 780 degrees of freedom; its 0.999
  // quantile is about 908 (Wilson-Hilferty). The first and last pairs are checked alone (skip boundaries).
  const node_t n = 40;
  const int rounds = 400;
  auto p = params(GossipProtocol::er_per_round, rounds, 3);
  p.edge_probability = 0.5;
  auto s = sample_gossip_schedule(complete_graph(n), p, 0);
  std::map<std::pair<node_t, node_t>, int> count;
  for (int t = 0; t < rounds; ++t)
    for (node_t u = 0; u < n; ++u)
      for (node_t v : s.round(t).graph.neighbors(u))
        if (u < v) ++count[{u, v}];
  double chi2 = 0;
  const double expected = rounds * 0.5, variance = rounds * 0.25;
  for (node_t u = 0; u < n; ++u)
    for (node_t v = u + 1; v < n; ++v)
      chi2 += (count[{u, v}] - expected) * (count[{u, v}] - expected) / variance;
  EXPECT_LT(chi2, 908.0);
  const int first = count[{0, 1}], last = count[{n - 2, n - 1}];
  EXPECT_NEAR(first, expected, 4.5 * std::sqrt(variance));
  EXPECT_NEAR(last, expected, 4.5 * std::sqrt(variance));
  // q = 1: the complete graph every round; q = 0 cannot be connected.
  p.steps = 2;
  p.edge_probability = 1.0;
  EXPECT_EQ(sample_gossip_schedule(complete_graph(n), p, 1).round(1).graph.num_edges(), n * (n - 1) / 2);
  p.edge_probability = 0.0;
  EXPECT_THROW(sample_gossip_schedule(complete_graph(n), p, 1), InvalidInput);
}

TEST(GossipSchedule, DropoutRemovesAFractionQOfTheNodes) {
  // On K_n a node is isolated exactly when it dropped out (unless fewer than two stay, improbable here).
  const node_t n = 200;
  const int rounds = 50;
  const double q = 0.3;
  auto p = params(GossipProtocol::dropout, rounds, 12);
  p.dropout = q;
  Graph g = complete_graph(n);
  auto s = sample_gossip_schedule(g, p, 2);
  double dropped = 0;
  for (int t = 0; t < rounds; ++t) {
    const auto& r = s.round(t);
    expect_metropolis_on(r);
    node_t isolated = 0;
    for (node_t v = 0; v < n; ++v) {
      if (r.graph.degree(v) == 0) {
        ++isolated;
        EXPECT_EQ(r.w.at(v, v), 1.0);  // isolated nodes keep their value
      }
    }
    for (node_t v = 0; v < n; ++v)  // who stays talks to everyone who stays
      if (r.graph.degree(v) > 0) {
        EXPECT_EQ(r.graph.degree(v), n - 1 - isolated);
      }
    dropped += isolated;
  }
  const double trials = double(n) * rounds;
  EXPECT_NEAR(dropped, trials * q, 4.5 * std::sqrt(trials * q * (1 - q)));
  p.dropout = 0;
  EXPECT_EQ(sample_gossip_schedule(g, p, 2).round(9).graph.adjacency, g.adjacency);
  p.dropout = 1;
  EXPECT_EQ(sample_gossip_schedule(g, p, 2).round(9).graph.num_edges(), 0);
}

TEST(GossipSchedule, RandomizedActivationFrequenciesMatchTwoWOverN) {
  // Degrees 2, 2, 3, 2, 1: W-MH weights 1/3 and 1/4, p_e = 2 W_e / 5, idle with probability 1 - sum p_e.
  const std::pair<node_t, node_t> list[] = {{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}};
  const auto [g, w] = testing::with_metropolis(graph_from_edges(5, list));
  const int ticks = 200000;
  auto s = sample_gossip_schedule(g, w, params(GossipProtocol::randomized, ticks, 99), 1);
  ASSERT_TRUE(s.randomized());
  ASSERT_EQ(s.activations.size(), std::size_t(ticks));
  std::map<std::pair<node_t, node_t>, int> count;
  for (auto e : s.activations) ++count[e];
  std::map<std::pair<node_t, node_t>, double> p;
  double idle = 1;
  for (auto [u, v] : list) {
    p[{u, v}] = 2 * w.at(u, v) / 5;
    idle -= p[{u, v}];
  }
  EXPECT_NEAR(p.at(std::pair<node_t, node_t>(0, 1)), 2.0 / 15, 1e-15);
  EXPECT_NEAR(p.at(std::pair<node_t, node_t>(0, 2)), 0.1, 1e-15);
  p[{0, 0}] = idle;
  EXPECT_EQ(count.size(), p.size());  // only edges of g, and idle ticks
  // Chi-square with 6 cells, 5 degrees of freedom: the 0.999 quantile is 20.515.
  double chi2 = 0;
  for (auto [e, pe] : p) chi2 += (count[e] - ticks * pe) * (count[e] - ticks * pe) / (ticks * pe);
  EXPECT_LT(chi2, 20.515);
  auto again = sample_gossip_schedule(g, w, params(GossipProtocol::randomized, 1000, 99), 1);
  EXPECT_TRUE(std::equal(again.activations.begin(), again.activations.end(), s.activations.begin()));
}

TEST(GossipSchedule, BadRun) {
  Graph g = ring_graph(5);
  EXPECT_THROW(sample_gossip_schedule(g, params(GossipProtocol::sync, 3, 1), 8), InvalidInput);
  EXPECT_THROW(sample_gossip_schedule(g, params(GossipProtocol::sync, 3, 1), -1), InvalidInput);
}

}  // namespace
}  // namespace netdp
