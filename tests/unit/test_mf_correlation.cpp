// Correlation families and the MAFALDA optimiser (docs/math.md §9.5, §9.6): closed forms, invariants and the
// optimiser's feasibility and objective against LDP and ANTIPGD.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_correlation.hpp"
#include "support/test_support.hpp"

namespace netdp::mf {
namespace {

using testing::expect_invalid;

double binomial_central_over_4k(int k) {  // C(2k, k) / 4^k as a running product of (2j - 1) / (2j)
  double v = 1.0;
  for (int j = 1; j <= k; ++j) v *= (2.0 * j - 1.0) / (2.0 * j);
  return v;
}

TEST(MfCorrelation, SrCoefficientsAreCentralBinomials) {
  const auto y = sr_coefficients(30);
  for (int k = 0; k < 30; ++k) EXPECT_NEAR(y[k], binomial_central_over_4k(k), 1e-15) << k;
  EXPECT_DOUBLE_EQ(y[1], 0.5);
  EXPECT_DOUBLE_EQ(y[2], 0.375);
}

TEST(MfCorrelation, SrSquaresToThePrefixSum) {
  const Matrix c = toeplitz(sr_coefficients(8), 0, false);
  const Matrix square = multiply(c, c);
  const Matrix a = prefix_sum(8);
  for (std::size_t i = 0; i < a.a.size(); ++i) EXPECT_NEAR(square.a[i], a.a[i], 1e-14);
}

TEST(MfCorrelation, BandedAndSymmetricToeplitz) {
  const Matrix bsr = toeplitz(sr_coefficients(6), 2, false);
  EXPECT_DOUBLE_EQ(bsr(1, 0), 0.5);
  EXPECT_DOUBLE_EQ(bsr(2, 0), 0.0);
  EXPECT_DOUBLE_EQ(bsr(0, 1), 0.0);
  const Matrix sym = toeplitz(sr_coefficients(6), 0, true);
  EXPECT_DOUBLE_EQ(sym(0, 2), 0.375);
  EXPECT_DOUBLE_EQ(sym(2, 0), 0.375);
  // The family through the spec: bsr's band defaults to the participation's b.
  CorrelationSpec spec = parse_correlation("bsr");
  const Matrix c = correlation_matrix(spec, parse_participation("cyclic:b=3,k=2", 6), nullptr);
  EXPECT_DOUBLE_EQ(c(2, 0), 0.375);
  EXPECT_DOUBLE_EQ(c(3, 0), 0.0);
}

TEST(MfCorrelation, ParseErrors) {
  expect_invalid([] { parse_correlation("best"); }, "correlation");
  expect_invalid([] { parse_correlation("file:"); }, "correlation");
  expect_invalid(
      [] { correlation_matrix(parse_correlation("mafalda"), parse_participation("every", 3), nullptr); },
      "correlation");
  expect_invalid(
      [] {
        correlation_matrix(parse_correlation("file:/nonexistent.npy"), parse_participation("every", 3),
                           nullptr);
      },
      "correlation");
}

TEST(MfCorrelation, FactorFromGramIsLowerTriangularSquareRoot) {
  Matrix x = multiply(prefix_sum(5), prefix_sum(5), true, false);
  const Matrix c = factor_from_gram(x);
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) EXPECT_EQ(c(i, j), 0.0);
  const Matrix back = multiply(c, c, true, false);
  for (std::size_t i = 0; i < x.a.size(); ++i) EXPECT_NEAR(back.a[i], x.a[i], 1e-12);
}

TEST(MfCorrelation, SurrogateEqualsGramWhenPersymmetric) {
  // A symmetric Toeplitz matrix is persymmetric: the surrogate's Gram is the Gram itself.
  Matrix g = toeplitz({4.0, 1.0, 0.5, 0.25}, 0, true);
  const Matrix s = surrogate_gram(g);
  for (std::size_t i = 0; i < g.a.size(); ++i) EXPECT_NEAR(s.a[i], g.a[i], 1e-13);
  // The Florentine Gram is not persymmetric (docs/math.md Appendix Z item 11): the surrogate differs.
  const CsrMatrix w = mf_gossip_matrix(make_graph("florentine"), "average");
  const Matrix gw = workload_gram(w, 6, 1, false);
  const Matrix sw = surrogate_gram(gw);
  double diff = 0.0;
  for (std::size_t i = 0; i < gw.a.size(); ++i) diff = std::max(diff, std::abs(sw.a[i] - gw.a[i]));
  EXPECT_GT(diff, 1e-3);
}

void expect_optimum(const Matrix& gram, const Participation& p) {
  const OptimizeResult r = optimize_factorization(gram, p, 10000);
  const int b = p.batches, k = p.epochs, T = p.steps();
  // Feasible to 1e-10: the masked entries vanish, every class's diagonal sums to 1, C^T C = X.
  for (int j = 0; j < b; ++j) {
    double sum = 0.0;
    for (int e = 0; e < k; ++e) {
      sum += r.x(j + e * b, j + e * b);
      for (int f = 0; f < k; ++f)
        if (f != e) {
          EXPECT_NEAR(r.x(j + e * b, j + f * b), 0.0, 1e-10);
        }
    }
    EXPECT_NEAR(sum, 1.0, 1e-10);
  }
  const Matrix ctc = multiply(r.c, r.c, true, false);
  for (std::size_t i = 0; i < ctc.a.size(); ++i) EXPECT_NEAR(ctc.a[i], r.x.a[i], 1e-10);
  EXPECT_NEAR(sensitivity(r.c, p), 1.0, 1e-10);
  // sens^2 tr(G X^-1) below LDP's and ANTIPGD's.
  const double ours = workload_error(gram, r.c);
  for (const Matrix& other : {Matrix::identity(T), prefix_sum(T)}) {
    const double s = sensitivity(other, p);
    EXPECT_LT(ours, s * s * workload_error(gram, other) * (1 - 1e-6));
  }
}

TEST(MfCorrelation, OptimiserOnPrefixSumAndDecentralizedGrams) {
  const Matrix a = prefix_sum(8);
  expect_optimum(multiply(a, a, true, false), parse_participation("cyclic:b=4,k=2", 8));
  expect_optimum(multiply(a, a, true, false), parse_participation("single", 8));
  const CsrMatrix w = mf_gossip_matrix(make_graph("florentine"), "average");
  expect_optimum(workload_gram(w, 6, 1, false), parse_participation("cyclic:b=3,k=2", 6));
  expect_optimum(workload_gram(w, 6, 0, false), parse_participation("every", 6));
}

TEST(MfCorrelation, WorkloadErrorClosedForms) {
  // C = I: tr(G); C = 0: infinite.
  const Matrix g = toeplitz({4.0, 1.0, 0.5}, 0, true);
  EXPECT_DOUBLE_EQ(workload_error(g, Matrix::identity(3)), 12.0);
  EXPECT_TRUE(std::isinf(workload_error(g, Matrix(3, 3))));
  // ANTIPGD on the prefix sum: tri tri^-1 = I, so ||I||_F^2 = T.
  const Matrix a = prefix_sum(5);
  EXPECT_NEAR(workload_error(multiply(a, a, true, false), a), 5.0, 1e-12);
}

}  // namespace
}  // namespace netdp::mf
