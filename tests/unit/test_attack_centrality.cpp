// Katz centrality (docs/attack.md "Katz centrality"): closed forms on the complete graph and the star, a slow
// dense solve of (I - alpha A) x = 1 on a small irregular graph, netdp's default alpha, and the refusal of an
// alpha beyond the radius of convergence.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "netdp/attack/centrality.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp::attack {
namespace {

// Solves (I - alpha A) x = 1 by Gaussian elimination with partial pivoting on the dense matrix: independent
// of the series and of the iteration katz_centrality uses.
std::vector<double> dense_katz(const Graph& g, double alpha) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<std::vector<double>> m(n, std::vector<double>(n + 1, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    m[i][i] = 1;
    m[i][n] = 1;
    for (node_t v : g.neighbors(static_cast<node_t>(i))) m[i][static_cast<std::size_t>(v)] -= alpha;
  }
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
    std::swap(m[col], m[pivot]);
    for (std::size_t r = 0; r < n; ++r)
      if (r != col) {
        const double f = m[r][col] / m[col][col];
        for (std::size_t c = col; c <= n; ++c) m[r][c] -= f * m[col][c];
      }
  }
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = m[i][n] / m[i][i];
  return x;
}

// K_n: A 1 = (n - 1) 1, so x = sum_k (alpha (n - 1))^k 1 = 1 / (1 - alpha (n - 1)) for every node.
TEST(Katz, CompleteGraphClosedForm) {
  const Graph g = complete_graph(6);
  for (double alpha : {0.0, 0.05, 0.15, 0.19}) {
    const std::vector<double> x = katz_centrality(g, alpha);
    for (double xi : x) EXPECT_NEAR(xi, 1 / (1 - 5 * alpha), 1e-12) << "alpha " << alpha;
  }
}

// Star with centre 0 and m leaves: x_c = 1 + alpha m x_l and x_l = 1 + alpha x_c, so
// x_c = (1 + alpha m) / (1 - alpha^2 m) and x_l = (1 + alpha) / (1 - alpha^2 m); lambda_max = sqrt(m).
TEST(Katz, StarClosedForm) {
  const Graph g = star_graph(10);  // m = 9, lambda_max = 3
  EXPECT_NEAR(adjacency_spectral_radius(g), 3.0, 1e-10);
  const double alpha = 0.3;  // alpha lambda_max = 0.9: a slowly converging series
  const std::vector<double> x = katz_centrality(g, alpha);
  const double denominator = 1 - alpha * alpha * 9;
  EXPECT_NEAR(x[0], (1 + alpha * 9) / denominator, 1e-11);
  for (node_t leaf = 1; leaf < 10; ++leaf) EXPECT_NEAR(x[leaf], (1 + alpha) / denominator, 1e-11);
  // The default alpha = 0.5 / 3: x_c = (1 + 1.5) / (1 - 0.25) = 10/3, x_l = (7/6) / 0.75 = 14/9.
  const std::vector<double> d = katz_centrality(g);
  EXPECT_NEAR(d[0], 10.0 / 3, 1e-11);
  EXPECT_NEAR(d[5], 14.0 / 9, 1e-11);
}

// An irregular graph (Fig. D.3-like blocks and the Florentine families) against the dense solve.
TEST(Katz, MatchesTheDenseSolve) {
  for (const char* spec : {"florentine", "sbm:sizes=6/5/4,p_in=0.7,p_out=0.15,seed=2", "path:n=9"}) {
    const Graph g = make_graph(spec);
    const double radius = adjacency_spectral_radius(g);
    for (double fraction : {0.2, 0.5, 0.95}) {
      const double alpha = fraction / radius;
      const std::vector<double> x = katz_centrality(g, alpha), reference = dense_katz(g, alpha);
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(x[i], reference[i], 1e-10 * reference[i]) << spec << " alpha " << alpha << " node " << i;
    }
  }
}

// A path's lambda_max is 2 cos(pi / (n + 1)); alpha at or beyond 1 / lambda_max is refused.
TEST(Katz, RadiusAndRefusals) {
  const Graph g = path_graph(9);
  const double radius = 2 * std::cos(std::acos(-1.0) / 10);
  EXPECT_NEAR(adjacency_spectral_radius(g), radius, 1e-10);
  EXPECT_THROW(katz_centrality(g, 1.001 / radius), InvalidInput);
  EXPECT_THROW(katz_centrality(g, -0.1), InvalidInput);
  EXPECT_NO_THROW(katz_centrality(g, 0.99 / radius));
  // No edges: lambda_max = 0, the default alpha is 0 and x = 1.
  const Graph empty = make_graph("er:n=4,p=0,connected=0");
  for (double xi : katz_centrality(empty)) EXPECT_EQ(xi, 1.0);
}

}  // namespace
}  // namespace netdp::attack
