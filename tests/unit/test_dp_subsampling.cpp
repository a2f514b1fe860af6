// Amplification by subsampling (docs/math.md §1.5, SS1-SS3): limits, hand values, the delta_cycle options
// against an independent linear-space binomial sum, and the SS3 validity conditions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/subsampling.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

// sum_{k>=1} Bin(m, 1/n)(k) f(k) with the pmf by the recurrence pmf(k+1) = pmf(k) (m-k)/(k+1) p/(1-p), every
// term.
double brute_binomial_sum(std::int64_t m, std::int64_t n, const std::function<double(double)>& f) {
  const double p = 1.0 / double(n);
  double pmf = std::pow(1 - p, double(m)), sum = 0;
  for (std::int64_t k = 0; k < m; ++k) {
    pmf *= double(m - k) / double(k + 1) * p / (1 - p);
    sum += pmf * f(double(k + 1));
  }
  return sum;
}

TEST(DpSubsampling, WithoutReplacementLimitsAndHandValue) {
  const EpsDelta all = subsample_without_replacement(0.7, 1e-5, 1.0);  // m = n: no amplification
  EXPECT_NEAR(all.epsilon, 0.7, 1e-15);
  EXPECT_EQ(all.delta, 1e-5);
  const EpsDelta none = subsample_without_replacement(0.7, 1e-5, 0.0);  // m = 0: nothing released
  EXPECT_EQ(none.epsilon, 0.0);
  EXPECT_EQ(none.delta, 0.0);
  // eps = ln 3, q = 1/2: ln(1 + (1/2)(3 - 1)) = ln 2.
  EXPECT_NEAR(subsample_without_replacement(std::log(3.0), 0.2, 0.5).epsilon, std::log(2.0), 1e-15);
  EXPECT_NEAR(subsample_without_replacement(std::log(3.0), 0.2, 0.5).delta, 0.1, 1e-16);
  // Large eps: ln(q e^eps) = eps + ln q to double precision, no overflow.
  EXPECT_NEAR(subsample_without_replacement(1000, 0, 0.5).epsilon, 1000 - std::log(2.0), 1e-12);
  // Small q: q (e^eps - 1) up to the second-order term (q (e - 1))^2 / 2 = 1.5e-18, computed without
  // cancellation.
  EXPECT_NEAR(subsample_without_replacement(1.0, 0, 1e-9).epsilon, 1e-9 * std::expm1(1.0), 2e-18);
}

TEST(DpSubsampling, WithReplacementEpsilonLimitsAndHandValue) {
  EXPECT_EQ(with_replacement_epsilon(0.5, 0, 10), 0.0);          // empty sample
  EXPECT_NEAR(with_replacement_epsilon(0.5, 3, 1), 0.5, 1e-15);  // n = 1: always drawn
  // m = 2, n = 2: P(drawn) = 1 - 1/4 = 3/4.
  EXPECT_NEAR(with_replacement_hit_probability(2, 2), 0.75, 1e-15);
  EXPECT_NEAR(with_replacement_epsilon(std::log(5.0), 2, 2), std::log(1 + 0.75 * 4), 1e-15);
  // Increasing in m and tending to eps_A.
  double previous = 0;
  for (std::int64_t m : {1, 10, 100, 1000, 10000}) {
    const double e = with_replacement_epsilon(0.3, m, 100);
    EXPECT_GT(e, previous);
    previous = e;
  }
  EXPECT_NEAR(with_replacement_epsilon(0.3, 100000, 100), 0.3, 1e-15);
  // Small m/n: (m/n)(e^eps - 1) up to its square / 2 = 6.1e-14, as SS1 with q = m/n.
  EXPECT_NEAR(with_replacement_epsilon(0.3, 1, 1000000), 1e-6 * std::expm1(0.3), 7e-14);
}

TEST(DpSubsampling, DeltaCycleKDeltaIsMeanTimesDelta) {
  EXPECT_NEAR(with_replacement_delta(DeltaCycle::k_delta, 0.1, 1, 1e-6, 30, 100), 0.3e-6, 1e-20);
  EXPECT_EQ(with_replacement_delta(DeltaCycle::k_delta, 0.1, 1, 1e-6, 0, 100), 0.0);
}

TEST(DpSubsampling, DeltaCycleGaussianHandValues) {
  const double theta = 0.8, eps = 0.3;
  // m = 1: a single term (1/n) delta_A.
  EXPECT_NEAR(with_replacement_delta(DeltaCycle::exact_gaussian, eps, theta, 0, 1, 50),
              gdp_delta(theta, eps) / 50, 1e-17);
  // m = 2, n = 2: 2 (1/2)(1/2) delta_1 + (1/4) delta_2, delta_k = G3 with k theta.
  EXPECT_NEAR(with_replacement_delta(DeltaCycle::exact_gaussian, eps, theta, 0, 2, 2),
              0.5 * gdp_delta(theta, eps) + 0.25 * gdp_delta(2 * theta, eps), 1e-16);
  // Group privacy: delta_2 <= (e^eps - 1) delta_A(eps/2) / (e^(eps/2) - 1).
  EXPECT_NEAR(
      with_replacement_delta(DeltaCycle::group_privacy, eps, theta, 0, 2, 2),
      0.5 * gdp_delta(theta, eps) + 0.25 * std::expm1(eps) * gdp_delta(theta, eps / 2) / std::expm1(eps / 2),
      1e-15);
}

TEST(DpSubsampling, DeltaCycleLargeMMatchesFullSum) {
  // m ~ 1e4 (a cycle of the complete-graph walk): theta = Delta / (sigma_loc sqrt(m)).
  for (std::int64_t m : {1000, 10000}) {
    const std::int64_t n = 10000;
    const double theta = aggregated_gaussian_theta(1, gaussian_sigma_classic(0.1, 1e-7), double(m));
    const double eps_a = aggregated_gaussian_epsilon(0.1, double(m));
    for (auto method : {DeltaCycle::exact_gaussian, DeltaCycle::group_privacy}) {
      const double expected = brute_binomial_sum(m, n, [&](double k) {
        if (method == DeltaCycle::exact_gaussian) return gdp_delta(k * theta, eps_a);
        if (k == 1) return gdp_delta(theta, eps_a);
        return std::min(1.0, std::expm1(eps_a) * gdp_delta(theta, eps_a / k) / std::expm1(eps_a / k));
      });
      const double got = with_replacement_delta(method, eps_a, theta, 0, m, n);
      EXPECT_NEAR(got, expected, 1e-10 * expected) << m << " " << to_string(method);
    }
    // The group-privacy bound is an upper bound on the exact group profile.
    EXPECT_LE(with_replacement_delta(DeltaCycle::exact_gaussian, eps_a, theta, 0, m, n),
              with_replacement_delta(DeltaCycle::group_privacy, eps_a, theta, 0, m, n) * (1 + 1e-12));
  }
}

TEST(DpSubsampling, AggregatedTheta) {
  EXPECT_DOUBLE_EQ(aggregated_gaussian_theta(2, 4, 4), 0.25);
}

TEST(DpSubsampling, Thm310ValueAndConditions) {
  // alpha = 2, q = 0.1, sigma = 4: 6 * 2 * 0.01 / 16 = 0.0075.
  EXPECT_NEAR(subsampled_gaussian_rdp(SubsampledBound::thm_3_10, 2, 0.1, 4), 0.0075, 1e-17);
  EXPECT_TRUE(subsampled_gaussian_rdp_valid(SubsampledBound::thm_3_10, 1000, 0.1, 4));
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::thm_3_10, 2, 0.2, 4));
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::thm_3_10, 2, 0.1, 3.99));
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::thm_3_10, 2, 0.0, 4));
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::thm_3_10, 2, NAN, 4));
  expect_invalid([] { subsampled_gaussian_rdp(SubsampledBound::thm_3_10, 2, 0.2, 4); },
                 "q must be in (0, 1/5)");
  expect_invalid([] { subsampled_gaussian_rdp(SubsampledBound::thm_3_10, 2, 0.1, 2); },
                 "sigma must be >= 4 (got 2)");
  expect_invalid([] { subsampled_gaussian_rdp(SubsampledBound::thm_3_10, 1, 0.1, 4); }, "alpha must be > 1");
}

TEST(DpSubsampling, MironovTalwarZhangValueAndBothAlphaConditions) {
  // q = 0.01, sigma = 5, alpha = 2: M = ln 101; condition 1 bound ~ 361, condition 2 bound ~ 54.5: valid.
  EXPECT_NEAR(subsampled_gaussian_rdp(SubsampledBound::mironov_talwar_zhang, 2, 0.01, 5), 2 * 2 * 1e-4 / 25,
              1e-18);
  // Only the condition the thesis omits binds: q = 0.01, sigma = 4, alpha = 16: M = ln(1 + 1/0.15) = 2.04,
  // bound 1 = 122, bound 2 = M * 8 - 2 ln 4 = 13.5 < 16.
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::mironov_talwar_zhang, 16, 0.01, 4));
  EXPECT_TRUE(subsampled_gaussian_rdp_valid(SubsampledBound::mironov_talwar_zhang, 13, 0.01, 4));
  expect_invalid([] { subsampled_gaussian_rdp(SubsampledBound::mironov_talwar_zhang, 16, 0.01, 4); },
                 "M sigma^2/2 - 2 ln(sigma)");
  // Only the first condition binds: q = 0.19, sigma = 5, alpha = 5: bound 1 = 4.93 < 5, bound 2 = 7.28.
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::mironov_talwar_zhang, 5, 0.19, 5));
  expect_invalid([] { subsampled_gaussian_rdp(SubsampledBound::mironov_talwar_zhang, 5, 0.19, 5); },
                 "(M^2 sigma^2/2 - ln(5 sigma^2))");
  EXPECT_TRUE(subsampled_gaussian_rdp_valid(SubsampledBound::mironov_talwar_zhang, 2, 0.19, 4));
  // The base conditions apply too.
  EXPECT_FALSE(subsampled_gaussian_rdp_valid(SubsampledBound::mironov_talwar_zhang, 2, 0.01, 3));
}

TEST(DpSubsampling, BadInput) {
  expect_invalid([] { subsample_without_replacement(0.1, 0, 1.5); }, "q must be in [0, 1] (got 1.5)");
  expect_invalid([] { subsample_without_replacement(-0.1, 0, 0.5); }, "epsilon");
  expect_invalid([] { subsample_without_replacement(0.1, 2, 0.5); }, "delta");
  expect_invalid([] { with_replacement_epsilon(0.1, -1, 10); }, "m must be >= 0 (got -1)");
  expect_invalid([] { with_replacement_epsilon(0.1, 1, 0); }, "n must be >= 1 (got 0)");
  expect_invalid([] { with_replacement_delta(DeltaCycle::exact_gaussian, 0.1, 0, 0, 1, 10); }, "theta");
  expect_invalid([] { with_replacement_delta(DeltaCycle::k_delta, 0.1, 1, 1.5, 1, 10); }, "delta_a");
  expect_invalid([] { with_replacement_delta(DeltaCycle::k_delta, -0.1, 1, 0.1, 1, 10); }, "epsilon_a");
  expect_invalid([] { aggregated_gaussian_theta(1, 0, 4); }, "sigma_loc_abs");
  expect_invalid([] { parse_delta_cycle("assume"); }, "assume");
  EXPECT_EQ(parse_delta_cycle("group_privacy"), DeltaCycle::group_privacy);
  EXPECT_EQ(to_string(parse_delta_cycle("exact_gaussian")), "exact_gaussian");
}

}  // namespace
}  // namespace netdp::dp
