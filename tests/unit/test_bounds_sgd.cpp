// DP-SGD on the complete graph (docs/math.md §4.3): network RDP (4.3.1) with the finite-horizon option, Thm 7.2
// (Appendix Z 5), sigma searches (Appendix Z 6 and the thesis procedure), collusion, spotted loss, bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/bounds/complete_graph_sgd.hpp"
#include "netdp/bounds/complete_graph_sgd_sigma.hpp"
#include "netdp/core/error.hpp"

namespace netdp::bounds {
namespace {

// C6 for a linear RDP curve a alpha, alpha <= alpha_max (classic conversion).
double linear_epsilon(double a, double delta, double alpha_max = INFINITY) {
  const double alpha = std::min(1 + std::sqrt(std::log(1 / delta) / a), alpha_max);
  return a * alpha + std::log(1 / delta) / (alpha - 1);
}

SgdParams figure_params() {
  SgdParams p;  // L = 1, delta = delta_hat = delta' = 1e-6
  p.steps = 20000;
  return p;
}

TEST(CompleteSgd, AppendixZ5Theorem72) {
  const SgdClosedForm b = sgd_closed_form(2000, figure_params());  // eps = 1
  EXPECT_NEAR(b.contributions, 30.358, 5e-4);
  EXPECT_NEAR(b.q, 27.631, 5e-4);
  EXPECT_TRUE(b.q_from_delta);  // the 2 ln(1/delta) branch
  EXPECT_NEAR(b.epsilon, 7.3745, 5e-5);
  EXPECT_NEAR(b.delta, 2e-6, 1e-18);
  // alpha = sigma sqrt(ln(1/delta))/(L sqrt(q)) with sigma^2 = 8 L^2 ln(1.25/delta)/eps^2.
  EXPECT_NEAR(b.sigma, std::sqrt(8 * std::log(1.25e6)), 1e-12);
  EXPECT_NEAR(b.alpha, b.sigma * std::sqrt(std::log(1e6) / b.q), 1e-12);
  EXPECT_GT(b.alpha, 2);
  EXPECT_GE(b.sigma, std::sqrt(2 * b.alpha * (b.alpha - 1)));  // weak convexity holds at that alpha
}

TEST(CompleteSgd, AppendixZ6ReferenceCodeSigmas) {
  SigmaSearchParams p;  // L = 0.4, delta = 1e-6
  p.steps = 20000;
  p.procedure = SigmaProcedure::code;
  p.epsilon = 1;
  SigmaSearch s = sgd_sigma_search(2000, p);
  EXPECT_NEAR(s.sigma_local, 46.869, 5e-4);
  EXPECT_NEAR(s.sigma_central, 6.9682, 5e-5);
  EXPECT_NEAR(s.sigma_network, 10.983, 5e-4);
  EXPECT_DOUBLE_EQ(s.contributions, 12);  // K = ceil(1.2 T/n)
  EXPECT_DOUBLE_EQ(s.slope_factor, 2);
  p.epsilon = 10;
  s = sgd_sigma_search(2000, p);
  EXPECT_NEAR(s.sigma_local, 5.8711, 5e-5);
  EXPECT_NEAR(s.sigma_central, 0.69682, 5e-6);
  EXPECT_NEAR(s.sigma_network, 1.2270, 5e-5);
}

TEST(CompleteSgd, ThesisSigmaSearchMeetsTheTargetExactly) {
  SigmaSearchParams p;
  p.steps = 20000;
  const double n = 2000, l2 = 0.16, log_inv = std::log(1e6);
  const SigmaSearch s = sgd_sigma_search(n, p);
  const double nu = 10 + std::sqrt(30 * log_inv);
  // Local and central are uncapped linear curves: eps = a + 2 sqrt(a ln(1/delta)) inverts in closed form.
  const double a = std::pow(std::sqrt(log_inv + 1) - std::sqrt(log_inv), 2);
  EXPECT_NEAR(s.sigma_local, std::sqrt(2 * nu * l2 / a), 1e-7 * s.sigma_local);
  EXPECT_NEAR(s.sigma_central, std::sqrt(2 * 20000 * l2 / (n * n) / a), 1e-7 * s.sigma_central);
  // Network: a(sigma) = 4 N_u L^2 ln n/(sigma^2 n), alpha <= (1 + sqrt(1 + 2 sigma^2/L^2))/2.
  auto network = [&](double sigma) {
    return linear_epsilon(4 * nu * l2 * std::log(n) / (sigma * sigma * n), 1e-6,
                          (1 + std::sqrt(1 + 2 * sigma * sigma / l2)) / 2);
  };
  EXPECT_LE(network(s.sigma_network), 1.0);
  EXPECT_GT(network(s.sigma_network * (1 - 1e-6)), 1.0);
  EXPECT_LT(s.sigma_network, s.sigma_local);
  EXPECT_TRUE(s.order_capped);  // small eps: the weak-convexity constraint binds (the "two regimes")
}

TEST(CompleteSgd, SlopeFactorAndCollusionInTheSigmaSearch) {
  SigmaSearchParams p;
  p.steps = 20000;
  double previous = 0;
  for (double f : {1.0, 2.0, 4.0}) {
    p.slope_factor = f;
    const double sigma = sgd_sigma_search(2000, p).sigma_network;
    EXPECT_GT(sigma, previous);
    previous = sigma;
  }
  p.slope_factor = 0;
  SigmaSearchParams c1 = p;
  c1.colluders = 1;
  EXPECT_DOUBLE_EQ(sgd_sigma_search(2000, c1).sigma_network, sgd_sigma_search(2000, p).sigma_network);
  c1.colluders = 10;
  EXPECT_GT(sgd_sigma_search(2000, c1).sigma_network, sgd_sigma_search(2000, p).sigma_network);
  const double hidden = sgd_sigma_search(2000, p).sigma_network;
  p.sender_known = true;  // the spotted contributions need more noise
  EXPECT_GT(sgd_sigma_search(2000, p).sigma_network, hidden);
}

TEST(CompleteSgd, NetworkRdpHandCalculation) {
  SgdParams p = figure_params();
  p.sigma = 20;
  p.alpha = 3;
  const double n = 2000, nu = 10 + std::sqrt(30 * std::log(1e6));
  const SgdRdpBound b = sgd_network_rdp(n, p);
  const double slope = 4 * nu * std::log(n) / (400 * n);
  EXPECT_NEAR(b.slope, slope, 1e-15);
  EXPECT_NEAR(b.rdp, 3 * slope, 1e-15);
  EXPECT_NEAR(b.alpha_max, (1 + std::sqrt(1 + 800.0)) / 2, 1e-12);
  EXPECT_TRUE(b.alpha_valid);
  EXPECT_NEAR(b.epsilon, linear_epsilon(slope, 1e-6, b.alpha_max), 1e-10);
  EXPECT_NEAR(b.eps_local, 2 * std::sqrt(2 * std::log(1.25e6)) / 20, 1e-14);  // G2 inverse, Delta = 2L
  EXPECT_NEAR(b.ldp_slope, nu * 2 / 400, 1e-14);                              // N_u alpha (2L)^2/(2 sigma^2)
  EXPECT_LT(b.epsilon, b.eps_ldp);
  p.slope_factor = 1;  // Delta = L: a quarter of the slope, alpha_max from sigma^2 >= alpha(alpha-1)/2
  const SgdRdpBound exact = sgd_network_rdp(n, p);
  EXPECT_NEAR(exact.slope, slope / 4, 1e-15);
  EXPECT_NEAR(exact.alpha_max, (1 + std::sqrt(1 + 8 * 400.0)) / 2, 1e-12);
}

TEST(CompleteSgd, FiniteHorizonSum) {
  double direct = 0;
  for (int t = 1; t <= 1000; ++t) direct += std::pow(1 - 1 / 100.0, t - 1) / t;
  EXPECT_NEAR(geometric_harmonic_sum(100, 1000), direct, 1e-13);
  EXPECT_NEAR(geometric_harmonic_sum(100, 1e6), 100 * std::log(100.0) / 99, 1e-13);  // T -> infinity
  EXPECT_DOUBLE_EQ(geometric_harmonic_sum(1, 50), 1);
  // The quadrature branch (T > 1e7 and T < 40 n) against plain summation.
  const double n = 1e6, steps = 2e7;
  double sum = 0, power = 1;
  for (double t = 1; t <= steps; ++t, power *= 1 - 1 / n) sum += power / t;
  EXPECT_NEAR(geometric_harmonic_sum(n, steps), sum, 1e-9 * sum);
  // Finite <= infinite with the exact pmf; the RDP bound follows.
  SgdParams p = figure_params();
  const SgdRdpBound inf = sgd_network_rdp(2000, p);
  p.horizon = SgdHorizon::finite;
  const SgdRdpBound fin = sgd_network_rdp(2000, p);
  EXPECT_NEAR(fin.horizon_sum, geometric_harmonic_sum(2000, 20000), 1e-15);
  EXPECT_LT(fin.horizon_sum, 2000 * std::log(2000.0) / 1999);
  EXPECT_NEAR(fin.slope / inf.slope, fin.horizon_sum / std::log(2000.0), 1e-12);
}

TEST(CompleteSgd, CollusionFixedContributionsAndSpotted) {
  SgdParams p = figure_params(), q = figure_params();
  q.colluders = 1;
  EXPECT_DOUBLE_EQ(sgd_network_rdp(2000, q).epsilon, sgd_network_rdp(2000, p).epsilon);
  EXPECT_DOUBLE_EQ(sgd_closed_form(2000, q).epsilon, sgd_closed_form(2000, p).epsilon);
  q.colluders = 4;  // the bound of 500 users with the same T
  SgdParams same_t = figure_params();
  EXPECT_DOUBLE_EQ(sgd_network_rdp(2000, q).epsilon, sgd_network_rdp(500, same_t).epsilon);
  q = p;
  q.contributions.kind = Contributions::fixed;
  EXPECT_LT(sgd_network_rdp(2000, q).epsilon, sgd_network_rdp(2000, p).epsilon);
  EXPECT_LE(sgd_closed_form(2000, q).epsilon, sgd_closed_form(2000, p).epsilon);
  q = p;
  q.sender_known = true;
  const SgdClosedForm spotted = sgd_closed_form(2000, q), plain = sgd_closed_form(2000, p);
  const double nu = plain.contributions, ns = 2 * nu / 2000 + std::sqrt(6 * nu / 2000 * std::log(1e6));
  EXPECT_NEAR(spotted.spotted.count, ns, 1e-12);
  EXPECT_NEAR(spotted.epsilon - plain.epsilon,
              std::min(ns, std::sqrt(2 * ns * std::log(1e6)) + ns * std::expm1(1.0)), 1e-12);
}

TEST(CompleteSgd, BadInput) {
  auto fails = [](auto mutate) {
    SgdParams p = figure_params();
    mutate(p);
    EXPECT_THROW(sgd_network_rdp(2000, p), InvalidInput);
  };
  fails([](SgdParams& p) { p.alpha = 1; });
  fails([](SgdParams& p) { p.delta = 0; });
  fails([](SgdParams& p) { p.epsilon = 0; });
  fails([](SgdParams& p) { p.steps = 0.5; });
  fails([](SgdParams& p) { p.slope_factor = 3; });
  fails([](SgdParams& p) { p.lipschitz = -1; });
  EXPECT_THROW(sgd_network_rdp(1, figure_params()), InvalidInput);
  SgdParams p = figure_params();
  p.epsilon = 1.5;
  EXPECT_THROW(sgd_closed_form(2000, p), InvalidInput);  // Thm 7.2: eps < 1
  p.epsilon = 0.5;
  p.delta = 0.6;
  EXPECT_THROW(sgd_closed_form(2000, p), InvalidInput);  // delta < 1/2
  SigmaSearchParams s;
  s.steps = 20000;
  s.epsilon = -1;
  EXPECT_THROW(sgd_sigma_search(2000, s), InvalidInput);
  s.epsilon = 1;
  s.delta = 1;
  EXPECT_THROW(sgd_sigma_search(2000, s), InvalidInput);
  EXPECT_THROW(parse_sigma_procedure("fast"), InvalidInput);
}

}  // namespace
}  // namespace netdp::bounds
