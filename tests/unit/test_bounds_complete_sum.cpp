// Real summation on the complete graph (docs/math.md §4.1): Appendix Z items 4 and 4b, the exact cycle
// maximum, the preprint analysis, delta_cycle, invariants, bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/bounds/complete_graph_sum.hpp"
#include "netdp/core/error.hpp"

namespace netdp::bounds {
namespace {

// Appendix Z 4: eps0 = 0.1, delta = delta' = delta_hat = 1e-7, T = 100 n, proof N_v, C3, 3 eps/sqrt(n).
CompleteSumParams figure_params() {
  return CompleteSumParams{};  // the defaults are Fig. 7.1a's
}

TEST(CompleteSum, AppendixZ4ThesisVersusLdp) {
  const CompleteSumParams p = figure_params();
  const double expected[][2] = {{10, 11.388},  {20, 7.508},  {24, 6.751},  {100, 3.043},
                                {1000, 0.909}, {1e4, 0.282}, {1e6, 0.0280}};
  for (const auto& [n, ndp] : expected) {
    const CompleteSumBound b = complete_sum_thesis(n, p);
    EXPECT_NEAR(b.eps_ldp, 9.1758, 5e-5) << n;
    EXPECT_NEAR(b.epsilon, ndp, 1e-3 * ndp) << n;  // the printed digits
    EXPECT_NEAR(b.contributions, 169.537, 1e-3);
    EXPECT_NEAR(b.cycles, 269.537, 1e-3);
    // delta = k delta + delta' + delta_hat (delta_cycle := delta).
    EXPECT_NEAR(b.delta, 269.537 * 1e-7 + 2e-7, 1e-10);
  }
  EXPECT_GT(complete_sum_thesis(10, p).epsilon, 9.1758);  // crossover between 10 and 20
  EXPECT_LT(complete_sum_thesis(20, p).epsilon, 9.1758);
}

TEST(CompleteSum, AppendixZ4bCodeQuirkOnTheLogspaceGrid) {
  CompleteSumParams p = figure_params();
  p.contributions.formula = dp::NvFormula::code_quirk;
  // n is not rounded on the figure's grid: 10.8 and 24.0 are 10^(30/29) and 10^(40/29) (117 = 10^(60/29)).
  struct Case {
    double n, nv, ldp, ndp, tol;
  };
  const Case cases[] = {{std::pow(10.0, 30.0 / 29), 261.8, 11.94, 13.0, 0.05},
                        {std::pow(10.0, 40.0 / 29), 340.6, 14.06, 9.01, 0.005},
                        {std::pow(10.0, 60.0 / 29), -1, 20.93, 4.83, 0.005},
                        {1e3, -1, 40.5, 2.42, 0.05},
                        {1e6, -1, 644.2, 0.383, 0.05}};
  for (const Case& c : cases) {
    const CompleteSumBound b = complete_sum_thesis(c.n, p);
    if (c.nv > 0) {
      EXPECT_NEAR(b.contributions, c.nv, 0.05) << c.n;
    }
    EXPECT_NEAR(b.eps_ldp, c.ldp, c.tol * 1.01) << c.n;
    EXPECT_NEAR(b.epsilon, c.ndp, std::min(c.tol, 0.005 * c.ndp) + 1e-3) << c.n;
    EXPECT_FALSE(b.contributions_proven);
  }
}

TEST(CompleteSum, ExactCycleMaximumIsBelowTheClosedBound) {
  CompleteSumParams closed = figure_params(), exact = figure_params();
  exact.cycle_bound = CycleBound::exact_max;
  for (double eps : {0.1, 0.5, 1.0}) {
    closed.epsilon = exact.epsilon = eps;
    for (double n : {1.0, 2.0, 7.0, 10.8, 100.0, 1234.0, 1e5, 1e8}) {
      const CompleteSumBound c = complete_sum_thesis(n, closed), e = complete_sum_thesis(n, exact);
      EXPECT_DOUBLE_EQ(c.eps_cycle, 3 * eps / std::sqrt(n));
      EXPECT_LE(e.eps_cycle, c.eps_cycle) << eps << " " << n;
      EXPECT_LE(e.epsilon, c.epsilon);
      // The maximum is attained and dominates every other cycle length.
      EXPECT_DOUBLE_EQ(e.eps_cycle, thesis_cycle_epsilon(eps, e.worst_m, n));
      for (double m : {1.0, std::floor(n / 2) + 1, std::floor(n)})
        EXPECT_LE(thesis_cycle_epsilon(eps, m, n), e.eps_cycle * (1 + 1e-12));
    }
  }
  // Hand value: n = 2, m = 1: ln(1 + (1/2)(e^0.1 - 1)); m = 2: ln(1 + (3/4)(e^{0.1/sqrt 2} - 1)).
  EXPECT_NEAR(thesis_cycle_epsilon(0.1, 1, 2), std::log1p(0.5 * std::expm1(0.1)), 1e-15);
  EXPECT_NEAR(thesis_cycle_epsilon(0.1, 2, 2), std::log1p(0.75 * std::expm1(0.1 / std::sqrt(2.0))), 1e-15);
}

TEST(CompleteSum, FixedContributionsAreBelowRandomOnes) {
  CompleteSumParams random = figure_params(), fixed = figure_params();
  fixed.contributions.kind = Contributions::fixed;
  for (double n : {3.0, 10.0, 100.0, 1e4}) {
    const CompleteSumBound r = complete_sum_thesis(n, random), f = complete_sum_thesis(n, fixed);
    EXPECT_DOUBLE_EQ(f.contributions, 100);
    EXPECT_DOUBLE_EQ(f.cycles, 200);  // 100 + T/n
    EXPECT_LT(f.epsilon, r.epsilon);
    EXPECT_LT(f.eps_ldp, r.eps_ldp);
    EXPECT_LT(f.delta, r.delta);  // no delta_hat
    const CompleteSumBound rp = complete_sum_preprint(n, random), fp = complete_sum_preprint(n, fixed);
    EXPECT_LT(fp.epsilon, rp.epsilon);
  }
}

TEST(CompleteSum, NetworkLossDecreasesWithN) {
  const CompleteSumParams p = figure_params();
  CompleteSumParams e = p;
  e.cycle_bound = CycleBound::exact_max;
  double previous[3] = {INFINITY, INFINITY, INFINITY};
  for (double n = 1; n <= 1e9; n *= 1.7) {
    const double now[3] = {complete_sum_thesis(n, p).epsilon, complete_sum_thesis(n, e).epsilon,
                           complete_sum_preprint(n, p).epsilon};
    for (int i = 0; i < 3; ++i) {
      EXPECT_LT(now[i], previous[i]) << i << " " << n;
      previous[i] = now[i];
    }
  }
}

TEST(CompleteSum, CollusionActsAsFewerUsers) {
  CompleteSumParams p = figure_params(), c = figure_params();
  c.colluders = 1;
  for (auto a : {SumAnalysis::thesis, SumAnalysis::preprint}) {
    EXPECT_DOUBLE_EQ(complete_sum(a, 500, c).epsilon, complete_sum(a, 500, p).epsilon);
    c.colluders = 5;  // 5 colluders among 500 users: the network bound of 100 users, same T
    CompleteSumParams same_t = p;
    same_t.steps = 50000;
    const CompleteSumBound col = complete_sum(a, 500, c), ref = complete_sum(a, 100, same_t);
    EXPECT_DOUBLE_EQ(col.epsilon, ref.epsilon);
    EXPECT_DOUBLE_EQ(col.n_effective, 100);
    EXPECT_GT(col.epsilon, complete_sum(a, 500, p).epsilon);
    EXPECT_DOUBLE_EQ(col.eps_ldp, complete_sum(a, 500, p).eps_ldp);  // LDP does not depend on observers
    c.colluders = 1;
  }
}

TEST(CompleteSum, PreprintHandCalculation) {
  const CompleteSumParams p = figure_params();
  const double n = 1000;
  const CompleteSumBound b = complete_sum_preprint(n, p);
  // At the tuned c the two regimes balance: 2 gamma_n eps = eps/(c n^{1/3}).
  const double gamma = -std::expm1(b.c * b.c * std::pow(n, 2.0 / 3) * std::log1p(-1 / n));
  EXPECT_NEAR(b.gamma_n, gamma, 1e-15);
  EXPECT_NEAR(2 * gamma * 0.1, 0.1 / (b.c * std::cbrt(n)), 1e-12);
  EXPECT_NEAR(b.eps_cycle, 0.2 * gamma, 1e-12);
  // No other c does better.
  for (double c : {b.c * 0.9, b.c * 1.1}) {
    const double g = -std::expm1(c * c * std::pow(n, 2.0 / 3) * std::log1p(-1 / n));
    EXPECT_GT(std::max(0.2 * g, 0.1 / (c * std::cbrt(n))), b.eps_cycle);
  }
  const double k = 169.53724681986984, ec = b.eps_cycle;
  const double c2 = std::sqrt(2 * k * std::log(1e7)) * ec + k * ec * std::expm1(ec);
  EXPECT_NEAR(b.epsilon, std::min(c2, k * ec), 1e-10);
  EXPECT_NEAR(b.eps_printed, std::sqrt(2 * k * std::log(1e7)) * ec + k * 0.1 * std::expm1(ec), 1e-10);
  EXPECT_NEAR(b.delta, k * 1e-7 + 2e-7, 1e-15);
  EXPECT_LT(b.epsilon, b.eps_ldp);  // [S2]: beats LDP as soon as n >= 10
}

// --c fixes the preprint's constant for every n: eps_c = max(2 gamma_n eps, eps/(c n^{1/3})) with gamma_n =
// 1 - (1 - 1/n)^{c^2 n^{2/3}} at that c (docs/math.md §4.1.2), never below the tuned c's.
TEST(CompleteSum, PreprintFixedConstant) {
  CompleteSumParams p = figure_params();
  const double n = 1000, eps = 0.1;
  const CompleteSumBound tuned = complete_sum_preprint(n, p);
  for (double c : {0.5, 1.0, 3.0}) {
    p.preprint_c = c;
    const CompleteSumBound b = complete_sum_preprint(n, p);
    const double gamma = 1 - std::pow(1 - 1 / n, c * c * std::pow(n, 2.0 / 3));
    EXPECT_EQ(b.c, c);
    EXPECT_NEAR(b.gamma_n, gamma, 1e-13);
    EXPECT_NEAR(b.eps_cycle, std::max(2 * gamma * eps, eps / (c * std::cbrt(n))), 1e-13);
    EXPECT_GE(b.eps_cycle, tuned.eps_cycle * (1 - 1e-12));
    EXPECT_DOUBLE_EQ(b.cycles, tuned.cycles);  // N_u does not depend on c
  }
  p.preprint_c = tuned.c;  // fixing the tuned value changes nothing
  EXPECT_DOUBLE_EQ(complete_sum_preprint(n, p).epsilon, tuned.epsilon);
  p.preprint_c = -1;
  EXPECT_THROW(complete_sum_preprint(n, p), InvalidInput);
  p.preprint_c = INFINITY;
  EXPECT_THROW(complete_sum_preprint(n, p), InvalidInput);
}

TEST(CompleteSum, DeltaCycleRules) {
  CompleteSumParams p = figure_params();
  EXPECT_DOUBLE_EQ(complete_sum_thesis(10, p).delta_cycle, 1e-7);
  p.delta_cycle = DeltaCycleRule::k_delta;
  EXPECT_DOUBLE_EQ(complete_sum_thesis(10, p).delta_cycle, 1e-7);  // (m/n) delta at m = n
  EXPECT_NEAR(complete_sum_thesis(10.5, p).delta_cycle, 10 / 10.5 * 1e-7, 1e-20);
  // SS2 with the exact Gaussian group profile (G3) for sigma_loc = sqrt(2 ln(1.25e7))/0.1: the binomial
  // mixture of group-k profiles, max over m <= 10 (at m = 10), evaluated independently in Python. It is
  // far above delta (docs/math.md §12 item 18).
  p.delta_cycle = DeltaCycleRule::exact_gaussian;
  const CompleteSumBound b = complete_sum_thesis(10, p);
  EXPECT_NEAR(b.delta_cycle, 2.3620205784844796e-05, 1e-9);
  EXPECT_NEAR(b.delta, b.cycles * b.delta_cycle + 2e-7, 1e-15);
  p.delta_cycle = DeltaCycleRule::group_privacy;
  EXPECT_GT(complete_sum_thesis(10, p).delta_cycle, 0);
  EXPECT_THROW(complete_sum_thesis(10.5, p), InvalidInput);  // needs an integer n
}

TEST(CompleteSum, SenderKnownAddsSpottedContributions) {
  CompleteSumParams p = figure_params();
  const CompleteSumBound hidden = complete_sum_thesis(1000, p);
  p.sender_known = true;
  const CompleteSumBound known = complete_sum_thesis(1000, p);
  const double nv = hidden.contributions, ns = 2 * nv / 1000 + std::sqrt(6 * nv / 1000 * std::log(1e7));
  EXPECT_NEAR(known.spotted.count, ns, 1e-12);
  const double c2 = std::sqrt(2 * ns * std::log(1e7)) * 0.1 + ns * 0.1 * std::expm1(0.1);
  EXPECT_NEAR(known.spotted.epsilon, std::min(c2, ns * 0.1), 1e-12);
  EXPECT_NEAR(known.epsilon, hidden.epsilon + known.spotted.epsilon, 1e-12);
  EXPECT_NEAR(known.delta, hidden.delta + ns * 1e-7 + 1e-7 + 1e-7, 1e-15);
}

TEST(CompleteSum, BadInput) {
  auto fails = [](auto mutate, double n = 100) {
    CompleteSumParams p;
    mutate(p);
    EXPECT_THROW(complete_sum_thesis(n, p), InvalidInput);
  };
  fails([](CompleteSumParams& p) { p.epsilon = 0; });
  fails([](CompleteSumParams& p) { p.epsilon = -1; });
  fails([](CompleteSumParams& p) { p.delta = 0; });
  fails([](CompleteSumParams& p) { p.delta = 1; });
  fails([](CompleteSumParams& p) { p.delta_prime = 1.5; });
  fails([](CompleteSumParams& p) { p.contributions.delta_hat = 0; });
  fails([](CompleteSumParams& p) { p.steps = 0.5; });
  fails([](CompleteSumParams& p) { p.colluders = 100; });
  fails([](CompleteSumParams& p) { p.epsilon = 1.5; });  // the closed bound needs eps <= 1
  fails([](CompleteSumParams&) {}, 0.5);                 // n < 1
  fails([](CompleteSumParams&) {}, NAN);
  CompleteSumParams p;
  p.epsilon = 1.5;
  EXPECT_THROW(complete_sum_preprint(100, p), InvalidInput);
  p.cycle_bound = CycleBound::exact_max;  // no condition on eps
  EXPECT_GT(complete_sum_thesis(100, p).epsilon, 0);
  EXPECT_THROW(parse_cycle_bound("open"), InvalidInput);
}

}  // namespace
}  // namespace netdp::bounds
