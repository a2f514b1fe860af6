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

using testing::all_nodes;
using testing::identity_gossip;

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
  expect_invalid([] { parse_trust("secret"); }, "trust");
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

std::vector<double> dense_pndp_row(const CsrMatrix& w, const std::vector<Matrix>& cs, const Participation& p,
                                   node_t v) {
  const auto local = [&](int u) -> const Matrix& {
    return cs.size() == 1 ? cs[0] : cs[static_cast<std::size_t>(u)];
  };
  const int n = w.n, T = p.steps(), N = n * T;
  const Matrix wt = dense_workload(w, T, 0);  // time-major message workload
  std::vector<Matrix> c_inv = cs;
  for (Matrix& m : c_inv) EXPECT_TRUE(invert(m));
  // Global time-major C^-1 = K^T diag(C_u^-1) K: entry (t n + u, s n + u) = (C_u^-1)_{t s}.
  // B rows: the observed message rows (t, w) for W_vw > 0 or w = v, times C^-1, and e_{t n + v} (own noise).
  std::vector<std::vector<double>> rows;
  for (int t = 0; t < T; ++t)
    for (int x = 0; x < n; ++x) {
      if (!(x == v || w.at(v, x) > 0)) continue;
      std::vector<double> r(static_cast<std::size_t>(N), 0.0);
      for (int s = 0; s < T; ++s)
        for (int u = 0; u < n; ++u)
          for (int s2 = 0; s2 < T; ++s2)
            r[s * n + u] += wt(t * n + x, s2 * n + u) * c_inv[cs.size() == 1 ? 0 : u](s2, s);
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
    out[u] = std::sqrt(sensitivity_squared(multiply(multiply(local(u), proj, true, false), local(u)), p));
  }
  return out;
}

void expect_structured_equals_dense(const std::string& graph, const std::string& weights, const Matrix& c,
                                    const std::string& participation) {
  const CsrMatrix w = mf_gossip_matrix(make_graph(graph), weights);
  const Participation p = parse_participation(participation, static_cast<int>(c.rows));
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, c, p, all_nodes(w.n), true);
  for (node_t v = 0; v < w.n; ++v) {
    const auto dense = dense_pndp_row(w, {c}, p, v);
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

TEST(MfTrust, PerNodeCorrelationsEqualDense) {
  // MAFALDA-L's layout (§9.2): C = K^T diag(C_1..C_n) K, every node with its own lower-triangular C_u.
  const CsrMatrix w = mf_gossip_matrix(make_graph("er:n=7,p=0.4,seed=2"), "average");
  const int T = 4;
  std::vector<Matrix> cs;
  for (node_t u = 0; u < w.n; ++u) {
    Matrix c(T, T);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j <= i; ++j) c(i, j) = i == j ? 1.0 + 0.1 * u : 0.3 / (1 + i - j + u);
    cs.push_back(c);
  }
  const Participation p = parse_participation("cyclic:b=2,k=2", T);
  const Matrix s = pairwise_sensitivity(TrustModel::pndp, w, cs, p, all_nodes(w.n), true);
  for (node_t v = 0; v < w.n; ++v) {
    const auto dense = dense_pndp_row(w, cs, p, v);
    for (node_t u = 0; u < w.n; ++u)
      if (u != v) {
        EXPECT_NEAR(s(v, u), dense[u], 1e-9 * std::max(1.0, dense[u])) << "v " << v << " u " << u;
      }
  }
  // LDP: sens(u -> v) = sens_Pi(C_u).
  const Matrix l = pairwise_sensitivity(TrustModel::ldp, w, cs, p, {1}, false);
  for (node_t u = 0; u < w.n; ++u)
    if (u != 1) {
      EXPECT_DOUBLE_EQ(l(0, u), sensitivity(cs[static_cast<std::size_t>(u)], p));
    }
  expect_invalid(
      [&] {
        pairwise_sensitivity(TrustModel::pndp, w, std::vector<Matrix>(3, Matrix::identity(T)), p, {0}, false);
      },
      "correlation");
}

TEST(MfTrust, ObservationCentralizedReduction) {
  // B square invertible: B^+ B = I, so every victim gets the plain sens_Pi(C_local) (§9.3).
  const int n = 3, T = 4, N = n * T;
  Matrix b(N, N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) b(i, j) = (i == j ? 2.0 : 0.0) + std::sin(1.0 + i * 7 + j * 3) * 0.3;
  const Matrix sr = toeplitz(sr_coefficients(T), 0, false);
  const Participation p = parse_participation("cyclic:b=2,k=2", T);
  ObservationModel m{b, block_diagonal({sr}, n), node_major_sets(N, p)};
  validate(m, nullptr);
  const std::vector<double> s = observation_sensitivity(m);
  ASSERT_EQ(static_cast<int>(s.size()), n);
  for (double x : s) EXPECT_NEAR(x, sensitivity(sr, p), 1e-12);
  // A = B C is accepted when it holds.
  const Matrix a = multiply(b, m.c);
  validate(m, &a);
}

TEST(MfTrust, ObservationByHand) {
  // B = [1 1]: B^+ B = [[1, 1], [1, 1]] / 2; C = [[1, 0], [1, 1]]: C^T B^+ B C = [[2, 1], [1, 0.5]].
  Matrix b(1, 2);
  b.a = {1.0, 1.0};
  Matrix c(2, 2);
  c.a = {1.0, 0.0, 1.0, 1.0};
  ObservationModel m{b, c, {{{0}}, {{1}}, {{0, 1}}, {{0}, {1}}}};
  validate(m, nullptr);
  const std::vector<double> s = observation_sensitivity(m);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_NEAR(s[0], std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(s[1], std::sqrt(0.5), 1e-14);
  EXPECT_NEAR(s[2], std::sqrt(4.5), 1e-14);
  EXPECT_NEAR(s[3], std::sqrt(2.0), 1e-14);
  // Bad shapes and indices, each naming its parameter.
  expect_invalid(
      [&] {
        validate(ObservationModel{b, Matrix::identity(3), {{{0}}}}, nullptr);
      },
      "observation-b");
  expect_invalid([&] { validate(ObservationModel{b, Matrix(2, 3), {{{0}}}}, nullptr); }, "observation-c");
  expect_invalid([&] { validate(ObservationModel{b, c, {{{2}}}}, nullptr); }, "observation-pi");
  Matrix wrong(1, 2);
  wrong.a = {2.0, 1.0};  // B C = [2, 1] -> fine; [3, 1] is not
  validate(m, &wrong);
  wrong.a = {3.0, 1.0};
  expect_invalid([&] { validate(m, &wrong); }, "observation-a");
  expect_invalid([&] { validate(m, &b); }, "observation-a");
  expect_invalid([] { node_major_sets(10, parse_participation("every", 4)); }, "observation-b");
}

TEST(MfTrust, EpsilonConversionsMatchTheToolboxClosedForms) {
  // sens 2 at sigma 1 is 2-GDP: rdp-classic is the C6 closed form r + 2 sqrt(r ln(1/delta)), r = mu^2 / 2;
  // gdp the exact profile: delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at the returned eps.
  const double mu = 2.0, delta = 1e-5, r = mu * mu / 2;
  EXPECT_NEAR(epsilon_of_sensitivity(2.0, 1.0, delta, EpsilonConversion::rdp_classic),
              r + 2 * std::sqrt(r * std::log(1 / delta)), 1e-12);
  const double eps = epsilon_of_sensitivity(4.0, 2.0, delta, EpsilonConversion::gdp);
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  EXPECT_NEAR(phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2), delta, 1e-9 * delta);
  // rdp: the improved conversion minimised over the default orders, written out here.
  double best = inf;
  for (double a : {1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5}) {
    const double e = a * r + std::log((a - 1) / a) - (std::log(delta) + std::log(a)) / (a - 1);
    best = std::min(best, std::max(e, 0.0));
  }
  for (int a = 5; a <= 64; ++a) {
    const double e = a * r + std::log((a - 1.0) / a) - (std::log(delta) + std::log(double(a))) / (a - 1);
    best = std::min(best, std::max(e, 0.0));
  }
  EXPECT_NEAR(epsilon_of_sensitivity(2.0, 1.0, delta, EpsilonConversion::rdp), best, 1e-12);
  // The exact profile is the tightest; no sensitivity, no loss; infinite sensitivity, infinite epsilon.
  EXPECT_LT(eps, best);
  EXPECT_EQ(epsilon_of_sensitivity(0.0, 1.0, delta, EpsilonConversion::gdp), 0.0);
  EXPECT_EQ(epsilon_of_sensitivity(inf, 1.0, delta, EpsilonConversion::rdp), inf);
  expect_invalid([] { parse_conversion("pld"); }, "conversion");
}

}  // namespace
}  // namespace netdp::mf
