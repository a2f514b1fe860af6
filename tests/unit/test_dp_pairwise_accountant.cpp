// The pairwise accountant (docs/dp_toolbox.md "Pairwise accountant"): GDP entries against the exact profile
// (itself checked against mpmath in test_dp_gdp_profile.cpp) with mu^2 added by hand, RDP entries against
// curves written out by hand (Gaussian alpha mu^2/2, the Laplace closed form, walk views linear in alpha up
// to their max order), the Laplace RDP against a numerical integral, and the matrix, maximum and by-distance
// views.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/laplace.hpp"
#include "netdp/dp/pairwise_accountant.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

// n x n matrix with value(u, v) off the diagonal and 0 on it.
template <class F>
std::vector<double> matrix(std::size_t n, F value) {
  std::vector<double> m(n * n, 0.0);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v)
      if (u != v) m[u * n + v] = value(u, v);
  return m;
}

TEST(DpPairwiseAccountant, OneGaussianEventGivesEveryPairTheGdpEpsilon) {
  PairwiseAccountant acc(4);
  acc.compose(GaussianEvent{2.0});
  const PairwiseResult r = acc.get_epsilon(1e-5);
  const double expected = gdp_epsilon(0.5, 1e-5);
  for (std::size_t u = 0; u < 4; ++u)
    for (std::size_t v = 0; v < 4; ++v) {
      const std::size_t i = u * 4 + v;
      if (u == v) {  // not a pair
        EXPECT_EQ(r.method[i], PairMethod::none);
        EXPECT_EQ(r.value[i], 0.0);
        continue;
      }
      EXPECT_EQ(r.method[i], PairMethod::gdp);
      EXPECT_EQ(r.value[i], expected);
      EXPECT_EQ(r.upper[i], expected);
      EXPECT_LT(r.lower[i], r.upper[i]);
      EXPECT_GT(gdp_delta(0.5, r.lower[i]), 1e-5);  // the bracket straddles the root
      EXPECT_LE(gdp_delta(0.5, r.upper[i]), 1e-5);
    }
  EXPECT_EQ(acc.epsilon(1, 2, 1e-5).value, expected);
  EXPECT_EQ(acc.delta(1, 2, 3.0).value, gdp_delta(0.5, 3.0));
}

TEST(DpPairwiseAccountant, GaussianViewsAddMuSquared) {
  const std::size_t n = 3;
  const auto first = matrix(n, [](std::size_t u, std::size_t v) { return 0.1 * double(u + 2 * v + 1); });
  const auto second = matrix(n, [](std::size_t u, std::size_t) { return u == 0 ? 0.0 : 0.4; });
  PairwiseAccountant acc(n);
  acc.compose(GaussianViewEvent{n, first}, 3)
      .compose(GaussianViewEvent{n, second})
      .compose(GaussianEvent{4.0});
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      if (u == v) continue;
      const double a = first[u * n + v], b = second[u * n + v];
      const double mu = std::sqrt(3 * a * a + b * b + 1 / 16.0);  // 1/sigma^2 of the Gaussian event
      EXPECT_NEAR(acc.mu(u, v), mu, 1e-15);
      EXPECT_EQ(acc.method(u, v), PairMethod::gdp);
      EXPECT_NEAR(acc.epsilon(u, v, 1e-6).value, gdp_epsilon(mu, 1e-6), 1e-13 * gdp_epsilon(mu, 1e-6));
    }
  // The matrix (one solve per distinct mu^2) is the pairs' values, to the bit.
  const PairwiseResult all = acc.get_epsilon(1e-6);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      const PairValue p = acc.epsilon(u, v, 1e-6);
      EXPECT_EQ(all.value[u * n + v], p.value);
      EXPECT_EQ(all.lower[u * n + v], p.lower);
      EXPECT_EQ(all.method[u * n + v], p.method);
    }
  // (0 -> 1): 3 * 0.3^2 + 0 + 1/16, by hand.
  EXPECT_NEAR(acc.mu(0, 1), std::sqrt(0.27 + 0.0625), 1e-15);
}

TEST(DpPairwiseAccountant, InfiniteMuIsNoPrivacyAndZeroMuNothingSeen) {
  std::vector<double> mu = {0, INFINITY, 0, 0};
  PairwiseAccountant acc(2);
  acc.compose(GaussianViewEvent{2, mu});
  EXPECT_EQ(acc.epsilon(0, 1, 1e-5).value, INFINITY);
  EXPECT_EQ(acc.delta(0, 1, 50).value, 1.0);
  EXPECT_EQ(acc.epsilon(1, 0, 1e-5).value, 0.0);
  EXPECT_EQ(acc.delta(1, 0, 0).value, 0.0);
  acc.compose(LaplaceEvent{1.0});  // RDP now: the infinite pair stays infinite, no throw
  EXPECT_EQ(acc.epsilon(0, 1, 1e-5).method, PairMethod::rdp);
  EXPECT_EQ(acc.epsilon(0, 1, 1e-5).value, INFINITY);
  EXPECT_TRUE(std::isfinite(acc.epsilon(1, 0, 1e-5).value));
}

TEST(DpPairwiseAccountant, LaplaceRdpMatchesClosedFormAndIntegral) {
  for (double b : {0.3, 1.0, 4.0}) {
    // Order 2 by hand: ln(2/3 e^{1/b} + 1/3 e^{-2/b}).
    EXPECT_NEAR(laplace_rdp(2, b), std::log(2.0 / 3 * std::exp(1 / b) + std::exp(-2 / b) / 3), 1e-14);
    // Large orders approach the pure-DP level 1/b from below.
    EXPECT_LT(laplace_rdp(1e6, b), 1 / b);
    EXPECT_NEAR(laplace_rdp(1e6, b), 1 / b, 1e-5);
    // D_alpha of Lap(0, b) vs Lap(1, b): Simpson's rule for p^alpha q^(1-alpha) on [-K, 1 + K], K = ceil(40
    // b), step 1e-3, so that the kinks at 0 and 1 are nodes between Simpson pairs.
    for (double alpha : {1.5, 3.0, 8.0}) {
      const double k_tail = std::ceil(40 * b), h = 1e-3;
      const long intervals = std::lround((1 + 2 * k_tail) / h);
      auto f = [&](long j) {
        const double x = -k_tail + double(j) * h;
        return std::exp(-(alpha * std::fabs(x) + (1 - alpha) * std::fabs(x - 1)) / b) / (2 * b);
      };
      double sum = f(0) + f(intervals);
      for (long j = 1; j < intervals; ++j) sum += (j % 2 ? 4 : 2) * f(j);
      sum *= h / 3;
      EXPECT_NEAR(laplace_rdp(alpha, b), std::log(sum) / (alpha - 1), 1e-8) << b << " " << alpha;
    }
  }
  EXPECT_NEAR(laplace_rdp(2, 1e-3), 1000 + std::log(2.0 / 3), 1e-9);  // no overflow for small b
  expect_invalid([] { laplace_rdp(1, 1); }, "alpha must be > 1");
  expect_invalid([] { laplace_rdp(2, 0); }, "noise_multiplier must be > 0");
}

TEST(DpPairwiseAccountant, MixingALaplaceEventSwitchesEveryEntryToRdp) {
  const std::size_t n = 3;
  const auto mu =
      matrix(n, [](std::size_t u, std::size_t v) { return 0.2 + 0.1 * double(u) + 0.05 * double(v); });
  const std::vector<double> orders = {1.5, 2, 4, 8, 16, 32};
  PairwiseAccountant acc(n, orders);
  acc.compose(GaussianViewEvent{n, mu}).compose(LaplaceEvent{2.0}, 2);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      if (u == v) continue;
      EXPECT_EQ(acc.method(u, v), PairMethod::rdp);
      const double m = mu[u * n + v];
      RdpCurve hand{orders, {}};
      for (double a : orders) {
        const double laplace =
            std::log(a / (2 * a - 1) * std::exp((a - 1) / 2) + (a - 1) / (2 * a - 1) * std::exp(-a / 2)) /
            (a - 1);
        hand.epsilons.push_back(a * m * m / 2 + 2 * laplace);
      }
      const RdpCurve c = acc.curve(u, v);
      for (std::size_t k = 0; k < orders.size(); ++k) EXPECT_NEAR(c.epsilons[k], hand.epsilons[k], 1e-13);
      const PairValue p = acc.epsilon(u, v, 1e-5);
      EXPECT_NEAR(p.value, rdp_curve_to_epsilon(hand, 1e-5).value, 1e-13 * p.value);
      EXPECT_EQ(p.lower, p.value);
      EXPECT_GT(p.order, 1.0);
      EXPECT_GE(p.value, gdp_epsilon(m, 1e-5));  // RDP is an upper bound on the Gaussian part alone
    }
}

TEST(DpPairwiseAccountant, RdpOfGaussianViewsUpperBoundsTheExactValue) {
  // A Laplace event with a huge multiplier adds almost nothing, but forces RDP.
  const std::size_t n = 2;
  PairwiseAccountant gdp(n), rdp(n);
  const std::vector<double> mu = {0, 1.3, 0.4, 0};
  gdp.compose(GaussianViewEvent{n, mu});
  rdp.compose(GaussianViewEvent{n, mu}).compose(LaplaceEvent{1e9});
  for (double delta : {1e-3, 1e-6, 1e-10}) {
    const PairwiseResult a = gdp.get_epsilon(delta), b = rdp.get_epsilon(delta);
    for (std::size_t i : {1, 2}) {
      EXPECT_EQ(a.method[i], PairMethod::gdp);
      EXPECT_EQ(b.method[i], PairMethod::rdp);
      EXPECT_GT(b.value[i], a.value[i]);
      EXPECT_LT(b.value[i], 1.5 * a.value[i]);  // and not far above for one view
    }
  }
}

TEST(DpPairwiseAccountant, WalkViewIsLinearInTheOrderUpToItsMaxOrder) {
  const std::size_t n = 3;
  const auto coefficient =
      matrix(n, [](std::size_t u, std::size_t v) { return u == 2 ? 0.0 : 0.01 * double(v + 1); });
  PairwiseAccountant acc(n);
  acc.compose(WalkViewEvent{n, coefficient, 10.0}, 2);
  const std::vector<double>& orders = acc.orders();
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      if (u == v) continue;
      const double c = 2 * coefficient[u * n + v];
      if (c == 0) {  // row 2 saw no walk: still exact (and 0)
        EXPECT_EQ(acc.method(u, v), PairMethod::gdp);
        EXPECT_EQ(acc.epsilon(u, v, 1e-5).value, 0.0);
        continue;
      }
      EXPECT_EQ(acc.method(u, v), PairMethod::rdp);
      const RdpCurve curve = acc.curve(u, v);
      double best = INFINITY;
      for (std::size_t k = 0; k < orders.size(); ++k) {
        if (orders[k] > 10) {
          EXPECT_EQ(curve.epsilons[k], INFINITY);
          continue;
        }
        EXPECT_NEAR(curve.epsilons[k], orders[k] * c, 1e-15);
        best = std::min(best, rdp_to_epsilon(orders[k] * c, orders[k], 1e-5));
      }
      const PairValue p = acc.epsilon(u, v, 1e-5);
      EXPECT_EQ(p.value, best);
      EXPECT_LE(p.order, 10.0);
    }
  // A cap below every order: no bound, reported as +inf rather than thrown.
  PairwiseAccountant capped(n, {2, 4});
  capped.compose(WalkViewEvent{n, coefficient, 1.5});
  EXPECT_EQ(capped.epsilon(0, 1, 1e-5).value, INFINITY);
  EXPECT_EQ(capped.delta(0, 1, 1.0).value, 1.0);
}

TEST(DpPairwiseAccountant, PairIndependentEventsSplitIntoGaussianAndRest) {
  PairwiseAccountant a(2), b(2);
  // Gaussian parts only, nested: mu^2 = 1/4 + 1 + 4 * 1/4 = 2.25, still exact.
  a.compose(ComposedEvent{{GaussianEvent{2.0}, GaussianEvent{1.0}}})
      .compose(SelfComposedEvent(GaussianEvent{2.0}, 4));
  EXPECT_EQ(a.method(0, 1), PairMethod::gdp);
  EXPECT_NEAR(a.mu(0, 1), 1.5, 1e-15);
  // A subsampled Gaussian inside a composition: RDP, curve = Gaussian part + the SS3 closed form.
  const PoissonSampledGaussianEvent sub{0.01, 5.0, SubsampledBound::mironov_talwar_zhang};
  b.compose(ComposedEvent{{GaussianEvent{2.0}, sub}}, 3);
  EXPECT_EQ(b.method(1, 0), PairMethod::rdp);
  const RdpCurve c = b.curve(1, 0);
  for (std::size_t k = 0; k < c.orders.size(); ++k) {
    const double alpha = c.orders[k];
    const double ss3 = subsampled_gaussian_rdp_valid(sub.bound, alpha, 0.01, 5.0)
                           ? subsampled_gaussian_rdp(sub.bound, alpha, 0.01, 5.0)
                           : INFINITY;
    if (std::isinf(ss3))
      EXPECT_EQ(c.epsilons[k], INFINITY);  // SS3 says nothing at this order
    else
      EXPECT_NEAR(c.epsilons[k], 3 * (alpha / 8 + ss3), 1e-12 * c.epsilons[k]);
  }
  EXPECT_TRUE(std::isfinite(b.epsilon(0, 1, 1e-5).value));
}

TEST(DpPairwiseAccountant, MatrixMaximumAndByDistance) {
  // Path 0 - 1 - 2 - 3 with mu = 1 / (1 + hop distance): the by-distance means are known by hand.
  const std::size_t n = 4;
  const auto mu =
      matrix(n, [](std::size_t u, std::size_t v) { return 1.0 / (1.0 + std::fabs(double(u) - double(v))); });
  PairwiseAccountant acc(n);
  acc.compose(GaussianViewEvent{n, mu});
  const PairwiseResult r = acc.get_epsilon(1e-5);
  EXPECT_EQ(r.at_grid_edge, 0u);
  const PairMaximum m = max_over_pairs(r);
  EXPECT_EQ(m.value, gdp_epsilon(0.5, 1e-5));
  EXPECT_EQ(m.u, 0u);
  EXPECT_EQ(m.v, 1u);
  const std::vector<std::pair<node_t, node_t>> edges = {{0, 1}, {1, 2}, {2, 3}};
  const Graph path = graph_from_edges(4, edges);
  const auto rows = by_distance(r, path);
  ASSERT_EQ(rows.size(), 3u);
  for (std::int64_t d = 1; d <= 3; ++d) {
    const DistanceRow& row = rows[std::size_t(d - 1)];
    EXPECT_EQ(row.distance, d);
    EXPECT_EQ(row.pairs, std::size_t(2 * (4 - d)));  // ordered pairs at distance d on a path of 4
    const double expected = gdp_epsilon(1.0 / (1.0 + double(d)), 1e-5);
    EXPECT_NEAR(row.mean, expected, 1e-15 * expected);
    EXPECT_EQ(row.min, expected);
    EXPECT_EQ(row.max, expected);
  }
  // A distance matrix with an unreachable pair gives the same rows without it.
  std::vector<std::int64_t> distance(n * n);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) distance[u * n + v] = std::llabs(std::int64_t(u) - std::int64_t(v));
  distance[0 * n + 3] = -1;
  const auto partial = by_distance(r, distance);
  EXPECT_EQ(partial[2].pairs, 1u);
  // get_delta: every GDP entry meets its epsilon, and delta(eps(delta)) <= delta.
  const PairwiseResult back = acc.get_delta(r.value[1]);
  EXPECT_LE(back.value[1], 1e-5);
  EXPECT_NEAR(back.value[1], 1e-5, 1e-15);
}

TEST(DpPairwiseAccountant, BadInputNamesTheProblem) {
  PairwiseAccountant acc(2);
  expect_invalid([&] { acc.compose(GaussianViewEvent{3, std::vector<double>(9, 1.0)}); }, "2 x 2");
  expect_invalid([&] { acc.compose(GaussianViewEvent{2, {0, -1, 0, 0}}); }, "mu must be >= 0");
  expect_invalid([&] { acc.compose(WalkViewEvent{2, {0, 1, 1, 0}, 1.0}); }, "max_order must be > 1");
  expect_invalid([&] { acc.compose(WalkViewEvent{2, {0, -0.1, 1, 0}}); }, "coefficient must be >= 0");
  expect_invalid([&] { acc.compose(GaussianEvent{1.0}, -1); }, "count must be >= 0");
  expect_invalid([&] { acc.compose(GaussianEvent{0.0}); }, "noise_multiplier");
  expect_invalid([&] { acc.epsilon(0, 2, 1e-5); }, "outside");
  expect_invalid([&] { acc.get_epsilon(0); }, "delta must be in (0, 1)");
  expect_invalid([&] { acc.get_delta(-1); }, "epsilon must be >= 0");
  expect_invalid([] { PairwiseAccountant(2, {}); }, "order grid is empty");
}

}  // namespace
}  // namespace netdp::dp
