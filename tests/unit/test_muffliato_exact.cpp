// Exact accountant of linear Muffliato-GD runs (docs/math.md §6.5 "Exact accounting of linear runs"): the
// path by hand, an independent dense reference (the view's data and noise matrices written out, an SVD
// pseudo-inverse), gossip-loss's exact accountant for one round, and the invariants.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <cmath>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/muffliato_exact.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/spectral.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

GossipSchedule constant_schedule(const testing::MetropolisGraph& m, int steps) {
  GossipSchedule s;
  s.n = m.g.n;
  s.rounds = {GossipRound{m.w, m.g}};
  s.constant = true;
  s.steps = steps;
  return s;
}

MuffliatoExactParams params(int rounds, int k, double a, bool knows = true, bool same = true) {
  return {.rounds = rounds,
          .gossip_steps = k,
          .state_factor = a,
          .knows_noise = knows,
          .same_shift = same,
          .source = {},
          .memory_limit = 0,
          .device = {DeviceKind::cpu, 0}};
}

using Dense = std::vector<double>;  // row-major

Dense dense_of(const CsrMatrix& w) {
  Dense d(std::size_t(w.n) * w.n, 0.0);
  for (node_t i = 0; i < w.n; ++i)
    for (auto k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
      d[std::size_t(i) * w.n + w.columns[k]] = w.values[k];
  return d;
}

/// c = a b (rows x inner, inner x cols).
Dense multiply(const Dense& a, const Dense& b, std::size_t rows, std::size_t inner, std::size_t cols) {
  Dense c(rows * cols, 0.0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t k = 0; k < inner; ++k)
      for (std::size_t j = 0; j < cols; ++j) c[i * cols + j] += a[i * inner + k] * b[k * cols + j];
  return c;
}

/// The Chebyshev polynomials P_0 .. P_K of W (docs/math.md §2.4) as dense n x n matrices.
std::vector<Dense> chebyshev_powers(const CsrMatrix& m, int K, double gamma) {
  const std::size_t n = std::size_t(m.n);
  const Dense w = dense_of(m);
  Dense identity(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) identity[i * n + i] = 1;
  std::vector<Dense> poly = {identity, w};
  for (int k = 1; k < K; ++k) {
    Dense next = multiply(w, poly[std::size_t(k)], n, n, n);
    for (std::size_t i = 0; i < n * n; ++i)
      next[i] = gamma * next[i] + (1 - gamma) * poly[std::size_t(k - 1)][i];
    poly.push_back(next);
  }
  return poly;
}

/// The dense reference for observer v, round t on rounds[t % size] with gammas[t % size]: the chain
/// theta_hat^t = D_t x + E_t z, D_0 = I, E_0 = [I 0 ..], D_t = a P_K(W_{t-1}) D_{t-1} + I,
/// E_t = a P_K(W_{t-1}) E_{t-1} + [.. I at block t ..], P_k the Chebyshev polynomials as n x n matrices. v's
/// view: rows e_w^T P_k(W_t) D_t (data, A) and e_w^T P_k(W_t) E_t (noise, B) for w ~ v in round t, k < K,
/// t < T; with knows, v's noise columns are dropped. Returns, for every u, (A e_u)^T (B B^T)^+ (A e_u) from
/// the SVD of B (exact) and sum_{s,t} |P_{(u,s),(u,t)}| with P = V_r V_r^T (the SGD bound, uncapped).
std::pair<Dense, Dense> dense_reference(const std::vector<const testing::MetropolisGraph*>& rounds, int T,
                                        int K, double a, const std::vector<double>& gammas, node_t v,
                                        bool knows) {
  const std::size_t n = std::size_t(rounds[0]->g.n), N = n * std::size_t(T), L = rounds.size();
  std::vector<std::vector<Dense>> poly;
  for (std::size_t i = 0; i < L; ++i) poly.push_back(chebyshev_powers(rounds[i]->w, K, gammas[i]));
  Dense identity(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) identity[i * n + i] = 1;
  Dense d = identity, e(n * N, 0.0), a_rows, b_rows;
  for (std::size_t i = 0; i < n; ++i) e[i * N + i] = 1;
  for (int t = 0; t < T; ++t) {
    if (t > 0) {
      const Dense& pk = poly[std::size_t(t - 1) % L][std::size_t(K)];
      Dense pd = multiply(pk, d, n, n, n), pe = multiply(pk, e, n, n, N);
      for (std::size_t i = 0; i < n * n; ++i) d[i] = a * pd[i] + identity[i];
      for (std::size_t i = 0; i < n * N; ++i) e[i] = a * pe[i];
      for (std::size_t i = 0; i < n; ++i) e[i * N + std::size_t(t) * n + i] += 1;
    }
    for (int k = 0; k < K; ++k) {
      const Dense& pk = poly[std::size_t(t) % L][std::size_t(k)];
      const Dense pd = multiply(pk, d, n, n, n), pe = multiply(pk, e, n, n, N);
      for (node_t w_node : rounds[std::size_t(t) % L]->g.neighbors(v)) {
        const std::size_t r = std::size_t(w_node);
        a_rows.insert(a_rows.end(), pd.begin() + std::ptrdiff_t(r * n),
                      pd.begin() + std::ptrdiff_t(r * n + n));
        Dense row(pe.begin() + std::ptrdiff_t(r * N), pe.begin() + std::ptrdiff_t(r * N + N));
        if (knows)
          for (int s = 0; s < T; ++s) row[std::size_t(s) * n + std::size_t(v)] = 0;
        b_rows.insert(b_rows.end(), row.begin(), row.end());
      }
    }
  }
  const std::size_t rows = a_rows.size() / n;
  // B = U S V^T (dgesvd, full V^T): (B B^T)^+ = U S^-2 U^T over the singular values above 1e-9 s_max.
  Dense b = b_rows, s(std::min(rows, N)), u(rows * rows), vt(N * N), superb(std::min(rows, N));
  EXPECT_EQ(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', int(rows), int(N), b.data(), int(N), s.data(),
                           u.data(), int(rows), vt.data(), int(N), superb.data()),
            0);
  std::size_t rank = 0;
  while (rank < s.size() && s[rank] > 1e-9 * s[0]) ++rank;
  Dense exact(n, 0.0), bound(n, 0.0);
  for (std::size_t x = 0; x < n; ++x) {
    if (x == std::size_t(v)) continue;
    for (std::size_t i = 0; i < rank; ++i) {
      double dot = 0;  // u_i^T A e_x
      for (std::size_t r = 0; r < rows; ++r) dot += u[r * rows + i] * a_rows[r * n + x];
      exact[x] += dot * dot / (s[i] * s[i]);
    }
    for (int s1 = 0; s1 < T; ++s1)
      for (int s2 = 0; s2 < T; ++s2) {
        double dot = 0;
        for (std::size_t i = 0; i < rank; ++i)
          dot += vt[i * N + std::size_t(s1) * n + x] * vt[i * N + std::size_t(s2) * n + x];
        bound[x] += std::abs(dot);
      }
  }
  return {exact, bound};
}

// (a) The path u - w - v (0 - 1 - 2), W-MH: W_01 = W_12 = 1/3, K = 1, a = 1 - nu = 0.9 (nu = 0.1, mu = 0).
// In units of nu s, theta_hat^0 = z^0 (theta^0 = 0): v receives z_w^0 (row e_{w,0}), which holds nothing of
// u's entries: share 0 at T = 1. Round 1: theta^1_w = (z_u^0 + z_w^0 + z_v^0)/3, and v receives theta_hat^1_w
// = a/3 (z_u^0 + z_w^0 + z_v^0) + z_w^1. Knowing z_v, v's rows are e_{w,0} and (a/3) e_{u,0} + (a/3) e_{w,0}
// + e_{w,1}; Gram-Schmidt: e_{w,0}, ((a/3) e_{u,0} + e_{w,1}) / sqrt(1 + a^2/9). c_u = e_{u,0} + e_{u,1}: ||P
// c_u||^2 = (a^2/9) / (1 + a^2/9) = 0.09 / 1.09. Without z_v, the second residual keeps (a/3) e_{v,0}:
// (a^2/9) / (1 + 2 a^2/9) = 0.09 / 1.18. The SGD bound: only q_{u,0} is non-zero, so sum |M| = ||q_{u,0}||^2,
// the same values.
TEST(MuffliatoExact, PathByHand) {
  const auto m = testing::with_metropolis(make_graph("path:n=3"));
  ASSERT_NEAR(m.w.at(0, 1), 1.0 / 3, 1e-15);
  const double gamma[] = {1.0};
  for (bool same : {true, false}) {
    auto p = params(1, 1, 0.9, true, same);
    p.source = 0;
    EXPECT_EQ(muffliato_exact_shares(constant_schedule(m, 1), gamma, p).share[2], 0.0);
    p.rounds = 2;
    const auto two = muffliato_exact_shares(constant_schedule(m, 2), gamma, p);
    EXPECT_NEAR(two.share[2], 0.09 / 1.09, 1e-15);
    EXPECT_EQ(two.run.view_rank_max, 4);  // v = 0 receives z_1^0, then theta_hat^1_1: 2 rows; w = 1: 4 rows
    p.knows_noise = false;
    EXPECT_NEAR(muffliato_exact_shares(constant_schedule(m, 2), gamma, p).share[2], 0.09 / 1.18, 1e-15);
  }
}

// (b) Against the dense reference, every pair, GD exact and the SGD bound, K = 2 (Chebyshev gamma of the
// graph) and K = 3.
void expect_reference(const testing::MetropolisGraph& m, int T, int K, double a, bool knows) {
  const double gamma = chebyshev_gamma(spectral_summary(m.w).gap(GapDefinition::second));
  const double gammas[] = {gamma};
  const auto exact = muffliato_exact_shares(constant_schedule(m, T), gammas, params(T, K, a, knows, true));
  const auto bound = muffliato_exact_shares(constant_schedule(m, T), gammas, params(T, K, a, knows, false));
  EXPECT_FALSE(exact.bound);
  EXPECT_TRUE(bound.bound);
  const node_t n = m.g.n;
  for (node_t v = 0; v < n; ++v) {
    const auto [ref_exact, ref_bound] = dense_reference({&m}, T, K, a, {gamma}, v, knows);
    for (node_t u = 0; u < n; ++u) {
      EXPECT_NEAR(exact.share[std::size_t(u) * n + v], ref_exact[u], 1e-10) << "u " << u << " v " << v;
      EXPECT_NEAR(bound.share[std::size_t(u) * n + v], std::min(double(T), ref_bound[u]), 1e-10)
          << "u " << u << " v " << v;
    }
  }
}

TEST(MuffliatoExact, DenseReferenceRing) {
  const auto m = testing::with_metropolis(make_graph("ring:n=6"));
  expect_reference(m, 3, 2, 0.9, true);
  expect_reference(m, 3, 2, 0.9, false);
  expect_reference(m, 2, 3, 0.7, true);
}

TEST(MuffliatoExact, DenseReferenceStar) {
  const auto m = testing::with_metropolis(make_graph("star:n=5"));
  expect_reference(m, 3, 2, 0.9, true);
  expect_reference(m, 3, 1, 0.85, false);
}

// (b) Time-varying rounds (as --er-c): three different graphs on 7 nodes, each with its own gamma.
TEST(MuffliatoExact, DenseReferenceTimeVarying) {
  const testing::MetropolisGraph graphs[] = {testing::with_metropolis(make_graph("ring:n=7")),
                                             testing::with_metropolis(make_graph("star:n=7")),
                                             testing::with_metropolis(make_graph("er:n=7,p=0.5,seed=4"))};
  GossipSchedule s;
  s.n = 7, s.steps = 3;
  std::vector<const testing::MetropolisGraph*> rounds;
  std::vector<double> gammas;
  for (const auto& m : graphs) {
    s.rounds.push_back(GossipRound{m.w, m.g});
    rounds.push_back(&m);
    gammas.push_back(chebyshev_gamma(spectral_summary(m.w).gap(GapDefinition::second)));
  }
  for (bool knows : {true, false}) {
    const auto exact = muffliato_exact_shares(s, gammas, params(3, 2, 0.75, knows, true));
    const auto bound = muffliato_exact_shares(s, gammas, params(3, 2, 0.75, knows, false));
    for (node_t v = 0; v < 7; ++v) {
      const auto [ref_exact, ref_bound] = dense_reference(rounds, 3, 2, 0.75, gammas, v, knows);
      for (node_t u = 0; u < 7; ++u) {
        EXPECT_NEAR(exact.share[std::size_t(u) * 7 + v], ref_exact[u], 1e-10) << "u " << u << " v " << v;
        EXPECT_NEAR(bound.share[std::size_t(u) * 7 + v], std::min(3.0, ref_bound[u]), 1e-10);
      }
    }
  }
}

// (c) One round: theta_hat^0 = z^0 and the messages x^k_w = (P_k(W) z)_w, k < K, span the same rows as
// e_w^T W^k (P_k has degree k and leading coefficient gamma^(k-1) != 0): gossip-loss's exact view with K
// steps from t = 0, whose loss is (alpha Delta^2 / (2 sigma^2)) ||P_v e_u||^2.
TEST(MuffliatoExact, OneRoundIsGossipLossExact) {
  for (const char* spec : {"ring:n=7", "star:n=6", "er:n=12,p=0.4,seed=3"}) {
    const auto m = testing::with_metropolis(make_graph(spec));
    const double gamma = chebyshev_gamma(spectral_summary(m.w).gap(GapDefinition::second));
    const double gammas[] = {gamma};
    for (int K : {1, 3})
      for (bool knows : {true, false}) {
        GossipLossParams g;
        g.accounting = GossipAccounting::exact;
        g.observer_knows = knows ? ObserverKnowledge::input_and_noise : ObserverKnowledge::input;
        g.alpha = 2, g.sigma = 1, g.sensitivity = 1, g.steps = K, g.t_start = 0;
        const auto loss = gossip_loss_matrix(m.g, m.w, g);  // = ||P_v e_u||^2 at alpha 2, sigma 1
        const auto share =
            muffliato_exact_shares(constant_schedule(m, 1), gammas, params(1, K, 0.9, knows)).share;
        for (std::size_t i = 0; i < share.size(); ++i)
          EXPECT_NEAR(share[i], loss[i], 1e-12) << spec << " K " << K << " entry " << i;
      }
  }
}

// (d) 0 <= share <= T, and the T-round view is a sub-vector of the (T+1)-round one (data processing): the
// share never decreases with T. A source row equals the matrix's column.
TEST(MuffliatoExact, Invariants) {
  const auto m = testing::with_metropolis(make_graph("er:n=10,p=0.35,seed=5"));
  const double gammas[] = {chebyshev_gamma(spectral_summary(m.w).gap(GapDefinition::second))};
  const node_t n = m.g.n;
  std::vector<double> previous(std::size_t(n) * n, 0.0);
  for (int T = 1; T <= 5; ++T) {
    const auto r = muffliato_exact_shares(constant_schedule(m, T), gammas, params(T, 2, 0.8));
    for (std::size_t i = 0; i < r.share.size(); ++i) {
      EXPECT_GE(r.share[i], previous[i] - 1e-12);
      EXPECT_LE(r.share[i], double(T));
      EXPECT_GE(r.share[i], 0.0);
    }
    auto p = params(T, 2, 0.8);
    p.source = 3;
    const auto row = muffliato_exact_shares(constant_schedule(m, T), gammas, p);
    for (node_t v = 0; v < n; ++v) EXPECT_EQ(row.share[v], r.share[std::size_t(3) * n + v]);
    previous = r.share;
  }
  EXPECT_GT(previous[1], 0.0);  // five rounds on a connected graph: u = 0 is seen by v = 1
}

// (e) A source builds only the bases of the observers it reaches (docs/math.md §6.5 "Computation"). Ring of
// 30, K = 2, T = 2: u's entries spread K = 2 hops per round and a message travels one more, so v sees them
// iff d(u, v) <= K T = 4: 8 observers. The all-pairs run builds every basis; its entries beyond 4 hops are
// exact zeros and the source's row equals its row. A time-varying schedule (ring, then path: the edge 15 - 0
// is gone) the same, every source.
TEST(MuffliatoExact, SourceBuildsOnlyTheObserversItReaches) {
  const auto m = testing::with_metropolis(make_graph("ring:n=30"));
  const double gammas[] = {chebyshev_gamma(spectral_summary(m.w).gap(GapDefinition::second))};
  const auto all = muffliato_exact_shares(constant_schedule(m, 2), gammas, params(2, 2, 0.8));
  auto p = params(2, 2, 0.8);
  p.source = 0;
  const auto row = muffliato_exact_shares(constant_schedule(m, 2), gammas, p);
  EXPECT_EQ(row.run.view_observers, 8);
  EXPECT_EQ(all.run.view_observers, 30);
  for (node_t v = 0; v < 30; ++v) {
    const int hops = std::min(v, 30 - v);
    EXPECT_EQ(row.share[v], all.share[v]) << v;  // share[u * n + v], u = 0
    if (hops > 4) {
      EXPECT_EQ(all.share[v], 0.0) << v;
    } else if (hops >= 1) {
      EXPECT_GT(all.share[v], 0.0) << v;
    }
  }

  const testing::MetropolisGraph graphs[] = {testing::with_metropolis(make_graph("ring:n=16")),
                                             testing::with_metropolis(make_graph("path:n=16"))};
  GossipSchedule s;
  s.n = 16, s.steps = 3;
  std::vector<double> varying;
  for (const auto& g : graphs) {
    s.rounds.push_back(GossipRound{g.w, g.g});
    varying.push_back(chebyshev_gamma(spectral_summary(g.w).gap(GapDefinition::second)));
  }
  s.rounds.push_back(s.rounds[0]);
  varying.push_back(varying[0]);
  for (bool same : {true, false}) {
    const auto matrix = muffliato_exact_shares(s, varying, params(3, 1, 0.9, true, same));
    int built = 0;
    for (node_t u = 0; u < 16; ++u) {
      auto q = params(3, 1, 0.9, true, same);
      q.source = u;
      const auto r = muffliato_exact_shares(s, varying, q);
      built += int(r.run.view_observers);
      for (node_t v = 0; v < 16; ++v) EXPECT_EQ(r.share[v], matrix.share[std::size_t(u) * 16 + v]) << u << v;
    }
    EXPECT_LT(built, 16 * 15);  // T K = 3 hops at most: some bases are skipped
  }
}

TEST(MuffliatoExact, BadInput) {
  const auto m = testing::with_metropolis(make_graph("ring:n=5"));
  const double gammas[] = {1.0};
  testing::expect_invalid([&] { muffliato_exact_shares(constant_schedule(m, 1), gammas, params(0, 1, 1)); },
                          "steps");
  testing::expect_invalid([&] { muffliato_exact_shares(constant_schedule(m, 1), gammas, params(1, 0, 1)); },
                          "gossip-rounds");
  GossipSchedule varying = constant_schedule(m, 2);
  varying.constant = false;
  varying.steps = 1;
  testing::expect_invalid([&] { muffliato_exact_shares(varying, gammas, params(2, 1, 1)); }, "rounds");
}

}  // namespace
}  // namespace netdp
