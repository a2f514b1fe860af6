// The stochastic block model `sbm:sizes=A/B/..,p_in=P,p_out=Q[,seed=S]` (docs/graphs.md): block sizes and
// numbering, the p = 0 and p = 1 extremes (closed-form edge counts), probabilities per block and block pair,
// the edge counts of each block and block pair against their binomial means over seeds, determinism per seed,
// and the spec's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp {
namespace {

// The block of node u for consecutive blocks of these sizes (block 0 holds the first sizes[0] nodes).
int block_of(const std::vector<node_t>& sizes, node_t u) {
  int b = 0;
  for (node_t start = 0; u >= start + sizes[b]; start += sizes[b], ++b) {
  }
  return b;
}

// counts[b][c] (b <= c): the edges inside block b (b = c) or between blocks b and c.
std::vector<std::vector<double>> block_edge_counts(const Graph& g, const std::vector<node_t>& sizes) {
  std::vector<std::vector<double>> counts(sizes.size(), std::vector<double>(sizes.size(), 0.0));
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u))
      if (u < v) counts[block_of(sizes, u)][block_of(sizes, v)] += 1;
  return counts;
}

TEST(Sbm, CompleteBlocksAndNoCrossEdgesAtPin1Pout0) {
  const std::vector<node_t> sizes = {3, 5, 4};
  const Graph g = stochastic_block_graph(sizes, 1.0, 0.0, 7);
  ASSERT_EQ(g.n, 12);
  EXPECT_EQ(g.num_edges(), 3 + 10 + 6);  // C(3,2) + C(5,2) + C(4,2)
  // Each node is adjacent to exactly the other nodes of its own block.
  for (node_t u = 0; u < g.n; ++u) {
    EXPECT_EQ(g.degree(u), sizes[block_of(sizes, u)] - 1) << "node " << u;
    for (node_t v : g.neighbors(u)) EXPECT_EQ(block_of(sizes, u), block_of(sizes, v)) << u << "-" << v;
  }
}

TEST(Sbm, CompleteMultipartiteAtPin0Pout1) {
  const std::vector<node_t> sizes = {3, 5, 4};
  const Graph g = stochastic_block_graph(sizes, 0.0, 1.0, 7);
  EXPECT_EQ(g.num_edges(), 3 * 5 + 3 * 4 + 5 * 4);
  for (node_t u = 0; u < g.n; ++u) EXPECT_EQ(g.degree(u), 12 - sizes[block_of(sizes, u)]) << "node " << u;
}

TEST(Sbm, NoEdgeCrossesBlocksAtPout0) {
  const std::vector<node_t> sizes = {20, 7, 13};
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto counts = block_edge_counts(stochastic_block_graph(sizes, 0.5, 0.0, seed), sizes);
    EXPECT_EQ(counts[0][1] + counts[0][2] + counts[1][2], 0.0) << "seed " << seed;
    EXPECT_GT(counts[0][0], 0.0) << "seed " << seed;
  }
}

// Over R seeds the mean count of a block (pairs P = s(s-1)/2, probability p_in) or block pair (P = s_b s_c,
// p_out) is within 5 standard errors of P p: sd sqrt(P p (1 - p) / R). Each node's mean number of edges to
// the other blocks is checked the same way (it catches a wrong pair -> node mapping that keeps the totals).
TEST(Sbm, EdgeCountsMatchTheirBinomialMeansOverSeeds) {
  const std::vector<node_t> sizes = {30, 20, 10};
  const double p_in = 0.3, p_out = 0.05;
  const int runs = 200;
  std::vector<std::vector<double>> sum(3, std::vector<double>(3, 0.0));
  std::vector<double> cross_degree(60, 0.0);
  for (int r = 0; r < runs; ++r) {
    const Graph g = stochastic_block_graph(sizes, p_in, p_out, 1000 + r);
    const auto counts = block_edge_counts(g, sizes);
    for (int b = 0; b < 3; ++b)
      for (int c = b; c < 3; ++c) sum[b][c] += counts[b][c];
    for (node_t u = 0; u < g.n; ++u)
      for (node_t v : g.neighbors(u)) cross_degree[u] += block_of(sizes, u) != block_of(sizes, v);
  }
  const auto expect_mean = [&](double total, double pairs, double p, const std::string& what) {
    const double mean = total / runs, sd = std::sqrt(pairs * p * (1 - p) / runs);
    EXPECT_NEAR(mean, pairs * p, 5 * sd) << what;
  };
  for (int b = 0; b < 3; ++b) {
    expect_mean(sum[b][b], sizes[b] * (sizes[b] - 1) / 2.0, p_in, "block " + std::to_string(b));
    for (int c = b + 1; c < 3; ++c)
      expect_mean(sum[b][c], double(sizes[b]) * sizes[c], p_out,
                  "blocks " + std::to_string(b) + std::to_string(c));
  }
  for (node_t u = 0; u < 60; ++u)
    expect_mean(cross_degree[u], 60.0 - sizes[block_of(sizes, u)], p_out, "node " + std::to_string(u));
}

// A probability per block and per block pair (Fig. D.3's matrix form): 0/1 values give a graph known in full.
TEST(Sbm, PerBlockAndPerPairProbabilities) {
  // Blocks {0,1,2}, {3,4}, {5,6,7,8}: block 0 complete, blocks 1 and 2 empty; pair (0,1) complete, (0,2) and
  // (1,2) empty.
  const Graph g = make_graph("sbm:sizes=3/2/4,p_in=1/0/0,p_out=1/0/0,seed=3");
  EXPECT_EQ(g.num_edges(), 3 + 3 * 2);
  for (node_t u = 0; u < 5; ++u) EXPECT_EQ(g.degree(u), u < 3 ? 2 + 2 : 3) << "node " << u;
  for (node_t u = 5; u < 9; ++u) EXPECT_EQ(g.degree(u), 0) << "node " << u;
  // The thesis' Fig. D.3 (docs/math.md §2.5): 200 nodes, each block and pair near its own mean.
  const std::vector<node_t> sizes = {75, 75, 50};
  const Graph d3 = make_graph("sbm:sizes=75/75/50,p_in=0.25/0.35/0.40,p_out=0.05/0.02/0.07,seed=1");
  ASSERT_EQ(d3.n, 200);
  const auto counts = block_edge_counts(d3, sizes);
  const double pairs[3][3] = {{2775, 5625, 3750}, {0, 2775, 3750}, {0, 0, 1225}};
  const double p[3][3] = {{0.25, 0.05, 0.02}, {0, 0.35, 0.07}, {0, 0, 0.40}};
  for (int b = 0; b < 3; ++b)
    for (int c = b; c < 3; ++c)
      EXPECT_NEAR(counts[b][c], pairs[b][c] * p[b][c], 5 * std::sqrt(pairs[b][c] * p[b][c] * (1 - p[b][c])))
          << "blocks " << b << c;
}

TEST(Sbm, SameSeedSameGraphOtherSeedAnother) {
  const std::vector<node_t> sizes = {40, 40};
  const Graph a = stochastic_block_graph(sizes, 0.2, 0.02, 5),
              b = stochastic_block_graph(sizes, 0.2, 0.02, 5),
              c = stochastic_block_graph(sizes, 0.2, 0.02, 6);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.adjacency, b.adjacency);
  EXPECT_NE(a.adjacency, c.adjacency);
}

TEST(Sbm, SpecBuildsTheGeneratorsGraphAndPlansItsSize) {
  const Graph g = make_graph("sbm:sizes=30/20/10,p_in=0.3,p_out=0.05,seed=4");
  const Graph direct = stochastic_block_graph(std::vector<node_t>{30, 20, 10}, 0.3, 0.05, 4);
  EXPECT_EQ(g.adjacency, direct.adjacency);
  EXPECT_EQ(make_graph("sbm:sizes=6,p_in=1,p_out=0").num_edges(), 15);  // one block: K_6
  const auto planned = planned_graph_size(parse_graph_spec("sbm:sizes=30/20/10,p_in=0.3,p_out=0.05"));
  ASSERT_TRUE(planned.has_value());
  EXPECT_EQ(planned->nodes, 60);
  // 10 % above the mean 0.3 (435 + 190 + 45) + 0.05 (600 + 300 + 200) = 256.
  EXPECT_NEAR(planned->edges, 1.1 * 256, 1e-9);
}

// Each bad spec is refused with InvalidInput: one line naming the problem.
TEST(Sbm, BadSpecsAreRefusedWithOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sbm:sizes=3/4,p_in=1,p_out=0,q=1",
       "unknown key 'q' for family 'sbm' (keys: sizes, p_in, p_out, seed)"},
      {"sbm:sizes=3/4,p_in=1", "missing key 'p_out'"},
      {"sbm:p_in=1,p_out=0", "missing key 'sizes'"},
      {"sbm:sizes=3/x,p_in=1,p_out=0", "sizes=3/x is not a list of block sizes"},
      {"sbm:sizes=3//4,p_in=1,p_out=0", "sizes=3//4 is not a list of block sizes"},
      {"sbm:sizes=3/0,p_in=1,p_out=0", "every block size must be >= 1, got 0"},
      {"sbm:sizes=3/4,p_in=1.5,p_out=0", "p_in must be in [0, 1], got 1.5"},
      {"sbm:sizes=3/4,p_in=1,p_out=-0.1", "p_out must be in [0, 1], got -0.1"},
      {"sbm:sizes=3/4,p_in=1,p_out=0,seed=-1", "seed=-1 is not a non-negative 64-bit integer"},
      {"sbm:sizes=3/4/5,p_in=1/0,p_out=0", "p_in needs 1 or 3 values (one per block), got 2"},
      {"sbm:sizes=3/4/5,p_in=1,p_out=0/0", "p_out needs 1 or 3 values (one per block pair"},
      {"sbm:sizes=3/4,p_in=1,p_out=0/x", "p_out=0/x is not a probability or a list"},
  };
  for (const auto& [spec, fragment] : cases) {
    try {
      make_graph(spec);
      ADD_FAILURE() << spec << ": accepted";
    } catch (const InvalidInput& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(fragment), std::string::npos) << spec << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << spec << ": " << message;
    }
  }
}

}  // namespace
}  // namespace netdp
