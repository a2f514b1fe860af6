// Spectra, gaps, Chebyshev gamma and the Muffliato stopping time (docs/math.md §2.3-2.4, Appendix Z items 1,
// 13), against closed forms and the dense solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {
namespace {

using Edges = std::vector<std::pair<node_t, node_t>>;

// Hypercubes of dimension `dim`, `copies` disjoint ones side by side.
Graph hypercubes(int dim, int copies) {
  Edges e;
  const node_t size = node_t(1) << dim;
  for (node_t c = 0; c < copies; ++c)
    for (node_t u = 0; u < size; ++u)
      for (int b = 0; b < dim; ++b)
        if (node_t v = u ^ (node_t(1) << b); u < v) e.push_back({c * size + u, c * size + v});
  return graph_from_edges(size * copies, e);
}
CsrMatrix metropolis(const Graph& g) {
  return gossip_matrix(g, Weighting::metropolis);
}

double binomial(int n, int k) {
  return std::round(std::tgamma(n + 1.0) / (std::tgamma(k + 1.0) * std::tgamma(n - k + 1.0)));
}

template <class F>
bool throws_invalid_input(F f, const std::string& part = "") {
  try {
    f();
  } catch (const InvalidInput& e) {
    return std::string(e.what()).find(part) != std::string::npos;
  }
  return false;
}

TEST(Spectral, GapDefinitionParsing) {
  EXPECT_EQ(parse_gap_definition("second"), GapDefinition::second);
  EXPECT_EQ(parse_gap_definition("abs"), GapDefinition::absolute);
  EXPECT_EQ(to_string(GapDefinition::second), "second");
  EXPECT_EQ(to_string(GapDefinition::absolute), "abs");
  EXPECT_TRUE(throws_invalid_input([] { parse_gap_definition("absolute"); }, "second, abs"));
  EXPECT_TRUE(throws_invalid_input([] { parse_gap_definition(""); }));
}

TEST(Spectral, GapDefinitions) {
  SpectralSummary s{0.5, -0.9, "dense"};
  EXPECT_DOUBLE_EQ(s.gap(GapDefinition::second), 0.5);
  EXPECT_NEAR(s.gap(GapDefinition::absolute), 0.1, 1e-15);
  SpectralSummary t{0.7, -0.2, "dense"};
  EXPECT_NEAR(t.gap(GapDefinition::absolute), 0.3, 1e-15);
}

// Ring C_n under metropolis: W = (I + A)/3, eigenvalues (1 + 2 cos(2 pi k / n))/3.
TEST(Spectral, RingEigenvaluesClosedForm) {
  for (node_t n : {3, 8, 9, 40}) {
    std::vector<double> expected;
    for (node_t k = 0; k < n; ++k) expected.push_back((1 + 2 * std::cos(2 * std::numbers::pi * k / n)) / 3);
    std::sort(expected.begin(), expected.end());
    std::vector<double> got = eigenvalues(metropolis(ring_graph(n)));
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], expected[i], 1e-13) << "n " << n << " i " << i;
    SpectralSummary s = spectral_summary(metropolis(ring_graph(n)));
    EXPECT_EQ(s.method, "dense");
    EXPECT_NEAR(s.lambda_2, expected[n - 2], 1e-13);
    EXPECT_NEAR(s.lambda_min, expected[0], 1e-13);
  }
}

// Hypercube under metropolis: W = (I + A)/(d + 1), eigenvalues 1 - 2k/(d + 1) with multiplicity C(d, k).
TEST(Spectral, HypercubeEigenvaluesClosedForm) {
  const int d = 6;
  std::vector<double> expected;
  for (int k = d; k >= 0; --k)
    expected.insert(expected.end(), std::size_t(binomial(d, k)), 1.0 - 2.0 * k / (d + 1));
  std::vector<double> got = eigenvalues(metropolis(hypercube_graph(d)));
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-13);
}

// n = 1024, the largest dense case.
TEST(Spectral, HypercubeDim10DenseSummary) {
  SpectralSummary s = spectral_summary(metropolis(hypercube_graph(10)));
  EXPECT_EQ(s.method, "dense");
  EXPECT_NEAR(s.lambda_2, 1 - 2.0 / 11, 1e-12);
  EXPECT_NEAR(s.lambda_min, 1 - 20.0 / 11, 1e-12);
}

// docs/math.md §2.2: W = J/n on K_n, so every eigenvalue but the first is 0.
TEST(Spectral, CompleteGraph) {
  SpectralSummary s = spectral_summary(metropolis(complete_graph(50)));
  EXPECT_NEAR(s.lambda_2, 0.0, 1e-13);
  EXPECT_NEAR(s.lambda_min, 0.0, 1e-13);
  EXPECT_NEAR(s.gap(GapDefinition::second), 1.0, 1e-13);
  // Beyond the dense limit J / n is circulant: its closed form (docs/weights_and_spectra.md).
  SpectralSummary big = spectral_summary(metropolis(complete_graph(1100)));
  EXPECT_EQ(big.method, "circulant");
  EXPECT_NEAR(big.lambda_2, 0.0, 1e-10);
  EXPECT_NEAR(big.lambda_min, 0.0, 1e-10);
}

// max-degree on K_4 is (J - I)/3: eigenvalues 1 and -1/3 (x3), so the two gap definitions differ.
TEST(Spectral, GapDefinitionsDifferWhenLambda2IsNegative) {
  SpectralSummary s = spectral_summary(gossip_matrix(complete_graph(4), Weighting::max_degree));
  EXPECT_NEAR(s.lambda_2, -1.0 / 3, 1e-14);
  EXPECT_NEAR(s.lambda_min, -1.0 / 3, 1e-14);
  EXPECT_NEAR(s.gap(GapDefinition::second), 4.0 / 3, 1e-14);
  EXPECT_NEAR(s.gap(GapDefinition::absolute), 2.0 / 3, 1e-14);
}

TEST(Spectral, TinyMatrices) {
  EXPECT_TRUE(eigenvalues(CsrMatrix{}).empty());
  EXPECT_TRUE(throws_invalid_input([] { spectral_summary(CsrMatrix{}); }));
  SpectralSummary one = spectral_summary(metropolis(graph_from_edges(1, {})));
  EXPECT_EQ(one.gap(GapDefinition::second), 1.0);
}

TEST(Spectral, RejectsNonSymmetricMatrices) {
  Graph g = graph_from_edges(3, std::vector<std::pair<node_t, node_t>>{{0, 1}, {1, 2}});
  CsrMatrix lazy = gossip_matrix(g, Weighting::lazy_uniform);  // path: 1/2 vs 1/4
  EXPECT_TRUE(throws_invalid_input([&] { eigenvalues(lazy); }, "symmetric"));
  EXPECT_TRUE(throws_invalid_input([&] { spectral_summary(lazy); }, "symmetric"));
}

// Appendix Z item 1: hypercube d = 11 (n = 2048, Lanczos), lambda_2 = 5/6, lambda_min = -5/6 (closed form),
// gap 1/6 both ways, gamma = 1.428926, T_stop(sigma = 1) = 19.
TEST(Spectral, HypercubeDim11Lanczos) {
  SpectralSummary s = spectral_summary(metropolis(hypercube_graph(11)));
  EXPECT_EQ(s.method, "lanczos");
  EXPECT_NEAR(s.lambda_2, 5.0 / 6, 1e-10);
  EXPECT_NEAR(s.lambda_min, -5.0 / 6, 1e-10);
  EXPECT_NEAR(s.gap(GapDefinition::second), 1.0 / 6, 1e-10);
  EXPECT_NEAR(s.gap(GapDefinition::absolute), 1.0 / 6, 1e-10);
  EXPECT_NEAR(chebyshev_gamma(s.gap(GapDefinition::second)), 1.428926, 1e-6);
  EXPECT_EQ(muffliato_stopping_time(2048, 1.0, s.gap(GapDefinition::second)), 19);
}

// Rings beyond the dense limit: W-MH = (I + A) / 3 is circulant, so its eigenvalues are the closed form
// (1 + 2 cos(2 pi k / n)) / 3 of docs/math.md §2.5. At n = 10000 the gap 1 - lambda_2 = (2/3)(1 - cos(2 pi /
// n)) ~ 1.3e-7 is beyond Lanczos's 3000 steps; the circulant path gets lambda_2 to its last digits.
TEST(Spectral, RingSpectrumIsTheCirculantClosedForm) {
  for (node_t n : {1100, 10000}) {
    SpectralSummary s = spectral_summary(metropolis(ring_graph(n)));
    EXPECT_EQ(s.method, "circulant");
    const double gap = 2.0 / 3 * 2 * std::pow(std::sin(std::numbers::pi / n), 2);  // (2/3)(1 - cos(2 pi / n))
    EXPECT_NEAR(s.gap(GapDefinition::second), gap, 1e-15) << n;  // lambda_2 to its last digits
    EXPECT_NEAR(s.lambda_min, -1.0 / 3, 1e-14) << n;  // k = n / 2
  }
  // Odd n: no k with cos = -1; the smallest is at k = (n - 1) / 2.
  const node_t odd = 1101;
  SpectralSummary s = spectral_summary(metropolis(ring_graph(odd)));
  EXPECT_EQ(s.method, "circulant");
  EXPECT_NEAR(s.lambda_min, (1 + 2 * std::cos(2 * std::numbers::pi * 550 / odd)) / 3, 1e-14);
}

// Complete graph K_1500: W-MH = J / n is circulant with every eigenvalue but one 0. Exponential graph
// (i ~ i +- 2^k mod n) with uniform weights is circulant too: checked against the dense solver.
TEST(Spectral, OtherCirculantGraphsMatchTheDenseSolver) {
  SpectralSummary complete = spectral_summary(metropolis(complete_graph(1500)));
  EXPECT_EQ(complete.method, "circulant");
  EXPECT_NEAR(complete.lambda_2, 0.0, 1e-12);  // a sum of 1500 terms 1/1500 cos(...)
  EXPECT_NEAR(complete.lambda_min, 0.0, 1e-12);
  const CsrMatrix w = metropolis(exponential_graph(1040));
  SpectralSummary s = spectral_summary(w);
  EXPECT_EQ(s.method, "circulant");
  const std::vector<double> dense = eigenvalues(w);
  EXPECT_NEAR(s.lambda_2, dense[dense.size() - 2], 1e-12);
  EXPECT_NEAR(s.lambda_min, dense.front(), 1e-12);
}

// 45 x 45 grid (n = 2025): no closed form under metropolis, so Lanczos is checked against the dense solver.
// Appendix Z item 13: gap 9.851e-4 and T_mix = 243 for sigma = 1.
TEST(Spectral, GridLanczosMatchesDense) {
  CsrMatrix w = metropolis(grid_graph(45, 45));
  SpectralSummary s = spectral_summary(w);
  EXPECT_EQ(s.method, "lanczos");
  std::vector<double> dense = eigenvalues(w);
  EXPECT_NEAR(dense.back(), 1.0, 1e-12);
  EXPECT_NEAR(s.lambda_2, dense[dense.size() - 2], 1e-10);
  EXPECT_NEAR(s.lambda_min, dense.front(), 1e-10);
  EXPECT_NEAR(s.gap(GapDefinition::second), 9.851e-4, 0.5e-7);
  EXPECT_EQ(muffliato_stopping_time(2025, 1.0, s.gap(GapDefinition::second)), 243);
}

// Two disjoint hypercubes: eigenvalue 1 twice, so lambda_2 = 1 (gap 0) even in the complement of 1.
TEST(Spectral, DisconnectedGraphHasZeroGap) {
  SpectralSummary s = spectral_summary(metropolis(hypercubes(10, 2)));
  EXPECT_EQ(s.method, "lanczos");
  EXPECT_NEAR(s.lambda_2, 1.0, 1e-10);
  EXPECT_NEAR(s.lambda_min, 1 - 20.0 / 11, 1e-10);
}

// docs/math.md §2.4 as printed, compared with the implementation on (0, 2).
TEST(Spectral, ChebyshevGamma) {
  EXPECT_NEAR(chebyshev_gamma(1.0 / 6), 1.428926, 1e-6);
  for (double g : {1e-8, 1e-4, 0.01, 0.3, 0.5, 1.0, 1.5, 1.9}) {
    const double printed = 2 * (1 - std::sqrt(g * (1 - g / 4))) / std::pow(1 - g / 2, 2);
    EXPECT_NEAR(chebyshev_gamma(g), printed, 1e-9 * printed) << "gap " << g;
    EXPECT_GE(chebyshev_gamma(g), 1.0);
    EXPECT_LT(chebyshev_gamma(g), 2.0);
  }
  EXPECT_DOUBLE_EQ(chebyshev_gamma(2.0), 1.0);  // the limit of the printed form
  EXPECT_DOUBLE_EQ(chebyshev_gamma(1.0), 2.0 / (1.0 + std::sqrt(0.75)));
  for (double bad : {0.0, -0.1, 2.0001, std::nan("")})
    EXPECT_TRUE(throws_invalid_input([&] { chebyshev_gamma(bad); }, "gap")) << bad;
}

// docs/math.md §2.3, code rule: T = ceil(ln((n / sigma^2) max(0.25, sigma^2)) / sqrt(gap)).
TEST(Spectral, MuffliatoStoppingTime) {
  EXPECT_EQ(muffliato_stopping_time(2048, 1.0, 1.0 / 6), 19);  // ln 2048 sqrt 6 = 18.68
  EXPECT_EQ(muffliato_stopping_time(2048, 0.1, 1.0 / 6), 27);  // ln(204800 * 0.25) sqrt 6 = 26.56
  EXPECT_EQ(muffliato_stopping_time(100, 2.0, 0.25), 10);      // 2 ln 100 = 9.21
  EXPECT_EQ(muffliato_stopping_time(1, 1.0, 0.5), 1);          // ln 1 = 0, at least 1
  EXPECT_TRUE(throws_invalid_input([] { muffliato_stopping_time(2048, 1.0, 0.0); }, "disconnected"));
  EXPECT_TRUE(throws_invalid_input([] { muffliato_stopping_time(2048, 1.0, 1e-16); }, "(steps auto)"));
  EXPECT_TRUE(throws_invalid_input([] { muffliato_stopping_time(2048, 0.0, 0.5); }, "sigma"));
  EXPECT_TRUE(throws_invalid_input([] { muffliato_stopping_time(2048, -1.0, 0.5); }, "sigma"));
  EXPECT_TRUE(throws_invalid_input([] { muffliato_stopping_time(2048, 1e-100, 1e-14); }, "too large"));
}

}  // namespace
}  // namespace netdp
