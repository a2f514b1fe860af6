// Graph families (docs/math.md §2.5): sizes against closed forms, structure against definitions, reproducibility.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"

namespace netdp {
namespace {

bool adjacent(const Graph& g, node_t u, node_t v) {
  auto row = g.neighbors(u);
  return std::binary_search(row.begin(), row.end(), v);
}

bool same_graph(const Graph& a, const Graph& b) {
  return a.n == b.n && a.offsets == b.offsets && a.adjacency == b.adjacency;
}

void expect_regular(const Graph& g, node_t degree) {
  for (node_t u = 0; u < g.n; ++u) ASSERT_EQ(g.degree(u), degree) << "node " << u;
}

// Expects InvalidInput whose message contains every fragment.
template <class F>
void expect_invalid(F&& build, std::vector<std::string> fragments) {
  try {
    build();
    ADD_FAILURE() << "no InvalidInput thrown";
  } catch (const InvalidInput& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

TEST(GraphGenerators, Complete) {
  for (node_t n : {1, 2, 5, 40}) {
    Graph g = complete_graph(n);
    validate(g);
    EXPECT_EQ(g.num_edges(), std::int64_t(n) * (n - 1) / 2);
    expect_regular(g, n - 1);
  }
}

TEST(GraphGenerators, RingPathStar) {
  for (node_t n : {3, 4, 17}) {
    Graph ring = ring_graph(n), path = path_graph(n), star = star_graph(n);
    validate(ring), validate(path), validate(star);
    EXPECT_EQ(ring.num_edges(), n);
    expect_regular(ring, 2);
    EXPECT_TRUE(adjacent(ring, 0, n - 1));
    EXPECT_EQ(path.num_edges(), n - 1);
    EXPECT_EQ(diameter(path), n - 1);
    EXPECT_EQ(star.num_edges(), n - 1);
    EXPECT_EQ(star.degree(0), n - 1);
    for (node_t u = 1; u < n; ++u) EXPECT_EQ(star.neighbors(u)[0], 0);
  }
  // Degenerate sizes: a 2-ring is one edge, a 1-ring or 1-star has none.
  EXPECT_EQ(ring_graph(2).num_edges(), 1);
  EXPECT_EQ(ring_graph(1).num_edges(), 0);
  EXPECT_EQ(star_graph(1).num_edges(), 0);
  EXPECT_EQ(path_graph(1).num_edges(), 0);
}

TEST(GraphGenerators, GridNumberingAndEdgeCount) {
  for (auto [rows, cols] : {std::pair{1, 1}, {1, 6}, {3, 4}, {45, 45}}) {
    Graph g = grid_graph(rows, cols);
    validate(g);
    EXPECT_EQ(g.n, rows * cols);
    EXPECT_EQ(g.num_edges(), 2 * rows * cols - rows - cols);
  }
  // 3 x 4: node r * 4 + c; node 5 = (1, 1) touches (0, 1) = 1, (1, 0) = 4, (1, 2) = 6, (2, 1) = 9.
  Graph g = grid_graph(3, 4);
  auto row = g.neighbors(5);
  EXPECT_EQ(std::vector<node_t>(row.begin(), row.end()), (std::vector<node_t>{1, 4, 6, 9}));
  EXPECT_EQ(g.degree(0), 2);
  EXPECT_FALSE(adjacent(g, 3, 4));  // end of row 0 is not joined to start of row 1
  EXPECT_EQ(diameter(g), 3 + 4 - 2);
}

TEST(GraphGenerators, Torus) {
  // Sides >= 3: every node has 2 C neighbours, C n edges.
  std::vector<node_t> cube{4, 4, 8};
  Graph g = torus_graph(cube);
  validate(g);
  EXPECT_EQ(g.n, 128);
  EXPECT_EQ(g.num_edges(), 3 * 128);
  expect_regular(g, 6);
  EXPECT_EQ(diameter(g), 2 + 2 + 4);  // sum of floor(side / 2)
  // Row-major, sides[0] slowest: in a 3 x 4 torus node (c0, c1) = c0 * 4 + c1; (0, 0) touches
  // (1, 0) = 4, (2, 0) = 8, (0, 1) = 1, (0, 3) = 3.
  std::vector<node_t> small{3, 4};
  Graph t = torus_graph(small);
  auto row = t.neighbors(0);
  EXPECT_EQ(std::vector<node_t>(row.begin(), row.end()), (std::vector<node_t>{1, 3, 4, 8}));
  // A side of 2 contributes n / 2 edges (both directions coincide), a side of 1 none.
  std::vector<node_t> mixed{2, 3, 1};
  Graph m = torus_graph(mixed);
  validate(m);
  EXPECT_EQ(m.n, 6);
  EXPECT_EQ(m.num_edges(), 6 / 2 + 6);
  std::vector<node_t> ring{7};
  EXPECT_EQ(torus_graph(ring).num_edges(), 7);
}

TEST(GraphGenerators, Hypercube) {
  for (int d : {0, 1, 3, 7, 11}) {
    Graph g = hypercube_graph(d);
    validate(g);
    EXPECT_EQ(g.n, node_t{1} << d);
    EXPECT_EQ(g.num_edges(), d == 0 ? 0 : std::int64_t(d) << (d - 1));
    expect_regular(g, d);
    for (node_t u = 0; u < g.n; ++u)
      for (node_t v : g.neighbors(u)) ASSERT_EQ(std::popcount(static_cast<unsigned>(u ^ v)), 1);
  }
  EXPECT_EQ(diameter(hypercube_graph(5)), 5);
}

TEST(GraphGenerators, ExponentialMatchesDefinition) {
  for (node_t n : {1, 2, 3, 6, 10, 16, 33}) {
    Graph g = exponential_graph(n);
    validate(g);
    // Definition: i ~ i +- 2^k mod n for 2^k < n.
    for (node_t i = 0; i < n; ++i) {
      std::set<node_t> expected;
      for (node_t s = 1; s < n; s *= 2) {
        expected.insert((i + s) % n);
        expected.insert(((i - s) % n + n) % n);
      }
      expected.erase(i);
      auto row = g.neighbors(i);
      ASSERT_EQ(std::set<node_t>(row.begin(), row.end()), expected) << "n = " << n << ", node " << i;
    }
  }
  // n = 2^m: offsets 1, 2, ..., 2^(m-1); the last one pairs i with i + n/2 only, so degree 2m - 1 and
  // m = n (m - 1) + n / 2 edges. n = 6: offsets 1, 2, 4 and 4 = -2, so degree 4 and 12 edges.
  Graph g16 = exponential_graph(16);
  expect_regular(g16, 7);
  EXPECT_EQ(g16.num_edges(), 16 * 3 + 8);
  EXPECT_EQ(exponential_graph(6).num_edges(), 12);
  expect_regular(exponential_graph(6), 4);
}

TEST(GraphGenerators, NamedGraphs) {
  Graph florentine = florentine_families_graph();
  validate(florentine);
  EXPECT_EQ(florentine.n, 15);
  EXPECT_EQ(florentine.num_edges(), 20);
  EXPECT_TRUE(is_connected(florentine));
  EXPECT_EQ(florentine.degree(1), 6);  // Medici, the best-connected family

  Graph davis = southern_women_graph();
  validate(davis);
  EXPECT_EQ(davis.n, 32);
  EXPECT_EQ(davis.num_edges(), 89);
  EXPECT_TRUE(is_connected(davis));
  for (node_t u = 0; u < davis.n; ++u)
    for (node_t v : davis.neighbors(u))
      ASSERT_NE(u < 18, v < 18) << "edge " << u << "-" << v << " not bipartite";
  EXPECT_EQ(davis.degree(18 + 7), 14);  // event E8 had 14 of the 18 women
}

TEST(GraphGenerators, ParameterErrorsNameTheParameter) {
  expect_invalid([] { complete_graph(0); }, {"n", "0"});
  expect_invalid([] { ring_graph(-3); }, {"n", "-3"});
  expect_invalid([] { grid_graph(4, 0); }, {"cols", "0"});
  expect_invalid([] { grid_graph(100000, 100000); }, {"grid", "32-bit"});
  expect_invalid([] { hypercube_graph(31); }, {"dim", "31"});
  expect_invalid([] { hypercube_graph(-1); }, {"dim", "-1"});
  expect_invalid([] { torus_graph(std::vector<node_t>{}); }, {"torus"});
  expect_invalid([] { torus_graph(std::vector<node_t>{4, 0}); }, {"side", "0"});
  expect_invalid([] { erdos_renyi_graph(10, 1.5, 0); }, {"p", "1.5"});
  expect_invalid([] { erdos_renyi_graph(10, std::nan(""), 0); }, {"p"});
  expect_invalid([] { erdos_renyi_graph(0, 0.5, 0); }, {"n", "0"});
  expect_invalid([] { random_geometric_graph(10, 0.0, 0); }, {"radius", "0"});
  expect_invalid([] { random_geometric_graph(10, -1.0, 0); }, {"radius"});
  expect_invalid([] { random_regular_graph(5, 3, 0); }, {"even", "5", "3"});
  expect_invalid([] { random_regular_graph(4, 4, 0); }, {"d", "4"});
  expect_invalid([] { random_regular_graph(4, -1, 0); }, {"d", "-1"});
}

// ---- Random families
// -------------------------------------------------------------------------------------------

TEST(GraphRandom, ErdosRenyiEdgeCountNearMean) {
  // Unconditioned G(n, p): m ~ Binomial(N, p) with N = n (n - 1) / 2.
  const node_t n = 2000;
  const double p = 0.01, pairs = n * (n - 1) / 2.0;
  const double mean = p * pairs, sd = std::sqrt(pairs * p * (1 - p));
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    Graph g = erdos_renyi_graph(n, p, seed, /*connected=*/false);
    validate(g);
    EXPECT_NEAR(double(g.num_edges()), mean, 5 * sd) << "seed " << seed;
  }
}

TEST(GraphRandom, ErdosRenyiEveryPairEquallyLikely) {
  // The geometric skips must visit all n (n - 1) / 2 pairs: each pair's count over many seeds is
  // Binomial(seeds, p); a skipped or doubly-visited pair would sit far outside 5 standard deviations.
  const node_t n = 9;
  const int seeds = 4000;
  for (double p : {0.5, 0.1}) {
    std::vector<int> count(n * n, 0);
    for (int s = 0; s < seeds; ++s) {
      Graph g = erdos_renyi_graph(n, p, std::uint64_t(s), false);
      for (node_t u = 0; u < n; ++u)
        for (node_t v : g.neighbors(u)) ++count[u * n + v];
    }
    const double sd = std::sqrt(seeds * p * (1 - p));
    for (node_t u = 0; u < n; ++u)
      for (node_t v = u + 1; v < n; ++v) EXPECT_NEAR(count[u * n + v], seeds * p, 5 * sd) << u << "-" << v;
  }
}

TEST(GraphRandom, ErdosRenyiExtremesAndConnectivity) {
  EXPECT_EQ(erdos_renyi_graph(50, 0.0, 1, false).num_edges(), 0);
  EXPECT_EQ(erdos_renyi_graph(50, 1.0, 1, false).num_edges(), 50 * 49 / 2);
  EXPECT_EQ(erdos_renyi_graph(1, 0.0, 1, true).num_edges(), 0);  // a single node is connected
  // docs/math.md §2.5: q = c ln(n) / n, resampled until connected.
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    Graph g = erdos_renyi_graph(300, 1.2 * std::log(300.0) / 300, seed, true);
    validate(g);
    EXPECT_TRUE(is_connected(g));
  }
  // Expected degree 0.1: a connected sample is essentially impossible.
  try {
    erdos_renyi_graph(100, 0.001, 7, true, 5);
    ADD_FAILURE() << "no InvalidInput thrown";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("5 attempts"), std::string::npos) << e.what();
  }
}

TEST(GraphRandom, ErdosRenyiLargeSparseIsLinearTime) {
  // n = 65536, c = 1: expected m = ln(n) (n - 1) / 2; an O(n^2) pair loop would take far too long here.
  const node_t n = 65536;
  const double p = std::log(double(n)) / n, pairs = double(n) * (n - 1) / 2;
  Graph g = erdos_renyi_graph(n, p, 11, false);
  EXPECT_EQ(g.n, n);
  EXPECT_NEAR(double(g.num_edges()), p * pairs, 5 * std::sqrt(p * pairs));
}

TEST(GraphRandom, GeometricEdgesAreExactlyThePairsCloserThanR) {
  for (auto [n, r] : {std::pair{300, 0.1}, {200, 0.25}, {50, 0.9}, {100, 1e-6}}) {
    std::vector<double> xy;
    Graph g = random_geometric_graph(n, r, 5, &xy);
    validate(g);
    ASSERT_EQ(xy.size(), 2u * n);
    for (double c : xy) ASSERT_TRUE(c >= 0.0 && c < 1.0);
    std::int64_t close_pairs = 0;
    for (node_t u = 0; u < n; ++u)
      for (node_t v = u + 1; v < n; ++v) {
        double dx = xy[2 * u] - xy[2 * v], dy = xy[2 * u + 1] - xy[2 * v + 1];
        bool close = dx * dx + dy * dy < r * r;
        close_pairs += close;
        ASSERT_EQ(adjacent(g, u, v), close) << "n " << n << " r " << r << " pair " << u << "-" << v;
      }
    EXPECT_EQ(g.num_edges(), close_pairs);
  }
  // Radius beyond the diagonal: complete graph.
  EXPECT_EQ(random_geometric_graph(30, 1.5, 1).num_edges(), 30 * 29 / 2);
}

TEST(GraphRandom, GeometricEdgeCountNearMean) {
  // Expected edges ~ N pi r^2 minus the boundary loss (8/3) r^3 per pair (unit square), N = n(n-1)/2.
  const node_t n = 2048;
  const double r = 0.07, pairs = n * (n - 1) / 2.0;
  const double per_pair = std::numbers::pi * r * r - 8.0 / 3.0 * r * r * r + 0.5 * r * r * r * r;
  Graph g = random_geometric_graph(n, r, 3);
  EXPECT_NEAR(double(g.num_edges()), per_pair * pairs, 0.05 * per_pair * pairs);
}

TEST(GraphRandom, RegularGraphsAreSimpleAndRegular) {
  for (auto [n, d] :
       {std::pair{100, 3}, {50, 10}, {6, 5}, {1000, 7}, {9, 0}, {2, 1}, {40, 37}, {40, 20}, {21, 16}}) {
    Graph g = random_regular_graph(n, d, 42);
    validate(g);  // no self-loops or repeated edges (d > (n - 1) / 2 goes through the complement)
    EXPECT_EQ(g.num_edges(), std::int64_t(n) * d / 2);
    expect_regular(g, d);
  }
}

TEST(GraphRandom, SameSeedSameGraphOtherSeedOtherGraph) {
  const double p = 2 * std::log(200.0) / 200;
  EXPECT_TRUE(same_graph(erdos_renyi_graph(200, p, 9), erdos_renyi_graph(200, p, 9)));
  EXPECT_FALSE(same_graph(erdos_renyi_graph(200, p, 9), erdos_renyi_graph(200, p, 10)));
  EXPECT_TRUE(same_graph(random_geometric_graph(200, 0.15, 9), random_geometric_graph(200, 0.15, 9)));
  EXPECT_FALSE(same_graph(random_geometric_graph(200, 0.15, 9), random_geometric_graph(200, 0.15, 10)));
  EXPECT_TRUE(same_graph(random_regular_graph(200, 4, 9), random_regular_graph(200, 4, 9)));
  EXPECT_FALSE(same_graph(random_regular_graph(200, 4, 9), random_regular_graph(200, 4, 10)));
}

}  // namespace
}  // namespace netdp
