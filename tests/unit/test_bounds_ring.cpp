// Token walk on a directed ring (docs/math.md §3): real summation (Thm 5.5, Remark 5.6) and histograms (Thm 5.7,
// corrected and literal gamma).
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/bounds/ring.hpp"
#include "netdp/core/error.hpp"

namespace netdp::bounds {
namespace {

TEST(RingSum, HandCalculation) {
  RingSumParams p;
  p.turns = 3;
  p.epsilon = 0.5;
  p.delta = 1e-5;
  p.delta_prime = 1e-6;
  const RingSumBound b = ring_sum(10, p);
  const double sigma = std::sqrt(2 * std::log(1.25e5)) / 0.5;  // G2
  EXPECT_NEAR(b.sigma_loc, sigma, 1e-12);
  // C2 with k = K.
  EXPECT_NEAR(b.epsilon, std::sqrt(6 * std::log(1e6)) * 0.5 + 3 * 0.5 * std::expm1(0.5), 1e-12);
  EXPECT_NEAR(b.delta, 3e-5 + 1e-6, 1e-18);
  EXPECT_DOUBLE_EQ(b.eps_ldp, b.epsilon);
  // Noise once every n - 1 = 9 hops over K n = 30 hops: floor(30/9) = 3 noises.
  EXPECT_NEAR(b.std_ring, std::sqrt(3.0) * sigma, 1e-12);
  EXPECT_NEAR(b.std_ldp, std::sqrt(30.0) * sigma, 1e-12);
  EXPECT_NEAR(b.std_distributed, 2 * sigma, 1e-12);
  // The O(1/sqrt(n)) utility gain: std_ldp / std_ring ~ sqrt(n - 1).
  const RingSumBound big = ring_sum(10001, p);
  EXPECT_NEAR(big.std_ldp / big.std_ring, std::sqrt(10001.0 * 3 / 3), 1e-6);
}

TEST(RingSum, CollusionAndBadInput) {
  RingSumParams p;
  EXPECT_TRUE(std::isfinite(ring_sum(10, p).epsilon));
  p.colluders = 2;  // two colluders break network DP for the nodes between them
  EXPECT_TRUE(std::isinf(ring_sum(10, p).epsilon));
  EXPECT_TRUE(std::isfinite(ring_sum(10, p).eps_ldp));
  p.colluders = 1;
  EXPECT_THROW(ring_sum(1, p), InvalidInput);
  EXPECT_THROW(ring_sum(10.5, p), InvalidInput);
  p.turns = 0;
  EXPECT_THROW(ring_sum(10, p), InvalidInput);
  p.turns = 1;
  p.delta = 1;
  EXPECT_THROW(ring_sum(10, p), InvalidInput);
  p.delta = 1e-5;
  p.epsilon = 0;
  EXPECT_THROW(ring_sum(10, p), InvalidInput);
}

TEST(RingHistogram, CorrectedGamma) {
  RingHistogramParams p;  // eps 0.25, delta = delta' = 1e-6, K = 1, L = 2
  p.turns = 4;
  const double n = 2000, log_inv = std::log(1e6);
  const RingHistogramBound b = ring_histogram(n, p);
  const double eps0 = 0.25 * std::sqrt(n / log_inv) / 12;
  EXPECT_NEAR(b.eps0, eps0, 1e-15);
  EXPECT_NEAR(b.gamma, 2 / (std::exp(eps0) + 1), 1e-15);
  EXPECT_NEAR(b.eps_cycle_sh1, 0.25, 1e-14);  // SH1 of a cycle gives back eps
  EXPECT_NEAR(b.random_responses, b.gamma * n * 5, 1e-9);
  EXPECT_NEAR(b.epsilon, std::sqrt(8 * log_inv) * 0.25 + 4 * 0.25 * std::expm1(0.25), 1e-12);
  EXPECT_NEAR(b.delta, 4e-6 + 1e-6, 1e-18);
  EXPECT_NEAR(b.gamma_ldp, 2 / (std::exp(0.25) + 1), 1e-15);
  EXPECT_NEAR(b.random_responses_ldp, b.gamma_ldp * n * 4, 1e-9);
}

TEST(RingHistogram, LiteralGamma) {
  RingHistogramParams p;
  p.gamma_rule = HistogramGamma::literal;
  const double n = 5000, log_inv = std::log(1e6);
  const RingHistogramBound b = ring_histogram(n, p);
  const double eps0 = 12 * 0.25 * std::sqrt(log_inv / n);
  EXPECT_NEAR(b.gamma, 2 / (std::exp(eps0) + 1), 1e-15);
  EXPECT_NEAR(b.eps_cycle_sh1, 12 * eps0 * std::sqrt(log_inv / n),
              1e-15);  // not eps: the printed form is inverted
  EXPECT_LT(b.eps_cycle_sh1, 0.25);
}

TEST(RingHistogram, Conditions) {
  RingHistogramParams p;
  EXPECT_THROW(ring_histogram(1000, p), InvalidInput);  // n > 1000
  EXPECT_NO_THROW(ring_histogram(1001, p));
  // Corrected: eps0 = eps sqrt(n/ln(1/delta))/12 <= 1/2, i.e. n <= 36 ln(1/delta)/eps^2 = 7957.7.
  EXPECT_NO_THROW(ring_histogram(7957, p));
  EXPECT_THROW(ring_histogram(7958, p), InvalidInput);
  p.gamma_rule = HistogramGamma::literal;
  EXPECT_NO_THROW(ring_histogram(7958, p));
  p.epsilon = 0.5;
  EXPECT_THROW(ring_histogram(2000, p), InvalidInput);  // eps < 1/2
  p.epsilon = 0.25;
  p.delta = 0.01;
  EXPECT_THROW(ring_histogram(2000, p), InvalidInput);  // delta < 1/100
  p.delta = 1e-6;
  p.colluders = 3;
  EXPECT_TRUE(std::isinf(ring_histogram(2000, p).epsilon));
  EXPECT_THROW(parse_histogram_gamma("inverted"), InvalidInput);
}

}  // namespace
}  // namespace netdp::bounds
