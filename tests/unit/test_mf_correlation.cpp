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

void expect_feasible(const OptimizeResult& r, const Participation& p);

void expect_optimum(const Matrix& gram, const Participation& p) {
  const OptimizeResult r = optimize_factorization(gram, p, 10000);
  const int T = p.steps();
  // Feasible to 1e-10: the masked entries vanish, every class's diagonal sums to 1, C^T C = X.
  expect_feasible(r, p);
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

void expect_feasible(const OptimizeResult& r, const Participation& p) {
  const int b = p.batches, k = p.epochs;
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
}

TEST(MfCorrelation, NodeGramsAreTheDenseColumnBlocks) {
  // A_i = node i's T columns of the post-average workload in node-major order (§9.6): A_i^T A_i from the
  // dense (nT) x (nT) construction, and the per-node Grams sum to G_W.
  const CsrMatrix w = mf_gossip_matrix(make_graph("er:n=9,p=0.4,seed=3"), "average");
  const int n = w.n, T = 5;
  for (int power : {0, 1}) {
    const Matrix dense = dense_workload(w, T, power);  // time-major: column s n + i
    const std::vector<Matrix> grams = node_workload_grams(w, T, power, true);
    ASSERT_EQ(static_cast<int>(grams.size()), n);
    Matrix sum(T, T);
    for (int i = 0; i < n; ++i) {
      for (int s = 0; s < T; ++s)
        for (int r = 0; r < T; ++r) {
          double x = 0.0;
          for (int row = 0; row < n * T; ++row) x += dense(row, s * n + i) * dense(row, r * n + i);
          EXPECT_NEAR(grams[i](s, r), x, 1e-12 * std::max(1.0, x)) << "node " << i;
          sum(s, r) += grams[i](s, r);
        }
    }
    const Matrix g = workload_gram(w, T, power, false);
    for (std::size_t k = 0; k < g.a.size(); ++k) EXPECT_NEAR(sum.a[k], g.a[k], 1e-11 * std::max(1.0, g.a[k]));
  }
}

TEST(MfCorrelation, MafaldaLocalIsFeasibleAndBeatsTheSharedC) {
  // MAFALDA-L (§9.5): one C per node, each feasible to 1e-10; as the shared X is feasible for every node,
  // sum_u tr(G_u X_u^-1) <= tr(G_W X^-1) = MAFALDA's objective.
  const CsrMatrix w = mf_gossip_matrix(make_graph("florentine"), "average");
  for (const char* scheme : {"cyclic:b=3,k=2", "every"}) {
    const Participation p = parse_participation(scheme, 6);
    const std::vector<Matrix> grams = node_workload_grams(w, 6, 1, true);
    const std::vector<OptimizeResult> local = optimize_per_node(grams, p, 10000, true);
    const OptimizeResult shared = optimize_factorization(workload_gram(w, 6, 1, false), p, 10000);
    double sum = 0.0, shared_by_node = 0.0;
    for (std::size_t u = 0; u < grams.size(); ++u) {
      expect_feasible(local[u], p);
      EXPECT_NEAR(sensitivity(local[u].c, p), 1.0, 1e-10);
      sum += workload_error(grams[u], local[u].c);
      shared_by_node += workload_error(grams[u], shared.c);
    }
    EXPECT_NEAR(shared_by_node, workload_error(workload_gram(w, 6, 1, false), shared.c),
                1e-9 * shared_by_node);
    EXPECT_LE(sum, shared_by_node * (1 + 1e-9)) << scheme;
    // Through the family: one C per node, the same as the direct optimisation.
    CorrelationSpec spec = parse_correlation("mafalda-l");
    int iterations = 0;
    bool converged = false;
    const std::vector<Matrix> c = correlation_matrices(spec, p, &w, &iterations, &converged);
    ASSERT_EQ(c.size(), grams.size());
    EXPECT_GT(iterations, 0);
    for (std::size_t u = 0; u < c.size(); ++u) EXPECT_EQ(c[u].a, local[u].c.a);
    EXPECT_EQ(display_name(spec.kind), "MAFALDA-L-SGD");
  }
  expect_invalid(
      [] { correlation_matrices(parse_correlation("mafalda-l"), parse_participation("every", 3), nullptr); },
      "correlation");
}

TEST(MfCorrelation, PerNodeFileAndStacking) {
  // A (n T) x T file gives one C per node; stack_rows writes them back in the same layout.
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  std::vector<Matrix> c = {Matrix::identity(2), prefix_sum(2), toeplitz({1.0, 0.25}, 0, false)};
  const std::string path = ::testing::TempDir() + "mf_per_node_c.npy";
  write_npy_matrix(path, stack_rows(c));
  const Participation p = parse_participation("every", 2);
  const std::vector<Matrix> back = correlation_matrices(parse_correlation("file:" + path), p, &w);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t u = 0; u < 3; ++u) EXPECT_EQ(back[u].a, c[u].a);
  // Without a graph only a T x T file is accepted.
  expect_invalid([&] { correlation_matrices(parse_correlation("file:" + path), p, nullptr); }, "correlation");
}

}  // namespace
}  // namespace netdp::mf
