// The thesis' dropout (docs/math.md §6.8, App C.8.6; protocol dropout-er): a fresh G(n, p) every round, not
// forced connected, then every node drops out with probability q and loses its edges for the round, W-MH on
// what remains. Expected values come from the layout of gossip_sim.hpp and binomial laws, not from the
// sampler.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

GossipSimParams params(double er_p, double q, int steps, std::uint64_t seed) {
  GossipSimParams p = testing::cpu_gossip_params(GossipProtocol::dropout_er, steps, 4);
  p.edge_probability = er_p;
  p.dropout = q;
  p.seed = seed;
  return p;
}

/// The layout's dropout draw, written out: node v drops iff the uniform at word offset 2 v of the stream
/// (seed, 5 << 56 | run << 24 | round) is < q.
bool dropped(std::uint64_t seed, std::int64_t run, int round, node_t v, double q) {
  const std::uint64_t subsequence = std::uint64_t{5} << 56 | std::uint64_t(run) << 24 | std::uint64_t(round);
  PhiloxStream s(seed, subsequence, 2 * static_cast<std::uint64_t>(v));
  return s.next_uniform_double() < q;
}

bool has_edge(const Graph& g, node_t u, node_t v) {
  const auto neighbours = g.neighbors(u);
  return std::find(neighbours.begin(), neighbours.end(), v) != neighbours.end();
}

TEST(GossipSimDropoutEr, EdgeCountIsBinomial) {
  // Each pair is an edge with probability p and stays when both ends stay: p (1 - q)^2 per pair and round,
  // independently, so the total over rounds and seeds is Bin(rounds N, p (1 - q)^2), N = n (n - 1) / 2.
  const node_t n = 300;
  const double er_p = 0.01;
  const Graph g = ring_graph(n);  // only n is used
  for (double q : {0.0, 0.5, 0.9}) {
    double edges = 0, trials = 0;
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
      const GossipSchedule s = sample_gossip_schedule(g, params(er_p, q, 30, seed), 1);
      for (int t = 0; t < s.steps; ++t) edges += double(s.round(t).graph.num_edges());
      trials += 30.0 * n * (n - 1) / 2;
    }
    const double pi = er_p * (1 - q) * (1 - q);
    EXPECT_NEAR(edges, trials * pi, 4.5 * std::sqrt(trials * pi * (1 - pi))) << "q " << q;
  }
}

TEST(GossipSimDropoutEr, DroppedNodesLoseTheirEdgesOfTheSameGnp) {
  // The layout: the round's G(n, p) is that of q = 0 (the er-per-round pairs at attempt 0, unchanged by q),
  // and q removes exactly the edges with a dropped end.
  const node_t n = 120;
  const Graph g = ring_graph(n);
  const GossipSimParams full = params(0.05, 0.0, 12, 9), masked = params(0.05, 0.4, 12, 9);
  for (std::int64_t run : {0, 3}) {
    const GossipSchedule a = sample_gossip_schedule(g, full, run), b = sample_gossip_schedule(g, masked, run);
    for (int t = 0; t < 12; ++t) {
      const Graph& all = a.round(t).graph;
      const Graph& kept = b.round(t).graph;
      std::int64_t expected = 0;
      for (node_t u = 0; u < n; ++u) {
        if (dropped(9, run, t, u, 0.4)) {
          EXPECT_EQ(kept.degree(u), 0) << "round " << t << ", node " << u;
        }
        for (node_t v : all.neighbors(u)) {
          const bool stays = !dropped(9, run, t, u, 0.4) && !dropped(9, run, t, v, 0.4);
          EXPECT_EQ(has_edge(kept, u, v), stays) << "round " << t << ", pair " << u << " " << v;
          expected += stays && u < v;
        }
      }
      EXPECT_EQ(kept.num_edges(), expected) << "round " << t;
    }
  }
}

TEST(GossipSimDropoutEr, RoundsAreWmhGossipMatricesAndMayBeDisconnected) {
  const node_t n = 200;
  const GossipSchedule s = sample_gossip_schedule(ring_graph(n), params(2.0 / n, 0.1, 20, 5), 2);
  int disconnected = 0;
  for (int t = 0; t < 20; ++t) {
    const GossipRound& r = s.round(t);
    validate_gossip_matrix(r.w, r.graph);  // symmetric, non-negative, rows summing to 1
    const CsrMatrix expected = gossip_matrix(r.graph, Weighting::metropolis);
    EXPECT_EQ(r.w.values, expected.values) << "round " << t;
    for (node_t v = 0; v < n; ++v) {
      double row = 0;
      for (offset_t k = r.w.offsets[v]; k < r.w.offsets[v + 1]; ++k) row += r.w.values[k];
      EXPECT_NEAR(row, 1.0, 1e-12);
      if (r.graph.degree(v) == 0) {
        EXPECT_EQ(r.w.at(v, v), 1.0);  // isolated: keeps its value
      }
    }
    disconnected += !is_connected(r.graph);
  }
  EXPECT_EQ(disconnected, 20);  // mean degree 2 (the thesis' 1000 p): never connected, never redrawn
}

TEST(GossipSimDropoutEr, DeterministicPerSeedAndThreadCount) {
  const Graph g = ring_graph(150);
  GossipSimParams p = params(0.03, 0.5, 15, 21);
  p.runs = 9;
  p.init.kind = InitKind::uniform;
  const std::vector<double> x = initial_values(g.n, p);
  const CsrMatrix none;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const GossipSimResult one = gossip_sim(g, none, x, p);
  omp_set_num_threads(2);
  const GossipSimResult two = gossip_sim(g, none, x, p);
  p.batch_runs = 2;
  const GossipSimResult batched = gossip_sim(g, none, x, p);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.mean, two.mean);
  EXPECT_EQ(one.noisy_mean, two.noisy_mean);
  EXPECT_EQ(one.noisy_mean, batched.noisy_mean);
  EXPECT_LT(one.noisy_mean.back(), one.noisy_mean.front());  // it does average
  p.seed = 22;
  EXPECT_NE(gossip_sim(g, none, x, p).noisy_mean, one.noisy_mean);
  // Every round is doubly stochastic: the state keeps its noisy average.
  const auto states = gossip_sim_trajectory(g, none, x, p, 4);
  for (std::size_t i = 1; i < states.size(); ++i) {
    double first = 0, now = 0;
    for (node_t v = 0; v < g.n; ++v) {
      first += states[0][v];
      now += states[i][v];
    }
    EXPECT_NEAR(now, first, 1e-10);
  }
}

TEST(GossipSimDropoutEr, BadParameters) {
  const Graph g = ring_graph(10);
  EXPECT_EQ(parse_gossip_protocol("dropout-er"), GossipProtocol::dropout_er);
  EXPECT_EQ(to_string(GossipProtocol::dropout_er), "dropout-er");
  testing::expect_invalid([&] { validate(params(1.5, 0.1, 3, 1), g.n); }, "er-p");
  testing::expect_invalid([&] { validate(params(0.1, -0.1, 3, 1), g.n); }, "dropout");
}

}  // namespace
}  // namespace netdp
