// Weighting schemes of docs/math.md §2.2: hand-computed matrices, invariants, validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using Edges = std::vector<std::pair<node_t, node_t>>;

Graph make_graph(node_t n, const Edges& edges) {
  return graph_from_edges(n, edges);
}
// A fixed irregular graph: pseudo-random edges (LCG), plus two isolated nodes.
Graph irregular_graph() {
  Edges e;
  std::uint32_t state = 12345;
  for (int k = 0; k < 150; ++k) {
    state = state * 1664525u + 1013904223u;
    node_t u = node_t((state >> 8) % 58);
    state = state * 1664525u + 1013904223u;
    e.push_back({u, node_t((state >> 8) % 58)});
  }
  return make_graph(60, e);
}

// Message of the InvalidInput thrown by f, or "<no error>".
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "<no error>";
}
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Dense expectation (row-major), compared entry by entry; zero entries must not be stored.
void expect_matrix(const CsrMatrix& w, const std::vector<std::vector<double>>& expected) {
  ASSERT_EQ(w.n, node_t(expected.size()));
  std::int64_t nonzeros = 0;
  for (node_t i = 0; i < w.n; ++i)
    for (node_t j = 0; j < w.n; ++j) {
      EXPECT_NEAR(w.at(i, j), expected[i][j], 1e-15) << "entry (" << i << ", " << j << ")";
      nonzeros += expected[i][j] != 0.0;
    }
  EXPECT_EQ(w.nnz(), nonzeros);
}

TEST(Weighting, ParseAndPrint) {
  for (const char* name : {"metropolis", "hamilton-literal", "max-degree", "lazy-uniform", "file:some/w.mtx"})
    EXPECT_EQ(to_string(parse_weights_spec(name)), name);
  EXPECT_EQ(parse_weights_spec("metropolis").scheme, Weighting::metropolis);
  EXPECT_EQ(parse_weights_spec("max-degree").scheme, Weighting::max_degree);
  WeightsSpec file = parse_weights_spec("file:a b/w.txt");
  EXPECT_EQ(file.scheme, Weighting::file);
  EXPECT_EQ(file.path, "a b/w.txt");
}

TEST(Weighting, ParseErrorsListValidNames) {
  std::string message = error_of([] { parse_weights_spec("hamilton"); });
  EXPECT_TRUE(contains(message, "hamilton")) << message;
  for (const char* name : {"metropolis", "hamilton-literal", "max-degree", "lazy-uniform", "file:"})
    EXPECT_TRUE(contains(message, name)) << message;
  EXPECT_TRUE(contains(error_of([] { parse_weights_spec("file:"); }), "path"));
  EXPECT_NE(error_of([] { parse_weights_spec(""); }), "<no error>");
  EXPECT_NE(error_of([] { parse_weights_spec("Metropolis"); }), "<no error>");
}

// Path 0-1-2: degrees 1, 2, 1; d_max = 2.
TEST(Weighting, PathOfThreeByHand) {
  Graph g = path_graph(3);
  expect_matrix(gossip_matrix(g, Weighting::metropolis),
                {{2. / 3, 1. / 3, 0}, {1. / 3, 1. / 3, 1. / 3}, {0, 1. / 3, 2. / 3}});
  expect_matrix(gossip_matrix(g, Weighting::hamilton_literal), {{.5, .5, 0}, {.5, 0, .5}, {0, .5, .5}});
  expect_matrix(gossip_matrix(g, Weighting::max_degree), {{.5, .5, 0}, {.5, 0, .5}, {0, .5, .5}});
  expect_matrix(gossip_matrix(g, Weighting::lazy_uniform), {{.5, .5, 0}, {.25, .5, .25}, {0, .5, .5}});
}

// Star with centre 0 and leaves 1, 2, 3: degrees 3, 1, 1, 1; d_max = 3.
TEST(Weighting, StarOfFourByHand) {
  Graph g = star_graph(4);
  const double q = 0.25, t = 1. / 3, s = 1. / 6;
  expect_matrix(gossip_matrix(g, Weighting::metropolis),
                {{q, q, q, q}, {q, 3 * q, 0, 0}, {q, 0, 3 * q, 0}, {q, 0, 0, 3 * q}});
  const std::vector<std::vector<double>> third = {
      {0, t, t, t}, {t, 2 * t, 0, 0}, {t, 0, 2 * t, 0}, {t, 0, 0, 2 * t}};
  expect_matrix(gossip_matrix(g, Weighting::hamilton_literal), third);
  expect_matrix(gossip_matrix(g, Weighting::max_degree), third);
  expect_matrix(gossip_matrix(g, Weighting::lazy_uniform),
                {{.5, s, s, s}, {.5, .5, 0, 0}, {.5, 0, .5, 0}, {.5, 0, 0, .5}});
}

// Star of 4 plus an edge 1-4 and an isolated node 5: degrees 3, 2, 1, 1, 1, 0. Separates max-degree (1/d_max)
// from hamilton-literal (1/max(d_u, d_v)), and checks W_uu = 1 for an isolated node in every scheme.
TEST(Weighting, SpiderWithIsolatedNodeByHand) {
  Graph g = make_graph(6, {{0, 1}, {0, 2}, {0, 3}, {1, 4}});
  const double t = 1. / 3;
  expect_matrix(gossip_matrix(g, Weighting::hamilton_literal), {{0, t, t, t, 0, 0},
                                                                {t, 1. / 6, 0, 0, .5, 0},
                                                                {t, 0, 2 * t, 0, 0, 0},
                                                                {t, 0, 0, 2 * t, 0, 0},
                                                                {0, .5, 0, 0, .5, 0},
                                                                {0, 0, 0, 0, 0, 1}});
  expect_matrix(gossip_matrix(g, Weighting::max_degree), {{0, t, t, t, 0, 0},
                                                          {t, t, 0, 0, t, 0},
                                                          {t, 0, 2 * t, 0, 0, 0},
                                                          {t, 0, 0, 2 * t, 0, 0},
                                                          {0, t, 0, 0, 2 * t, 0},
                                                          {0, 0, 0, 0, 0, 1}});
  expect_matrix(gossip_matrix(g, Weighting::metropolis), {{.25, .25, .25, .25, 0, 0},
                                                          {.25, 5. / 12, 0, 0, t, 0},
                                                          {.25, 0, .75, 0, 0, 0},
                                                          {.25, 0, 0, .75, 0, 0},
                                                          {0, t, 0, 0, 2 * t, 0},
                                                          {0, 0, 0, 0, 0, 1}});
  EXPECT_EQ(gossip_matrix(g, Weighting::lazy_uniform).at(5, 5), 1.0);
  EXPECT_EQ(gossip_matrix(make_graph(2, {}), Weighting::max_degree).at(1, 1), 1.0);  // d_max = 0
}

// docs/math.md §2.2 (W-K): metropolis on K_n is J/n exactly.
TEST(Weighting, CompleteGraphMetropolisIsJOverN) {
  for (node_t n : {2, 7, 10, 33}) {
    CsrMatrix w = gossip_matrix(complete_graph(n), Weighting::metropolis);
    ASSERT_EQ(w.nnz(), std::int64_t(n) * n);
    for (double x : w.values) EXPECT_EQ(x, 1.0 / n);
  }
}

// Appendix Z item 1: hypercube d = 11 under W-MH has W_uv = W_uu = 1/12.
TEST(Weighting, HypercubeMetropolisIsOneTwelfth) {
  Graph g = hypercube_graph(11);
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  EXPECT_EQ(w.nnz(), std::int64_t(2048) * 12);
  for (double x : w.values) EXPECT_DOUBLE_EQ(x, 1.0 / 12);
  validate_gossip_matrix(w, g);
}

TEST(Weighting, InvariantsOnAnIrregularGraph) {
  Graph g = irregular_graph();
  for (Weighting scheme :
       {Weighting::metropolis, Weighting::hamilton_literal, Weighting::max_degree, Weighting::lazy_uniform}) {
    SCOPED_TRACE(to_string(WeightsSpec{scheme, {}}));
    CsrMatrix w = gossip_matrix(g, scheme);
    ASSERT_EQ(w.offsets.size(), std::size_t(g.n) + 1);
    for (node_t i = 0; i < g.n; ++i) {
      double sum = 0;
      for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
        if (k > w.offsets[i]) {
          EXPECT_LT(w.columns[k - 1], w.columns[k]);
        }
        EXPECT_GT(w.values[k], 0.0);  // only non-zeros are stored
        sum += w.values[k];
      }
      EXPECT_NEAR(sum, 1.0, 1e-14);
    }
    validate_row_stochastic(w, g);
    bool symmetric = true;
    for (node_t i = 0; i < g.n; ++i)
      for (node_t j = 0; j < g.n; ++j) symmetric = symmetric && std::abs(w.at(i, j) - w.at(j, i)) <= 1e-15;
    // lazy-uniform is symmetric only on regular graphs, and this one is not.
    EXPECT_EQ(symmetric, scheme != Weighting::lazy_uniform);
    if (symmetric) {
      validate_gossip_matrix(w, g);
    } else {
      EXPECT_TRUE(contains(error_of([&] { validate_gossip_matrix(w, g); }), "not symmetric"));
    }
  }
}

TEST(Weighting, LazyUniformIsSymmetricOnRegularGraphs) {
  Graph g = hypercube_graph(4);
  validate_gossip_matrix(gossip_matrix(g, Weighting::lazy_uniform), g);
}

TEST(Weighting, FileSchemeHasNoFormula) {
  EXPECT_NE(error_of([] { gossip_matrix(path_graph(3), Weighting::file); }), "<no error>");
}

TEST(Weighting, ValidationErrorsNameTheProblem) {
  Graph g = path_graph(3);
  const CsrMatrix good = gossip_matrix(g, Weighting::metropolis);
  validate_gossip_matrix(good, g);

  CsrMatrix negative =
      csr_from_triplets(3, {{0, 0, 1.5}, {0, 1, -0.5}, {1, 0, -0.5}, {1, 1, 1.5}, {2, 2, 1}});
  std::string message = error_of([&] { validate_row_stochastic(negative, g); });
  EXPECT_TRUE(contains(message, "negative") && contains(message, "(0, 1)") && contains(message, "-0.5"))
      << message;

  CsrMatrix short_row = good;
  short_row.values[0] = 0.5;  // row 0: 0.5 + 1/3
  message = error_of([&] { validate_row_stochastic(short_row, g); });
  EXPECT_TRUE(contains(message, "row 0") && contains(message, "sums to")) << message;

  CsrMatrix off_edge = csr_from_triplets(3, {{0, 0, .5}, {0, 2, .5}, {1, 1, 1}, {2, 0, .5}, {2, 2, .5}});
  message = error_of([&] { validate_row_stochastic(off_edge, g); });
  EXPECT_TRUE(contains(message, "(0, 2)") && contains(message, "not an edge")) << message;
  // A stored zero off the graph is harmless.
  validate_gossip_matrix(csr_from_triplets(3, {{0, 0, 1}, {0, 2, 0}, {1, 1, 1}, {2, 2, 1}}), g);

  CsrMatrix asymmetric = gossip_matrix(g, Weighting::lazy_uniform);
  validate_row_stochastic(asymmetric, g);
  message = error_of([&] { validate_gossip_matrix(asymmetric, g); });
  EXPECT_TRUE(contains(message, "not symmetric") && contains(message, "(0, 1)")) << message;

  message = error_of([&] { validate_row_stochastic(good, path_graph(4)); });
  EXPECT_TRUE(contains(message, "3 x 3") && contains(message, "4 nodes")) << message;

  CsrMatrix not_finite = good;
  not_finite.values[0] = std::nan("");
  EXPECT_TRUE(contains(error_of([&] { validate_row_stochastic(not_finite, g); }), "not finite"));

  // Within the tolerance is accepted, beyond it is not.
  CsrMatrix nearly = good;
  nearly.values[0] += 1e-11;
  validate_row_stochastic(nearly, g);
  EXPECT_NE(error_of([&] { validate_row_stochastic(nearly, g, 1e-12); }), "<no error>");
}

TEST(Weighting, MakeWeightsNamedAndFromFile) {
  Graph g = path_graph(3);
  CsrMatrix named = make_weights(g, parse_weights_spec("max-degree"));
  EXPECT_EQ(named.values, gossip_matrix(g, Weighting::max_degree).values);

  testing::ScratchDir dir;
  std::string file =
      dir.write("w.txt", "0 0 0.75\n0 1 0.25\n1 0 0.25\n1 1 0.5\n1 2 0.25\n2 1 0.25\n2 2 0.75\n");
  CsrMatrix w = make_weights(g, parse_weights_spec("file:" + file));
  expect_matrix(w, {{.75, .25, 0}, {.25, .5, .25}, {0, .25, .75}});
  validate_gossip_matrix(w, g);

  std::string small = dir.write("small.txt", "0 0 1\n1 1 1\n");
  std::string message = error_of([&] { make_weights(g, parse_weights_spec("file:" + small)); });
  EXPECT_TRUE(contains(message, "small.txt") && contains(message, "2 x 2")) << message;

  std::string off = dir.write("off.txt", "0 0 0.5\n0 2 0.5\n1 1 1\n2 0 0.5\n2 2 0.5\n");
  message = error_of([&] { make_weights(g, parse_weights_spec("file:" + off)); });
  EXPECT_TRUE(contains(message, "off.txt") && contains(message, "not an edge")) << message;
}

}  // namespace
}  // namespace netdp
