// Shared pieces of the bounds (docs/math.md §1.4, 1.8, 4.4, 4.5): composition switch, contribution counts,
// collusion, spotted contributions, the maximum over cycle lengths, grids of n.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/bounds/common.hpp"
#include "netdp/core/error.hpp"

namespace netdp::bounds {
namespace {

TEST(BoundsCommon, CompositionSwitch) {
  const double eps = 0.1, delta = 1e-7, k = 169.5, dp = 1e-7;
  const double c2 = std::sqrt(2 * k * std::log(1 / dp)) * eps + k * eps * std::expm1(eps);
  EXPECT_NEAR(compose(Composition::advanced, eps, delta, k, dp).epsilon, c2, 1e-12);
  EXPECT_NEAR(compose(Composition::advanced, eps, delta, k, dp).delta, k * delta + dp, 1e-18);
  EXPECT_NEAR(compose(Composition::simple, eps, delta, k, dp).epsilon, k * eps, 1e-12);
  EXPECT_NEAR(compose(Composition::optimal_min, eps, delta, k, dp).epsilon, std::min(c2, k * eps), 1e-12);
  // Large epsilon: simple composition wins under C3.
  EXPECT_NEAR(compose(Composition::optimal_min, 2.0, delta, 10, dp).epsilon, 20, 1e-12);
  EXPECT_EQ(parse_composition("optimal-min"), Composition::optimal_min);
  EXPECT_THROW(parse_composition("kairouz"), InvalidInput);
}

TEST(BoundsCommon, ContributionCounts) {
  ContributionOptions o;  // chernoff, proof, 1e-7
  // CB1: T/n + sqrt(3 (T/n) ln(1/delta_hat)) = 100 + sqrt(300 ln 1e7) = 169.537 (Appendix Z 4).
  EXPECT_NEAR(contribution_count(1000, 10, o), 100 + std::sqrt(300 * std::log(1e7)), 1e-10);
  EXPECT_NEAR(contribution_count(1000, 10, o), 169.537, 1e-3);
  EXPECT_TRUE(contribution_count_proven(1000, 10, o));  // T/n = 100 >= 3 ln 1e7 = 48.4
  EXPECT_FALSE(contribution_count_proven(400, 10, o));
  EXPECT_DOUBLE_EQ(contribution_delta(o), 1e-7);
  o.formula = dp::NvFormula::code_quirk;  // T/n + sqrt(1.5 T ln(1/delta_hat))
  EXPECT_NEAR(contribution_count(1000, 10, o), 100 + std::sqrt(1500 * std::log(1e7)), 1e-10);
  EXPECT_FALSE(contribution_count_proven(1000, 10, o));
  o.kind = Contributions::fixed;
  EXPECT_DOUBLE_EQ(contribution_count(1000, 10, o), 100);
  EXPECT_DOUBLE_EQ(contribution_delta(o), 0);
  EXPECT_TRUE(contribution_count_proven(1000, 10, o));
  EXPECT_THROW(contribution_count(0.5, 10, o), InvalidInput);
  EXPECT_THROW(contribution_count(100, 0.5, o), InvalidInput);
}

TEST(BoundsCommon, Collusion) {
  EXPECT_DOUBLE_EQ(effective_n(100, 1), 100);
  EXPECT_DOUBLE_EQ(effective_n(100, 4), 25);
  EXPECT_DOUBLE_EQ(effective_n(1, 1), 1);
  EXPECT_THROW(effective_n(10, 10), InvalidInput);  // the victim is not a colluder
  EXPECT_THROW(effective_n(10, 0.5), InvalidInput);
}

TEST(BoundsCommon, SpottedContributions) {
  // CB2: N_s = 2N/n + sqrt((6N/n) ln(1/delta_tilde)); loss = C2 with k = N_s; delta adds delta_tilde.
  const double n_u = 300, n = 100, dt = 1e-6, eps = 0.2, delta = 1e-7, dp = 1e-6;
  const SpottedLoss s = spotted_loss(n_u, n, eps, delta, dt, dp, Composition::advanced);
  const double ns = 6 + std::sqrt(18 * std::log(1e6));
  EXPECT_NEAR(s.count, ns, 1e-12);
  EXPECT_NEAR(s.epsilon, std::sqrt(2 * ns * std::log(1 / dp)) * eps + ns * eps * std::expm1(eps), 1e-12);
  EXPECT_NEAR(s.delta, ns * delta + dp + dt, 1e-18);
}

TEST(BoundsCommon, MaximumOverCycleLengthsMatchesExhaustiveSearch) {
  // A bumpy product of an increasing and a decreasing factor, maximised well inside the range.
  const double n = 1e5;
  auto p = [&](double m) { return -std::expm1(m * std::log1p(-1 / n)); };
  auto e = [&](double m) { return 50 / std::sqrt(m) + 3 * std::exp(-m / 7000.0); };
  auto f = [&](std::int64_t m) { return p(double(m)) * e(double(m)); };
  auto upper = [&](std::int64_t lo, std::int64_t hi) { return p(double(hi)) * e(double(lo)); };
  const std::int64_t m_max = 200000;
  const CycleMaximum exhaustive = maximize_over_cycle_lengths(m_max, f, upper, m_max);
  const CycleMaximum split = maximize_over_cycle_lengths(m_max, f, upper, 0);
  EXPECT_EQ(split.m, exhaustive.m);
  EXPECT_DOUBLE_EQ(split.value, exhaustive.value);
  double brute = 0;
  for (std::int64_t m = 1; m <= m_max; ++m) brute = std::max(brute, f(m));
  EXPECT_DOUBLE_EQ(exhaustive.value, brute);
  EXPECT_THROW(maximize_over_cycle_lengths(0, f, upper), InvalidInput);
}

TEST(BoundsCommon, LogspaceIsNumpys) {
  const auto v = logspace(0, 10, 30);
  ASSERT_EQ(v.size(), 30u);
  EXPECT_DOUBLE_EQ(v.front(), 1);
  EXPECT_DOUBLE_EQ(v.back(), 1e10);
  EXPECT_NEAR(v[3], std::pow(10.0, 30.0 / 29), 1e-12);  // 10.826..., Fig. 7.1a's "n = 10.8"
  EXPECT_NEAR(v[3], 10.826367338740546, 1e-12);
  EXPECT_EQ(logspace(2, 5, 1), std::vector<double>{100});
}

TEST(BoundsCommon, RoundingMergesRepeats) {
  const std::vector<double> grid = logspace(0, 1, 10);  // 1, 1.29, 1.67, 2.15, 2.78, ...
  EXPECT_EQ(round_n_grid(grid, NRounding::none), grid);
  EXPECT_EQ(round_n_grid(grid, NRounding::nearest), (std::vector<double>{1, 2, 3, 4, 5, 6, 8, 10}));
  EXPECT_EQ(round_n_grid(grid, NRounding::floor), (std::vector<double>{1, 2, 3, 4, 5, 7, 10}));
  EXPECT_THROW(round_n_grid({0.5}, NRounding::none), InvalidInput);
  EXPECT_EQ(require_integer_n(12, "x"), 12);
  EXPECT_THROW(require_integer_n(12.5, "x"), InvalidInput);
}

}  // namespace
}  // namespace netdp::bounds
