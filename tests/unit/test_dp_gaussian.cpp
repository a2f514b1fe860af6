// Gaussian mechanism and Gaussian DP (docs/math.md §1.2, G1-G6) against closed forms, invariants and
// docs/math.md Appendix Z items 7, 8 and 12.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

// The call throws InvalidInput whose message names `needle` (parameter name and/or value).
using testing::expect_invalid;

TEST(DpGaussian, NormalCdfKnownValues) {
  EXPECT_DOUBLE_EQ(normal_cdf(0), 0.5);
  EXPECT_NEAR(normal_cdf(1.959963984540054), 0.975, 1e-15);  // the 97.5% quantile
  EXPECT_NEAR(normal_cdf(-1.959963984540054), 0.025, 1e-15);
  EXPECT_GT(normal_cdf(-37), 0.0);  // erfc-based: no underflow to 0 where 1 + erf(x) would give 0
}

TEST(DpGaussian, LogNormalCdfMatchesLogOfCdfAndTheTailExpansion) {
  for (double x = -30; x <= 8; x += 0.25)
    EXPECT_NEAR(log_normal_cdf(x), std::log(normal_cdf(x)),
                1e-13 * std::max(1.0, std::fabs(std::log(normal_cdf(x)))));
  // Mills-ratio expansion, hand-written: ln Phi(x) ~ -x^2/2 - ln(-x) - ln(2 pi)/2 + ln(1 - 1/x^2 + 3/x^4 -
  // 15/x^6).
  for (double x : {-35.5, -40.0, -100.0, -1e4}) {
    const double r = 1 / (x * x);
    const double expected = -x * x / 2 - std::log(-x) - 0.5 * std::log(2 * std::numbers::pi) +
                            std::log(1 - r + 3 * r * r - 15 * r * r * r);
    EXPECT_NEAR(log_normal_cdf(x), expected, 1e-12 * std::fabs(expected));
  }
  // No jump where the implementation switches to the expansion.
  EXPECT_NEAR(log_normal_cdf(-35 - 1e-9), log_normal_cdf(-35 + 1e-9), 1e-6);
}

TEST(DpGaussian, RdpIsAlphaOverTwoSigmaSquared) {
  EXPECT_DOUBLE_EQ(gaussian_rdp(2, 1), 1.0);
  EXPECT_DOUBLE_EQ(gaussian_rdp(10, 2), 1.25);
  EXPECT_DOUBLE_EQ(gdp_rdp(10, 0.5), 1.25);  // G5 with mu = 1/sigma agrees with G1
}

TEST(DpGaussian, ClassicCalibrationAppendixZItem8) {
  // Appendix Z item 8: (eps = 1, delta = 1e-5), Delta = 1 -> sigma = 4.8448 (this is the G2 formula).
  EXPECT_NEAR(gaussian_sigma_classic(1, 1e-5), 4.8448, 5e-5);
  EXPECT_NEAR(gaussian_sigma_classic(0.5, 1e-5, 2), 4 * 4.8448, 4e-4);  // s scales as Delta/eps
}

TEST(DpGaussian, CensusExampleAppendixZItem12) {
  // [S4]: K = 10,000 names, Delta = sqrt(2), (1, 1e-9)-DP, beta = 0.01:
  // sqrt(2 ln(1.25e9) ln(10000/0.01)) sqrt(2) = 34.02.
  const double s = gaussian_sigma_classic(1, 1e-9, std::numbers::sqrt2);
  EXPECT_NEAR(gaussian_linf_error_s4(s, 1e4, 0.01), 34.02, 5e-3);
  EXPECT_GT(gaussian_linf_error_union(s, 1e4, 0.01), gaussian_linf_error_s4(s, 1e4, 0.01));
}

TEST(DpGaussian, GdpDeltaClosedForms) {
  // At eps = 0 the profile is the total variation 2 Phi(mu/2) - 1.
  for (double mu : {0.1, 1.0, 3.0}) EXPECT_NEAR(gdp_delta(mu, 0), 2 * normal_cdf(mu / 2) - 1, 1e-15);
  // Moderate values: the textbook expression, evaluated directly, is accurate there.
  for (double mu : {0.5, 1.0, 2.0})
    for (double eps : {0.1, 1.0, 2.0}) {
      const double direct = normal_cdf(mu / 2 - eps / mu) - std::exp(eps) * normal_cdf(-mu / 2 - eps / mu);
      EXPECT_NEAR(gdp_delta(mu, eps), direct, 1e-14);
    }
}

TEST(DpGaussian, GdpDeltaIsDecreasingAndFiniteForLargeEpsilon) {
  for (double mu : {0.1, 1.0, 10.0, 50.0}) {
    double previous = 1.0;
    for (double eps = 0; eps <= 2000; eps = eps < 1 ? eps + 0.125 : eps * 1.5) {
      const double d = gdp_delta(mu, eps);
      ASSERT_TRUE(std::isfinite(d)) << mu << " " << eps;
      EXPECT_GE(d, 0.0);
      EXPECT_LE(d, previous * (1 + 1e-12));
      previous = d;
    }
  }
  EXPECT_EQ(gdp_delta(1, INFINITY), 0.0);
}

TEST(DpGaussian, GdpEpsilonAppendixZItem7) {
  // Appendix Z item 7: mu-GDP -> (eps, delta = 1e-6).
  const double mus[] = {0.1, 0.5, 1, 2, 5, 10};
  const double expected[] = {0.3969, 2.2541, 4.8866, 10.997, 35.566, 96.717};
  const double digits[] = {5e-5, 5e-5, 5e-5, 5e-4, 5e-4, 5e-4};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(gdp_epsilon(mus[i], 1e-6), expected[i], digits[i]) << mus[i];
}

TEST(DpGaussian, GdpEpsilonInvertsGdpDelta) {
  for (double mu : {0.05, 0.7, 4.0, 30.0})
    for (double delta : {1e-12, 1e-6, 1e-2}) {
      const double eps = gdp_epsilon(mu, delta);
      EXPECT_NEAR(gdp_delta(mu, eps), delta, 1e-9 * delta) << mu << " " << delta;
    }
  // delta at least the eps = 0 level: nothing to pay.
  EXPECT_EQ(gdp_epsilon(0.1, 0.5), 0.0);
}

TEST(DpGaussian, AggregationDividesBySqrtM) {
  EXPECT_DOUBLE_EQ(aggregated_gaussian_epsilon(1, 4), 0.5);
  EXPECT_DOUBLE_EQ(aggregated_gaussian_epsilon(0.3, 1), 0.3);
}

TEST(DpGaussian, BadInputNamesParameterAndValue) {
  expect_invalid([] { gaussian_rdp(1, 1); }, "alpha must be > 1 (got 1)");
  expect_invalid([] { gaussian_rdp(NAN, 1); }, "alpha");
  expect_invalid([] { gaussian_rdp(2, 0); }, "noise_multiplier must be > 0 (got 0)");
  expect_invalid([] { gaussian_rdp(2, -1); }, "noise_multiplier");
  expect_invalid([] { gaussian_sigma_classic(1, 0); }, "delta must be in (0, 1) (got 0)");
  expect_invalid([] { gaussian_sigma_classic(1, 1); }, "delta");
  expect_invalid([] { gaussian_sigma_classic(0, 0.1); }, "epsilon");
  expect_invalid([] { gaussian_sigma_classic(1, 0.1, 0); }, "sensitivity");
  expect_invalid([] { gdp_delta(1, -0.5); }, "epsilon must be >= 0 (got -0.5)");
  expect_invalid([] { gdp_delta(0, 1); }, "mu");
  expect_invalid([] { gdp_epsilon(1, 1.5); }, "delta");
  expect_invalid([] { gdp_epsilon(INFINITY, 0.1); }, "mu");
  expect_invalid([] { aggregated_gaussian_epsilon(1, 0.5); }, "m must be >= 1");
  expect_invalid([] { gaussian_linf_error_s4(1, 0, 0.1); }, "coordinates");
  expect_invalid([] { gaussian_linf_error_union(1, 10, 1); }, "beta");
}

}  // namespace
}  // namespace netdp::dp
