// Histograms on the complete graph (docs/math.md §4.2): Thm D.1 closed form, Remark D.2 numerical evaluation,
// [S2] Thm 6 with c tuned; utility, invariants, conditions.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/bounds/complete_graph_histogram.hpp"
#include "netdp/core/error.hpp"

namespace netdp::bounds {
namespace {

double c3(double eps, double k, double delta_prime) {
  const double c2 = std::sqrt(2 * k * std::log(1 / delta_prime)) * eps + k * eps * std::expm1(eps);
  return std::min(c2, k * eps);
}

TEST(CompleteHistogram, ClosedFormHandCalculation) {
  CompleteHistogramParams p;  // eps 0.5, delta = delta' = delta_hat = 1e-7, T = 100 n, L = 2
  const double n = 1e4, k = 100 + std::sqrt(300 * std::log(1e7)) + 100;
  const CompleteHistogramBound b = complete_histogram(HistogramAnalysis::closed, n, p);
  const double ec = 21 * std::sqrt(std::log(4e7)) * 0.5 / 100;
  EXPECT_NEAR(b.cycles, k, 1e-9);
  EXPECT_NEAR(b.eps_cycle, ec, 1e-14);
  EXPECT_NEAR(b.epsilon, c3(ec, k, 1e-7), 1e-10);
  EXPECT_NEAR(b.delta, k * 1e-7 + 1e-7 + 1e-7, 1e-15);
  // RR_gamma with gamma = L/(e^eps + L - 1); gamma T random responses.
  EXPECT_NEAR(b.gamma, 2 / (std::exp(0.5) + 1), 1e-15);
  EXPECT_NEAR(b.random_responses, b.gamma * 1e6, 1e-6);
  // LDP: pure eps-LDP contributions composed over N_v.
  EXPECT_NEAR(b.eps_ldp, c3(0.5, k - 100, 1e-7), 1e-10);
  EXPECT_NEAR(b.delta_ldp, 2e-7, 1e-15);
}

TEST(CompleteHistogram, ClosedFormConditions) {
  CompleteHistogramParams p;
  const double n_min = 196 * std::log(4e7);  // 14^2 ln(4/delta) = 3430.9
  EXPECT_THROW(complete_histogram(HistogramAnalysis::closed, 3430, p), InvalidInput);
  EXPECT_NO_THROW(complete_histogram(HistogramAnalysis::closed, std::ceil(n_min), p));
  p.epsilon = 1.2;
  EXPECT_THROW(complete_histogram(HistogramAnalysis::closed, 1e5, p), InvalidInput);
  p.epsilon = 0.5;
  p.colluders = 10;  // n / c must satisfy it
  EXPECT_THROW(complete_histogram(HistogramAnalysis::closed, 1e4, p), InvalidInput);
}

TEST(CompleteHistogram, NumericalIsTighterThanTheClosedForm) {
  CompleteHistogramParams p;
  for (double n : {3431.0, 1e4, 1e5, 1e7}) {
    const auto closed = complete_histogram(HistogramAnalysis::closed, n, p);
    const auto numerical = complete_histogram(HistogramAnalysis::numerical, n, p);
    EXPECT_LT(numerical.eps_cycle, closed.eps_cycle) << n;
    EXPECT_LT(numerical.epsilon, closed.epsilon) << n;
    EXPECT_DOUBLE_EQ(numerical.eps_cycle,
                     histogram_cycle_epsilon(0.5, 1e-7, std::int64_t(numerical.worst_m), n));
    for (double m : {1.0, 100.0, std::floor(n / 3), n})
      EXPECT_LE(histogram_cycle_epsilon(0.5, 1e-7, std::int64_t(m), n), numerical.eps_cycle * (1 + 1e-12));
  }
}

TEST(CompleteHistogram, NumericalWithoutShufflingIsSubsamplingOnly) {
  // n = 50 < 16 ln(2/delta) e^eps: SH2 never applies, so the worst cycle is m = n with eps_A = eps.
  CompleteHistogramParams p;
  const auto b = complete_histogram(HistogramAnalysis::numerical, 50, p);
  EXPECT_DOUBLE_EQ(b.worst_m, 50);
  EXPECT_NEAR(b.eps_cycle, std::log1p(-std::expm1(50 * std::log1p(-1 / 50.0)) * std::expm1(0.5)), 1e-15);
  // SH2 un-simplified (FMT Thm 3.1) for a cycle of m = 1e6 contributions, then SS2 from n = 1e6.
  const double m = 1e6, e = std::exp(0.5);
  const double shuffled =
      std::log1p((e - 1) / (e + 1) * (8 * std::sqrt(e * std::log(4e7)) / std::sqrt(m) + 8 * e / m));
  EXPECT_NEAR(histogram_cycle_epsilon(0.5, 1e-7, 1000000, 1e6),
              std::log1p(-std::expm1(m * std::log1p(-1 / m)) * std::expm1(shuffled)), 1e-15);
}

TEST(CompleteHistogram, PreprintTunedConstant) {
  CompleteHistogramParams p;
  const double n = 1e6, eps = 0.5, a = 14 * std::sqrt(std::log(4e7));
  const auto b = complete_histogram(HistogramAnalysis::preprint, n, p);
  // Thm 6's condition eps <= ln(c^2 n^{2/3} / (16 ln(2/delta))) holds at the tuned c.
  EXPECT_LE(eps, std::log(b.c * b.c * std::pow(n, 2.0 / 3) / (16 * std::log(2e7))) + 1e-12);
  const double gamma = -std::expm1(b.c * b.c * std::pow(n, 2.0 / 3) * std::log1p(-1 / n));
  EXPECT_NEAR(b.gamma_n, gamma, 1e-15);
  EXPECT_NEAR(b.eps_cycle, std::max(2 * gamma * eps, a * eps / (b.c * std::cbrt(n))), 1e-15);
  EXPECT_NEAR(b.cycles, 100 + std::sqrt(300 * std::log(1e7)), 1e-9);  // composed over N_u
  EXPECT_NEAR(b.epsilon, c3(b.eps_cycle, b.cycles, 1e-7), 1e-10);
  for (double c : {b.c * 0.97, b.c * 1.03}) {  // no admissible c does better
    if (eps > std::log(c * c * std::pow(n, 2.0 / 3) / (16 * std::log(2e7)))) continue;
    const double g = -std::expm1(c * c * std::pow(n, 2.0 / 3) * std::log1p(-1 / n));
    EXPECT_GE(std::max(2 * g * eps, a * eps / (c * std::cbrt(n))), b.eps_cycle * (1 - 1e-12));
  }
  p.epsilon = 1.5;
  EXPECT_THROW(complete_histogram(HistogramAnalysis::preprint, n, p), InvalidInput);
}

TEST(CompleteHistogram, Invariants) {
  CompleteHistogramParams random, fixed, c1;
  fixed.contributions.kind = Contributions::fixed;
  c1.colluders = 1;
  for (auto a : {HistogramAnalysis::closed, HistogramAnalysis::numerical, HistogramAnalysis::preprint}) {
    double previous = INFINITY;
    for (double n : {4000.0, 1e4, 1e5, 1e6, 1e8}) {
      const auto r = complete_histogram(a, n, random);
      EXPECT_LT(complete_histogram(a, n, fixed).epsilon, r.epsilon);
      EXPECT_DOUBLE_EQ(complete_histogram(a, n, c1).epsilon, r.epsilon);
      EXPECT_LT(r.epsilon, previous);
      previous = r.epsilon;
    }
  }
}

TEST(CompleteHistogram, BadInput) {
  auto fails = [](auto mutate) {
    CompleteHistogramParams p;
    mutate(p);
    EXPECT_THROW(complete_histogram(HistogramAnalysis::numerical, 1e4, p), InvalidInput);
  };
  fails([](CompleteHistogramParams& p) { p.epsilon = 0; });
  fails([](CompleteHistogramParams& p) { p.delta = 2; });
  fails([](CompleteHistogramParams& p) { p.categories = 1; });
  fails([](CompleteHistogramParams& p) { p.steps = 0.1; });
  fails([](CompleteHistogramParams& p) { p.delta_tilde = 0; });
  EXPECT_THROW(complete_histogram(HistogramAnalysis::numerical, 0, CompleteHistogramParams{}), InvalidInput);
  EXPECT_THROW(parse_histogram_analysis("exact"), InvalidInput);
}

}  // namespace
}  // namespace netdp::bounds
