// Amplification by iteration and weak convexity (docs/math.md §1.7, PI2 and PI4; Appendix Y
// `weak_convexity_condition`): hand values and the consistency of the condition with alpha_max.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/iteration.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

TEST(DpIteration, BetaIsAlphaOverTwoSigmaSquaredI) {
  EXPECT_DOUBLE_EQ(iteration_rdp(2, 1, 4), 0.25);
  EXPECT_DOUBLE_EQ(iteration_rdp(3, 2, 1), gaussian_rdp(3, 2));  // one step: the Gaussian mechanism itself
}

TEST(DpIteration, WeakConvexityHandValues) {
  // c = 1 (factor 2): weights 1:3 on divergences 0.1, 0.3 -> 2 (0.025 + 0.225) = 0.5; admissible for alpha =
  // 2 (bound 1/(alpha - 1) = 1).
  EXPECT_NEAR(weak_convexity_bound({0.1, 0.3}, {1, 3}, 2), 0.5, 1e-15);
  // c = 1/2: factor 3/2, bound 0.5 / (alpha - 1).
  EXPECT_NEAR(weak_convexity_bound({0.2}, {1}, 2, 0.5), 0.3, 1e-15);
  EXPECT_TRUE(weak_convexity_admissible(1.0, 2));
  EXPECT_FALSE(weak_convexity_admissible(1.0 + 1e-12, 2));
  EXPECT_FALSE(weak_convexity_admissible(0.6, 2, 0.5));
  // A component with zero weight does not count.
  EXPECT_NEAR(weak_convexity_bound({0.5, 7.0}, {1, 0}, 2), 1.0, 1e-15);
  expect_invalid([] { weak_convexity_bound({0.5, 1.5}, {1, 1}, 2); }, "PI4 admissibility");
}

TEST(DpIteration, ConditionsAtTheirThresholds) {
  // alpha = 2: stated sigma^2 >= 4, exact sigma^2 >= 1.
  EXPECT_TRUE(weak_convexity_condition_holds(2, 2, WeakConvexityCondition::stated));
  EXPECT_FALSE(weak_convexity_condition_holds(2, 1.99, WeakConvexityCondition::stated));
  EXPECT_TRUE(weak_convexity_condition_holds(2, 1, WeakConvexityCondition::exact));
  EXPECT_FALSE(weak_convexity_condition_holds(2, 0.99, WeakConvexityCondition::exact));
  EXPECT_DOUBLE_EQ(alpha_max(2, WeakConvexityCondition::stated), 2.0);  // (1 + sqrt(1 + 8))/2
  EXPECT_DOUBLE_EQ(alpha_max(1, WeakConvexityCondition::exact), 2.0);   // (1 + sqrt(1 + 8))/2
  // [S3 Prop D.11]: alpha_max(sigma_abs) = (1 + sqrt(1 + 2 sigma_abs^2/L^2))/2 with sigma = sigma_abs/L.
  const double sigma_abs = 3, lipschitz = 0.4;
  EXPECT_NEAR(alpha_max(sigma_abs / lipschitz),
              (1 + std::sqrt(1 + 2 * sigma_abs * sigma_abs / (lipschitz * lipschitz))) / 2, 1e-12);
}

TEST(DpIteration, AlphaMaxIsWhereTheConditionStopsHolding) {
  for (auto c : {WeakConvexityCondition::stated, WeakConvexityCondition::exact})
    for (double sigma : {0.3, 1.0, 4.0, 50.0}) {
      const double a = alpha_max(sigma, c);
      EXPECT_TRUE(weak_convexity_condition_holds(a * (1 - 1e-12), sigma, c));
      EXPECT_FALSE(weak_convexity_condition_holds(a * (1 + 1e-9), sigma, c));
    }
  // The exact condition is what beta(1) <= 1/(alpha - 1) needs: admissible right up to its alpha_max.
  for (double sigma : {0.5, 2.0, 10.0}) {
    const double a = alpha_max(sigma, WeakConvexityCondition::exact) * (1 - 1e-12);
    EXPECT_TRUE(weak_convexity_admissible(iteration_rdp(a, sigma, 1), a));
    EXPECT_GT(alpha_max(sigma, WeakConvexityCondition::exact),
              alpha_max(sigma, WeakConvexityCondition::stated));
  }
}

TEST(DpIteration, BadInput) {
  expect_invalid([] { iteration_rdp(1, 1, 1); }, "alpha must be > 1 (got 1)");
  expect_invalid([] { iteration_rdp(2, 0, 1); }, "noise_multiplier must be > 0 (got 0)");
  expect_invalid([] { iteration_rdp(2, 1, 0.5); }, "steps must be >= 1 (got 0.5)");
  expect_invalid([] { weak_convexity_admissible(0.1, 2, 0); }, "c must be in (0, 1] (got 0)");
  expect_invalid([] { weak_convexity_admissible(0.1, 2, 1.5); }, "c must be in (0, 1]");
  expect_invalid([] { weak_convexity_admissible(-0.1, 2); }, "max_divergence");
  expect_invalid([] { weak_convexity_bound({0.1}, {1, 2}, 2); }, "one weight per divergence");
  expect_invalid([] { weak_convexity_bound({0.1}, {-1}, 2); }, "weight must be finite and >= 0 (got -1)");
  expect_invalid([] { weak_convexity_bound({0.1}, {0}, 2); }, "sum of weights");
  expect_invalid([] { alpha_max(-1); }, "noise_multiplier");
  expect_invalid([] { weak_convexity_condition_holds(0.5, 1); }, "alpha");
  expect_invalid([] { parse_weak_convexity_condition("loose"); }, "loose");
  EXPECT_EQ(parse_weak_convexity_condition("exact"), WeakConvexityCondition::exact);
  EXPECT_EQ(to_string(parse_weak_convexity_condition("stated")), "stated");
}

}  // namespace
}  // namespace netdp::dp
