// Amplification by shuffling (docs/math.md §1.6, SH1-SH3): hand values, inverse round trips, range checks,
// and the privacy-blanket bounds against the docs/math.md formulas written out directly in linear space.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/shuffling.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

// SH3 Hoeffding, docs/math.md §1.6 verbatim (gamma_lb = e^-eps0, gamma_ub = 1), unclipped.
double hoeffding_direct(double eps, double eps0, double n) {
  const double g = std::exp(-eps0), a = std::exp(eps) - 1;
  const double b = (std::exp(eps) + 1) * (std::exp(eps0) - std::exp(-eps0));
  return 1 / (g * n) * (b * b / (4 * a)) * std::pow(1 - g * (1 - std::exp(-2 * a * a / (b * b))), n);
}

// SH3 Bennett, verbatim, with E[. ; M >= 1] over every M = 1..n (pmf by recurrence), unclipped.
double bennett_direct(double eps, double eps0, int n) {
  const double g = std::exp(-eps0), a = std::exp(eps) - 1;
  const double b_plus = std::exp(eps0) * (1 - std::exp(eps - 2 * eps0));
  const double c = std::exp(eps0) * (std::exp(2 * eps) + 1) - 2 * g * std::exp(eps - 2 * eps0);
  const double alpha = c / (b_plus * b_plus), beta = a * b_plus / c, eta = 1 / b_plus;
  const double phi = (1 + beta) * std::log(1 + beta) - beta;
  double pmf = std::pow(1 - g, n), expectation = 0;
  for (int m = 1; m <= n; ++m) {
    pmf *= double(n - m + 1) / m * g / (1 - g);
    expectation += pmf * std::exp(-m * alpha * phi) / (eta * std::log(1 + beta));
  }
  return expectation / (g * n);
}

TEST(DpShuffling, ErlingssonHandValueAndRoundTrip) {
  // eps0 = 1/2, n = 10^4, delta = e^-9: 12 * 0.5 * sqrt(9 / 10^4) = 0.18; inverse gives e^-9 back.
  EXPECT_NEAR(erlingsson_epsilon(0.5, 10000, std::exp(-9.0)), 0.18, 1e-15);
  EXPECT_NEAR(erlingsson_delta(0.5, 10000, 0.18), std::exp(-9.0), 1e-18);
  for (double eps0 : {0.05, 0.3, 0.5})
    for (double delta : {1e-9, 1e-4, 0.01}) {
      const std::int64_t n = 1000000;
      const double eps = erlingsson_epsilon(eps0, n, delta);
      ASSERT_TRUE(erlingsson_delta_valid(eps0, n, eps));
      EXPECT_NEAR(erlingsson_delta(eps0, n, eps), delta, 1e-12 * delta);
    }
}

TEST(DpShuffling, ErlingssonRanges) {
  EXPECT_TRUE(erlingsson_valid(0.5, 1000, 0.01));
  EXPECT_FALSE(erlingsson_valid(0.51, 1000, 0.01));
  EXPECT_FALSE(erlingsson_valid(0.5, 999, 0.01));
  EXPECT_FALSE(erlingsson_valid(0.5, 1000, 0.011));
  EXPECT_FALSE(erlingsson_valid(0, 1000, 0.01));
  EXPECT_FALSE(erlingsson_valid(NAN, 1000, 0.01));
  expect_invalid([] { erlingsson_epsilon(0.6, 1000, 0.01); }, "eps0 must be in (0, 1/2] (got 0.6)");
  expect_invalid([] { erlingsson_epsilon(0.5, 999, 0.01); }, "n must be >= 1000 (got 999)");
  expect_invalid([] { erlingsson_epsilon(0.5, 1000, 0.02); }, "delta must be in (0, 1/100] (got 0.02)");
  // Inverse: eps beyond eps0, or a resulting delta above 1/100.
  EXPECT_FALSE(erlingsson_delta_valid(0.5, 10000, 0.6));
  expect_invalid([] { erlingsson_delta(0.5, 10000, 0.6); }, "epsilon must be in (0, eps0]");
  EXPECT_FALSE(erlingsson_delta_valid(0.5, 10000, 0.01));
  expect_invalid([] { erlingsson_delta(0.5, 10000, 0.01); }, "the resulting delta");
}

TEST(DpShuffling, FeldmanMcMillanTalwarHandValues) {
  // eps0 = ln 3 ((e^eps0 - 1)/(e^eps0 + 1) = 1/2), n = 10^4, ln(4/delta) = 4:
  // ln(1 + (1/2)(8 sqrt(3 * 4)/100 + 8 * 3/10^4)).
  const double delta = 4 * std::exp(-4.0);
  EXPECT_TRUE(fmt_valid(std::log(3.0), 10000, delta));
  EXPECT_NEAR(fmt_epsilon(std::log(3.0), 10000, delta),
              std::log(1 + 0.5 * (8 * std::sqrt(12.0) / 100 + 24e-4)), 1e-15);
  // Simplified: 14 sqrt(4) eps0 / 100 = 0.28 eps0.
  EXPECT_NEAR(fmt_epsilon_simplified(1, 10000, delta), 0.28, 1e-15);
  // The simplified form bounds the general one for eps0 <= 1.
  for (std::int64_t n : {1000, 100000})
    for (double eps0 : {0.1, 0.5, 1.0})
      EXPECT_LE(fmt_epsilon(eps0, n, 1e-6), fmt_epsilon_simplified(eps0, n, 1e-6));
}

TEST(DpShuffling, FeldmanMcMillanTalwarCondition) {
  // eps0 <= ln(n / (16 ln(2/delta))): n = 100, delta = 1e-6 gives ln(100 / 232) < 0.
  EXPECT_FALSE(fmt_valid(0.1, 100, 1e-6));
  expect_invalid([] { fmt_epsilon(0.1, 100, 1e-6); }, "eps0 must be <= ln(n / (16 ln(2/delta)))");
  expect_invalid([] { fmt_epsilon_simplified(1.5, 1000000, 1e-6); }, "eps0 must be <= 1 (got 1.5)");
  expect_invalid([] { fmt_epsilon(0.1, 1000, 0); }, "delta");
}

TEST(DpShuffling, BlanketDeltaMatchesTheFormulas) {
  for (double eps0 : {0.5, 1.0, 2.0})
    for (int n : {50, 500})
      for (double frac : {0.1, 0.5, 0.9}) {
        const double eps = frac * eps0;
        const double h = hoeffding_direct(eps, eps0, n), b = bennett_direct(eps, eps0, n);
        EXPECT_NEAR(blanket_delta(BlanketBound::hoeffding, eps, eps0, n), std::clamp(h, 1e-11, 1.0),
                    1e-10 * h);
        EXPECT_NEAR(blanket_delta(BlanketBound::bennett, eps, eps0, n), std::clamp(b, 1e-11, 1.0), 1e-10 * b);
      }
  // eps >= eps0: the tolerance value 10 tol.
  EXPECT_EQ(blanket_delta(BlanketBound::hoeffding, 1.0, 1.0, 100), 1e-11);
  EXPECT_EQ(blanket_delta(BlanketBound::bennett, 2.0, 1.0, 100), 1e-11);
}

TEST(DpShuffling, BlanketDeltaDecreasesInEpsilonAndN) {
  for (auto bound : {BlanketBound::hoeffding, BlanketBound::bennett}) {
    double previous = 2;
    for (double eps = 0.01; eps < 1; eps += 0.01) {
      const double d = blanket_delta(bound, eps, 1.0, 2000);
      EXPECT_LE(d, previous) << to_string(bound) << " " << eps;
      previous = d;
    }
    EXPECT_LT(blanket_delta(bound, 0.2, 1.0, 20000), blanket_delta(bound, 0.2, 1.0, 2000));
  }
}

TEST(DpShuffling, BlanketEpsilonInvertsDelta) {
  for (auto bound : {BlanketBound::hoeffding, BlanketBound::bennett})
    for (double eps0 : {0.5, 2.0})
      for (std::int64_t n : {10000, 1000000}) {
        const double delta = 1e-7;
        const double eps = blanket_epsilon(bound, eps0, n, delta);
        ASSERT_GT(eps, 1e-6);
        ASSERT_LT(eps, eps0);
        EXPECT_LE(blanket_delta(bound, eps, eps0, n), delta);         // meets the target
        EXPECT_GT(blanket_delta(bound, eps - 1e-9, eps0, n), delta);  // and is the smallest such eps
      }
  // Too few users for this eps0: no eps < eps0 meets delta, the root sits at the jump to 10 tol at eps0.
  EXPECT_NEAR(blanket_epsilon(BlanketBound::bennett, 2.0, 1000, 1e-7), 2.0, 1e-11);
  // A target below the clipping floor 10 tol certifies nothing beyond eps0.
  EXPECT_EQ(blanket_epsilon(BlanketBound::hoeffding, 1.0, 1000, 1e-13), 1.0);
}

TEST(DpShuffling, PerCycleLevelIsTheMinimumOfTheThree) {
  for (double eps0 : {0.1, 0.5, 1.5})
    for (std::int64_t n : {100, 5000, 1000000}) {
      const double delta = 1e-7;
      const double h = blanket_epsilon(BlanketBound::hoeffding, eps0, n, delta);
      const double b = blanket_epsilon(BlanketBound::bennett, eps0, n, delta);
      double expected = std::min(h, b);
      if (erlingsson_valid(eps0, n, delta)) expected = std::min(expected, erlingsson_epsilon(eps0, n, delta));
      EXPECT_EQ(shuffle_epsilon(eps0, n, delta), expected);
      EXPECT_LE(shuffle_epsilon(eps0, n, delta), eps0);
    }
  // More users, more amplification.
  EXPECT_LT(shuffle_epsilon(1.0, 100000, 1e-6), shuffle_epsilon(1.0, 1000, 1e-6));
}

TEST(DpShuffling, BadInput) {
  expect_invalid([] { blanket_delta(BlanketBound::hoeffding, 0, 1, 100); }, "epsilon must be > 0 (got 0)");
  expect_invalid([] { blanket_delta(BlanketBound::bennett, 0.5, -1, 100); }, "eps0");
  expect_invalid([] { blanket_delta(BlanketBound::bennett, 0.5, 1, 0); }, "n must be >= 1 (got 0)");
  expect_invalid([] { blanket_epsilon(BlanketBound::bennett, 1, 100, 1); },
                 "delta must be in (0, 1) (got 1)");
  expect_invalid([] { shuffle_epsilon(INFINITY, 100, 1e-6); }, "eps0");
  expect_invalid([] { parse_blanket_bound("chernoff"); }, "chernoff");
  EXPECT_EQ(parse_blanket_bound("bennett"), BlanketBound::bennett);
}

}  // namespace
}  // namespace netdp::dp
