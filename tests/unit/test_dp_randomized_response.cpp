// K-ary randomized response (docs/math.md §1.3, RR1-RR3): probabilities, the gamma parametrisation both ways.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/randomized_response.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

TEST(DpRandomizedResponse, ProbabilitiesSumToOneWithRatioExpEps) {
  for (int k : {2, 5, 100})
    for (double eps : {0.0, 0.1, 1.0, 5.0}) {
      const double keep = krr_keep_probability(eps, k), other = krr_other_probability(eps, k);
      EXPECT_NEAR(keep + (k - 1) * other, 1.0, 1e-15);
      EXPECT_NEAR(keep / other, std::exp(eps), 1e-12 * std::exp(eps));  // RR1 is exactly eps-LDP
    }
  EXPECT_DOUBLE_EQ(krr_keep_probability(0, 4), 0.25);  // eps = 0: uniform output
  EXPECT_EQ(krr_keep_probability(1000, 3), 1.0);       // no inf / inf
  EXPECT_EQ(krr_other_probability(1000, 3), 0.0);
}

TEST(DpRandomizedResponse, GammaParametrisationHandValues) {
  // L = 2, gamma = 1/2: P(true) = 3/4, P(other) = 1/4, so eps0 = ln 3.
  EXPECT_NEAR(rr_gamma_epsilon(0.5, 2), std::log(3.0), 1e-15);
  EXPECT_NEAR(rr_gamma_of_epsilon(std::log(3.0), 2), 0.5, 1e-15);
  EXPECT_EQ(rr_gamma_epsilon(1, 7), 0.0);  // always uniform: no information
  EXPECT_EQ(rr_gamma_of_epsilon(0, 7), 1.0);
}

TEST(DpRandomizedResponse, GammaRoundTripsAndMatchesTheProbabilityRatio) {
  for (int l : {2, 10, 1000})
    for (double gamma : {1e-6, 0.01, 0.3, 0.99}) {
      const double eps = rr_gamma_epsilon(gamma, l);
      EXPECT_NEAR(rr_gamma_of_epsilon(eps, l), gamma, 1e-12 * gamma);
      // P(true)/P(other) = (1 - gamma + gamma/L)/(gamma/L) is the LDP ratio.
      EXPECT_NEAR(std::exp(eps), (1 - gamma + gamma / l) / (gamma / l), 1e-9 * std::exp(eps));
    }
  for (double eps : {0.01, 1.0, 8.0})
    EXPECT_NEAR(rr_gamma_epsilon(rr_gamma_of_epsilon(eps, 4), 4), eps, 1e-12);
}

TEST(DpRandomizedResponse, FrequencyMseHandValue) {
  // K = 2, eps = ln 3, n = 1: (2 - 2 + 3) / (3 - 1)^2 = 3/4.
  EXPECT_NEAR(krr_frequency_mse(std::log(3.0), 2, 1), 0.75, 1e-15);
  EXPECT_NEAR(krr_frequency_mse(std::log(3.0), 2, 10), 0.075, 1e-16);
}

TEST(DpRandomizedResponse, BadInput) {
  expect_invalid([] { krr_keep_probability(1, 1); }, "categories must be >= 2 (got 1)");
  expect_invalid([] { krr_other_probability(-1, 3); }, "epsilon");
  expect_invalid([] { rr_gamma_epsilon(0, 3); }, "gamma must be in (0, 1] (got 0)");
  expect_invalid([] { rr_gamma_epsilon(1.5, 3); }, "gamma");
  expect_invalid([] { rr_gamma_of_epsilon(NAN, 3); }, "epsilon");
  expect_invalid([] { krr_frequency_mse(0, 3, 10); }, "epsilon must be > 0");
  expect_invalid([] { krr_frequency_mse(1, 3, 0); }, "n must be > 0");
}

}  // namespace
}  // namespace netdp::dp
