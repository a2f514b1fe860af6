// SecLDP, netdp's reading (docs/math.md §9.4): every message is seen, each edge adds a pairwise-cancelling
// secret that the attacker knows only on its own edges. Hand calculations on a path of three nodes, the
// limits (secret-ratio 0, a leaf at the attacker, very large secrets), symmetry, and the library against a
// dense covariance construction written here (the Mahalanobis distance of a gradient change, no projector).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_correlation.hpp"
#include "netdp/mf/mf_trust.hpp"
#include "support/test_support.hpp"

namespace netdp::mf {
namespace {

using testing::all_nodes;
using testing::expect_invalid;
const double inf = std::numeric_limits<double>::infinity();

Matrix secldp(const std::string& graph, const Matrix& c, const std::string& participation,
              const std::vector<node_t>& attackers, double ratio) {
  const CsrMatrix w = mf_gossip_matrix(make_graph(graph), "average");
  return pairwise_sensitivity(TrustModel::secldp, w, c, parse_participation(participation, int(c.rows)),
                              attackers, true, ratio);
}

// Path 0 - 1 - 2, one step, C = I, local noise z_u ~ N(0, 1), secrets s_01 = -s_10, s_12 = -s_21 of std r.
// Attacker 0 knows z_0 and s_01, so it reads (after removing them)
//   y_1 = g_1 + z_1 + s_12,   y_2 = g_2 + z_2 - s_12,
// noise covariance S = [[1 + r^2, -r^2], [-r^2, 1 + r^2]], det 1 + 2 r^2, S^-1 = [[1 + r^2, r^2], [r^2, 1 +
// r^2]] / (1 + 2 r^2). A change of g_1 by 1 moves the mean by (1, 0): sens^2 = (S^-1)_11 = (1 + r^2) / (1 + 2
// r^2) (2/3 at r = 1, 5/9 at r = 2); victim 2 the same by symmetry. Attacker 1 holds both secrets: y_0 = g_0
// + z_0 and y_2 = g_2 + z_2, sens^2 = 1, LDP's value.
TEST(MfTrustSecldp, PathOfThreeOneStepByHand) {
  for (const double r : {1.0, 2.0}) {
    const double kappa = (1 + r * r) / (1 + 2 * r * r);
    const Matrix s = secldp("path:n=3", Matrix::identity(1), "every", {0, 1, 2}, r);
    EXPECT_EQ(s(0, 0), inf);
    EXPECT_NEAR(s(0, 1), std::sqrt(kappa), 1e-14) << r;
    EXPECT_NEAR(s(0, 2), std::sqrt(kappa), 1e-14) << r;
    EXPECT_NEAR(s(1, 0), 1.0, 1e-14);
    EXPECT_EQ(s(1, 1), inf);
    EXPECT_NEAR(s(1, 2), 1.0, 1e-14);
    EXPECT_NEAR(s(2, 0), std::sqrt(kappa), 1e-14);
    EXPECT_NEAR(s(2, 1), std::sqrt(kappa), 1e-14);
  }
  EXPECT_NEAR(secldp("path:n=3", Matrix::identity(1), "every", {0}, 1.0)(0, 1), std::sqrt(2.0 / 3), 1e-14);
}

// The same path, T = 2, C = tri(2) = [[1, 0], [1, 1]] (ANTIPGD). Secrets are fresh at every step, so the
// noise of (y_1, y_2) over the two steps has covariance S (x) I_2, and the data term of victim 1 is C g_1. A
// change d of g_1 (|d_t| <= 1) has Mahalanobis distance (S^-1)_11 ||C d||^2 = kappa d^T C^T C d with C^T C =
// [[2, 1], [1, 1]]. Participation every: d = (1, 1), sens^2 = 5 kappa (10/3 at r = 1). Single participation
// (one step, either): max(2, 1) kappa = 4/3.
TEST(MfTrustSecldp, PathOfThreeTwoStepsByHand) {
  const double kappa = 2.0 / 3;
  const Matrix every = secldp("path:n=3", prefix_sum(2), "every", {0, 1}, 1.0);
  EXPECT_NEAR(every(0, 1), std::sqrt(5 * kappa), 1e-13);
  EXPECT_NEAR(every(0, 2), std::sqrt(5 * kappa), 1e-13);
  EXPECT_NEAR(every(1, 0), std::sqrt(5.0), 1e-13);  // LDP: sens_Pi(tri(2))^2 = 5
  EXPECT_NEAR(every(1, 2), std::sqrt(5.0), 1e-13);
  const Matrix single = secldp("path:n=3", prefix_sum(2), "single", {0}, 1.0);
  EXPECT_NEAR(single(0, 1), std::sqrt(2 * kappa), 1e-13);
  // T = 2 with C = I, every step: twice the one-step value.
  EXPECT_NEAR(secldp("path:n=3", Matrix::identity(2), "every", {0}, 1.0)(0, 2), std::sqrt(2 * kappa), 1e-13);
}

TEST(MfTrustSecldp, TheStepModelIsTheGenericObservationModel) {
  // Path 0 - 1 - 2, attacker 0: rows are nodes 1 and 2, columns z_0 z_1 z_2 s_12; v's column stays empty.
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  const ObservationModel m = secldp_step_model(w, 0, 0.5);
  ASSERT_EQ(m.b.rows, 2);
  ASSERT_EQ(m.b.cols, 4);
  const std::vector<double> b = {0, 1, 0, 0.5, 0, 0, 1, -0.5};
  EXPECT_EQ(m.b.a, b);
  EXPECT_EQ(m.c.a, Matrix::identity(4).a);
  ASSERT_EQ(m.victims.size(), 3u);
  validate(m, nullptr);
  // Attacker 1 holds both edges: no secret column.
  EXPECT_EQ(secldp_step_model(w, 1, 0.5).b.cols, 3);
  expect_invalid([&] { secldp_step_model(w, 0, -1.0); }, "secret-ratio");
  expect_invalid([&] { secldp_step_model(w, 0, std::nan("")); }, "secret-ratio");
  expect_invalid([&] { secldp_step_model(w, 3, 1.0); }, "attackers");
  expect_invalid(
      [&] {
        pairwise_sensitivity(TrustModel::secldp, w, Matrix::identity(1), parse_participation("every", 1), {0},
                             false, -0.5);
      },
      "secret-ratio");
  EXPECT_EQ(parse_trust("secldp"), TrustModel::secldp);
  EXPECT_EQ(to_string(TrustModel::secldp), "secldp");
}

TEST(MfTrustSecldp, NoSecretsIsLdp) {
  // secret-ratio 0: exactly LDP; small ratios approach it from below, and larger secrets hide more.
  const Matrix c = toeplitz(sr_coefficients(4), 0, false);
  const CsrMatrix w = mf_gossip_matrix(make_graph("florentine"), "average");
  const Participation p = parse_participation("cyclic:b=2,k=2", 4);
  const Matrix ldp = pairwise_sensitivity(TrustModel::ldp, w, c, p, all_nodes(w.n), false);
  const Matrix zero = pairwise_sensitivity(TrustModel::secldp, w, c, p, all_nodes(w.n), true, 0.0);
  const Matrix tiny = pairwise_sensitivity(TrustModel::secldp, w, c, p, all_nodes(w.n), true, 1e-4);
  const Matrix one = pairwise_sensitivity(TrustModel::secldp, w, c, p, all_nodes(w.n), true, 1.0);
  const Matrix big = pairwise_sensitivity(TrustModel::secldp, w, c, p, all_nodes(w.n), true, 10.0);
  bool some_below = false;
  for (std::size_t i = 0; i < ldp.a.size(); ++i) {
    if (std::isinf(ldp.a[i])) {
      EXPECT_TRUE(std::isinf(zero.a[i]) && std::isinf(one.a[i]));
      continue;
    }
    EXPECT_NEAR(zero.a[i], ldp.a[i], 1e-12 * ldp.a[i]) << i;
    // kappa = 1 - r^2 L_uu + O(r^4): within deg 1e-8 / 2 relative.
    EXPECT_NEAR(tiny.a[i], ldp.a[i], 1e-7 * ldp.a[i]) << i;
    EXPECT_LE(one.a[i], ldp.a[i] * (1 + 1e-12)) << i;
    EXPECT_LE(big.a[i], one.a[i] * (1 + 1e-12)) << i;
    some_below = some_below || one.a[i] < 0.99 * ldp.a[i];
  }
  EXPECT_TRUE(some_below);
}

TEST(MfTrustSecldp, EveryEdgeKnownIsLdp) {
  // A star's leaves: each one's only secret is shared with the centre. The centre attacking: every leaf at
  // LDP's value. A leaf attacking: the other leaves' secrets (with the centre) are hidden, so they gain.
  const Matrix c = prefix_sum(3);
  const double ldp = sensitivity(c, parse_participation("every", 3));
  const Matrix centre = secldp("star:n=5", c, "every", {0}, 1.0);
  for (node_t u = 1; u < 5; ++u) EXPECT_NEAR(centre(0, u), ldp, 1e-12 * ldp) << u;
  // Path 0 - 1 - 2 - 3 - 4, attacker 1: leaf 0 hangs on the attacker (LDP); node 2 keeps the secret s_23.
  const Matrix path = secldp("path:n=5", c, "every", {1}, 1.0);
  EXPECT_NEAR(path(0, 0), ldp, 1e-12 * ldp);
  EXPECT_LT(path(0, 2), 0.99 * ldp);
}

TEST(MfTrustSecldp, LargeSecretsLeaveOnlyTheComponentSum) {
  // As r -> oo, (I + r^2 L)^-1 -> the projector on L's kernel: kappa_u -> 1 / |K_u|, K_u u's component in
  // G - v. Path 0 - 1 - 2 - 3, attacker 0: G - v is the path 1 - 2 - 3 (kappa -> 1/3, error <= 1 / (r^2
  // lambda_2), lambda_2 = 1); attacker 1: {0} alone (1) and 2 - 3 (1/2).
  const double r = 1e3;
  const Matrix s = secldp("path:n=4", Matrix::identity(1), "single", {0, 1}, r);
  for (node_t u = 1; u < 4; ++u) EXPECT_NEAR(s(0, u) * s(0, u), 1.0 / 3, 2e-6) << u;
  EXPECT_NEAR(s(1, 0), 1.0, 1e-12);
  EXPECT_NEAR(s(1, 2) * s(1, 2), 0.5, 2e-6);
  EXPECT_NEAR(s(1, 3) * s(1, 3), 0.5, 2e-6);
}

TEST(MfTrustSecldp, SymmetricWhereTheGraphIs) {
  // A ring of 7: the loss depends only on the offset u - v, and offsets d and -d agree (the reflection).
  const Matrix s = secldp("ring:n=7", prefix_sum(3), "cyclic:b=3,k=1", all_nodes(7), 0.8);
  for (node_t v = 0; v < 7; ++v)
    for (node_t u = 0; u < 7; ++u) {
      if (u == v) continue;
      const node_t d = (u - v + 7) % 7;
      EXPECT_NEAR(s(v, u), s(0, d), 1e-12) << v << " " << u;
      EXPECT_NEAR(s(0, d), s(0, 7 - d), 1e-12) << d;
    }
  // The path of 3: attacker 0's row mirrors attacker 2's.
  const Matrix p = secldp("path:n=3", prefix_sum(2), "every", {0, 2}, 1.7);
  EXPECT_NEAR(p(0, 1), p(1, 1), 1e-12);
  EXPECT_NEAR(p(0, 2), p(1, 0), 1e-12);
}

// --- Independent: the Mahalanobis distance under the explicit noise covariance of the T-step view. ---

// Inverse of a symmetric positive definite matrix by Gauss-Jordan (no pivoting needed).
Matrix gauss_jordan_inverse(Matrix a) {
  const std::int64_t n = a.rows;
  Matrix inv = Matrix::identity(n);
  for (std::int64_t k = 0; k < n; ++k) {
    const double pivot = a(k, k);
    for (std::int64_t j = 0; j < n; ++j) a(k, j) /= pivot, inv(k, j) /= pivot;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == k) continue;
      const double f = a(i, k);
      for (std::int64_t j = 0; j < n; ++j) a(i, j) -= f * a(k, j), inv(i, j) -= f * inv(k, j);
    }
  }
  return inv;
}

// Attacker v observes Y_(u,t) = (C_u g_u)_t + z_(u,t) + sum_{e = {u, x}, v not in e} +-r xi_(e,t) for u != v.
// Cov(Y) = I + r^2 sum_e d_e d_e^T per step (d_e = e_i - e_j), written entry by entry over (u, t) pairs.
// sens^2(u) = max_j sum_{s,t in pi_j} |(C_u^T (Cov^-1)_{uu} C_u)_{st}|.
std::vector<double> dense_secldp_row(const Graph& g, const std::vector<Matrix>& cs, const Participation& p,
                                     node_t v, double r) {
  const int n = g.n, T = p.steps();
  std::vector<int> index(n, -1);
  int k = 0;
  for (int u = 0; u < n; ++u)
    if (u != v) index[u] = k++;
  Matrix cov(k * T, k * T);
  for (int i = 0; i < k * T; ++i) cov(i, i) = 1.0;
  for (int i = 0; i < n; ++i)
    for (node_t j : g.neighbors(i)) {
      if (i >= j || i == v || j == v) continue;
      for (int t = 0; t < T; ++t) {
        const int a = index[i] * T + t, b = index[j] * T + t;
        cov(a, a) += r * r, cov(b, b) += r * r, cov(a, b) -= r * r, cov(b, a) -= r * r;
      }
    }
  const Matrix prec = gauss_jordan_inverse(cov);
  std::vector<double> out(n, inf);
  for (int u = 0; u < n; ++u) {
    if (u == v) continue;
    const Matrix& c = cs.size() == 1 ? cs[0] : cs[u];
    Matrix block(T, T);
    for (int s = 0; s < T; ++s)
      for (int t = 0; t < T; ++t) block(s, t) = prec(index[u] * T + s, index[u] * T + t);
    out[u] = std::sqrt(sensitivity_squared(multiply(multiply(c, block, true, false), c), p));
  }
  return out;
}

TEST(MfTrustSecldp, EqualsTheDenseCovarianceConstruction) {
  const Graph g = make_graph("er:n=8,p=0.4,seed=3");
  const CsrMatrix w = mf_gossip_matrix(g, "average");
  const int T = 3;
  std::vector<Matrix> cs;  // one lower-triangular C per node (MAFALDA-L's layout)
  for (node_t u = 0; u < g.n; ++u) {
    Matrix c(T, T);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j <= i; ++j) c(i, j) = i == j ? 1.0 + 0.2 * u : 0.4 / (1 + i - j + u);
    cs.push_back(c);
  }
  for (const std::string participation : {"every", "single"}) {
    const Participation p = parse_participation(participation, T);
    for (const double r : {0.3, 1.0, 2.5}) {
      const Matrix s = pairwise_sensitivity(TrustModel::secldp, w, cs, p, all_nodes(g.n), true, r);
      for (node_t v = 0; v < g.n; ++v) {
        const std::vector<double> dense = dense_secldp_row(g, cs, p, v, r);
        for (node_t u = 0; u < g.n; ++u) {
          if (u == v) {
            EXPECT_EQ(s(v, u), inf);
          } else {
            EXPECT_NEAR(s(v, u), dense[u], 1e-10 * dense[u])
                << participation << " r " << r << " v " << v << " u " << u;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace netdp::mf
