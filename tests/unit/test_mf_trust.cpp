// Pairwise sensitivities under the trust models (docs/math.md §9.3, §9.4): closed forms on tiny cases, the
// centralized reduction, and the structured PNDP rows against a dense construction written here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_correlation.hpp"
#include "netdp/mf/mf_trust.hpp"
#include "support/test_support.hpp"

namespace netdp::mf {
namespace {

using testing::expect_invalid;
const double inf = std::numeric_limits<double>::infinity();

std::vector<node_t> all_nodes(node_t n) {
  std::vector<node_t> v(static_cast<std::size_t>(n));
  for (node_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

CsrMatrix identity_gossip(node_t n) {
  std::vector<Triplet> t;
  for (node_t u = 0; u < n; ++u) t.push_back({u, u, 1.0});
  return csr_from_triplets(n, t);
}

TEST(MfTrust, LdpGivesThePlainSensitivity) {
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=4"), "average");
  const Participation p = parse_participation("cyclic:b=2,k=2", 4);
  const Matrix s = pairwise_sensitivity(TrustModel::ldp, w, prefix_sum(4), p, {0, 2}, false);
  EXPECT_EQ(s(0, 0), inf);
  EXPECT_EQ(s(1, 2), inf);
  EXPECT_DOUBLE_EQ(s(0, 3), std::sqrt(10.0));  // by hand in test_mf_workload
  EXPECT_DOUBLE_EQ(s(1, 1), std::sqrt(10.0));
}

TEST(MfTrust, CompleteGraphReducesToTheCentralizedSensitivity) {
  // Every attacker sees every message: B restricted to the others is square invertible, so the PNDP
  // sensitivity is sens_Pi(C) (docs/math.md §9.3).
  const CsrMatrix w = mf_gossip_matrix(make_graph("complete:n=4"), "average");
  const Participation p = parse_participation("cyclic:b=2,k=2", 4);
  for (const Matrix& c : {Matrix::identity(4), prefix_sum(4), toeplitz(sr_coefficients(4), 0, false)}) {
    const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, c, p, all_nodes(4), true);
    for (int v = 0; v < 4; ++v)
      for (int u = 0; u < 4; ++u)
        if (u == v) {
          EXPECT_EQ(s(v, u), inf);
        } else {
          EXPECT_NEAR(s(v, u), sensitivity(c, p), 1e-12) << v << " " << u;
        }
  }
}

TEST(MfTrust, IdentityGossipHidesEveryone) {
  // W = I: an attacker sees only its own messages, so every other victim has sensitivity 0.
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, identity_gossip(3), prefix_sum(2),
                                        parse_participation("every", 2), all_nodes(3), false);
  for (int v = 0; v < 3; ++v)
    for (int u = 0; u < 3; ++u) EXPECT_EQ(s(v, u), u == v ? inf : 0.0);
}

TEST(MfTrust, OneStepOnAPath) {
  // T = 1, C = I: attacker v sees the noisy gradients of N(v) and itself: neighbours 1, others 0.
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=4"), "average");
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, Matrix::identity(1),
                                        parse_participation("every", 1), {1}, false);
  EXPECT_DOUBLE_EQ(s(0, 0), 1.0);
  EXPECT_EQ(s(0, 1), inf);
  EXPECT_DOUBLE_EQ(s(0, 2), 1.0);
  EXPECT_DOUBLE_EQ(s(0, 3), 0.0);
}

TEST(MfTrust, TwoStepsOnAPathByHand) {
  // Path 0-1-2, W = average, T = 2, C = I, attacker 0 (sees nodes 0 and 1, knows z_0). Without node 0's
  // columns the observed rows are z_1(0), z_1(0) / 2 and z_1(0) / 3 + z_2(0) / 3 + z_1(1): the row space is
  // spanned by e_(1,0) and (e_(1,1) + e_(2,0) / 3) / sqrt(10/9). Victim 2: X = diag(1/10, 0), sens^2 = 0.1;
  // victim 1: X = diag(1, 9/10), sens^2 = 1.9 (every step).
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, Matrix::identity(2),
                                        parse_participation("every", 2), {0}, false);
  EXPECT_NEAR(s(0, 2), std::sqrt(0.1), 1e-12);
  EXPECT_NEAR(s(0, 1), std::sqrt(1.9), 1e-12);
}

TEST(MfTrust, ZeroCorrelationIsInfiniteAndSingularIsRejected) {
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  const Matrix s =
      pairwise_sensitivity(TrustModel::pndp, w, Matrix(2, 2), parse_participation("every", 2), {0}, false);
  for (double v : s.a) EXPECT_EQ(v, inf);
  Matrix singular(2, 2);
  singular(0, 0) = 1.0;
  expect_invalid(
      [&] {
        pairwise_sensitivity(TrustModel::pndp, w, singular, parse_participation("every", 2), {0}, false);
      },
      "invertible");
  expect_invalid(
      [&] {
        pairwise_sensitivity(TrustModel::pndp, w, Matrix::identity(2), parse_participation("every", 2), {3},
                             false);
      },
      "attackers");
  expect_invalid([] { parse_trust("secldp"); }, "trust");
}

// --- The dense construction of docs/math.md §9.4, time-major, written independently. ---

// Orthonormal basis of the row space of `rows` (each of length dim) by modified Gram-Schmidt, twice.
std::vector<std::vector<double>> row_space(const std::vector<std::vector<double>>& rows) {
  std::vector<std::vector<double>> basis;
  for (auto r : rows) {
    double norm0 = 0.0;
    for (double x : r) norm0 += x * x;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& q : basis) {
        double d = 0.0;
        for (std::size_t i = 0; i < r.size(); ++i) d += q[i] * r[i];
        for (std::size_t i = 0; i < r.size(); ++i) r[i] -= d * q[i];
      }
    double norm = 0.0;
    for (double x : r) norm += x * x;
    if (norm > 1e-20 * std::max(1.0, norm0)) {
      for (double& x : r) x /= std::sqrt(norm);
      basis.push_back(r);
    }
  }
  return basis;
}

std::vector<double> dense_pndp_row(const CsrMatrix& w, const Matrix& c, const Participation& p, node_t v) {
  const int n = w.n, T = p.steps(), N = n * T;
  const Matrix wt = dense_workload(w, T, 0);  // time-major message workload
  Matrix c_inv = c;
  EXPECT_TRUE(invert(c_inv));
  // Global time-major C^-1 = K^T (I (x) C^-1) K: entry (t n + u, s n + u) = (C^-1)_{t s}.
  // B rows: the observed message rows (t, w) for W_vw > 0 or w = v, times C^-1, and e_{t n + v} (own noise).
  std::vector<std::vector<double>> rows;
  for (int t = 0; t < T; ++t)
    for (int x = 0; x < n; ++x) {
      if (!(x == v || w.at(v, x) > 0)) continue;
      std::vector<double> r(static_cast<std::size_t>(N), 0.0);
      for (int s = 0; s < T; ++s)
        for (int u = 0; u < n; ++u)
          for (int s2 = 0; s2 < T; ++s2) r[s * n + u] += wt(t * n + x, s2 * n + u) * c_inv(s2, s);
      rows.push_back(r);
    }
  for (int t = 0; t < T; ++t) {
    std::vector<double> r(static_cast<std::size_t>(N), 0.0);
    r[t * n + v] = 1.0;
    rows.push_back(r);
  }
  const auto basis = row_space(rows);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (int u = 0; u < n; ++u) {
    if (u == v) {
      out[u] = inf;
      continue;
    }
    // X_uu = C^T (B^+ B)_uu C with (B^+ B)_uu[s, t] = sum_q q[s n + u] q[t n + u].
    Matrix proj(T, T);
    for (const auto& q : basis)
      for (int s = 0; s < T; ++s)
        for (int t = 0; t < T; ++t) proj(s, t) += q[s * n + u] * q[t * n + u];
    out[u] = std::sqrt(sensitivity_squared(multiply(multiply(c, proj, true, false), c), p));
  }
  return out;
}

void expect_structured_equals_dense(const std::string& graph, const std::string& weights, const Matrix& c,
                                    const std::string& participation) {
  const CsrMatrix w = mf_gossip_matrix(make_graph(graph), weights);
  const Participation p = parse_participation(participation, static_cast<int>(c.rows));
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, c, p, all_nodes(w.n), true);
  for (node_t v = 0; v < w.n; ++v) {
    const auto dense = dense_pndp_row(w, c, p, v);
    for (node_t u = 0; u < w.n; ++u) {
      if (u == v) {
        EXPECT_EQ(s(v, u), inf);
        continue;
      }
      EXPECT_NEAR(s(v, u), dense[u], 1e-9 * std::max(1.0, dense[u])) << graph << " v " << v << " u " << u;
    }
  }
}

TEST(MfTrust, StructuredEqualsDense) {
  expect_structured_equals_dense("florentine", "average", Matrix::identity(4), "every");
  expect_structured_equals_dense("path:n=6", "metropolis", prefix_sum(4), "cyclic:b=2,k=2");
  expect_structured_equals_dense("er:n=10,p=0.3,seed=1", "average", toeplitz(sr_coefficients(3), 0, false),
                                 "single");
  expect_structured_equals_dense("star:n=6", "average", toeplitz(sr_coefficients(4), 0, true), "every");
}

TEST(MfTrust, FlorentineByDistanceAppendixZ10) {
  // docs/math.md Appendix Z item 10: attacker 0, W-RW, T = 10, alpha = 2, C = I, every step: mean RDP
  // alpha sens^2 / 2 by distance 1..4 = 10.91, 0.454, 0.147, 0.049.
  const Graph g = make_graph("florentine");
  const CsrMatrix w = mf_gossip_matrix(g, "average");
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, Matrix::identity(10),
                                        parse_participation("every", 10), {0}, false);
  const auto distance = bfs_distances(g, 0);
  const double expected[] = {10.91, 0.454, 0.147, 0.049};
  for (int d = 1; d <= 4; ++d) {
    double sum = 0.0;
    int count = 0;
    for (node_t u = 0; u < g.n; ++u)
      if (distance[u] == d) sum += s(0, u) * s(0, u), ++count;
    ASSERT_GT(count, 0);
    EXPECT_NEAR(sum / count, expected[d - 1], 0.0051 * expected[d - 1] + 5e-4) << "distance " << d;
  }
}

}  // namespace
}  // namespace netdp::mf
