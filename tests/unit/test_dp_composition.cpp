// Composition (docs/math.md §1.4, C1-C5) against hand calculations and invariants, and docs/math.md §Z items
// 4 and 4b (the LDP curve of Fig. 7.1a: C3 over k = N_v contributions with N_v from CB1).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/dp/concentration.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

TEST(DpComposition, SimpleAddsUp) {
  const EpsDelta r = simple_composition(0.25, 1e-6, 8);
  EXPECT_DOUBLE_EQ(r.epsilon, 2.0);
  EXPECT_DOUBLE_EQ(r.delta, 8e-6);
  EXPECT_EQ(simple_composition(1, 0.3, 10).delta, 1.0);  // capped
}

TEST(DpComposition, AdvancedHandCalculation) {
  // k = 2, eps = ln 2, delta' = e^-2: sqrt(2*2*2) ln 2 + 2 ln 2 (2 - 1) = (2 sqrt 2 + 2) ln 2.
  const EpsDelta r = advanced_composition(std::log(2.0), 1e-3, 2, std::exp(-2.0));
  EXPECT_NEAR(r.epsilon, (2 * std::numbers::sqrt2 + 2) * std::log(2.0), 1e-14);
  EXPECT_NEAR(r.delta, 2e-3 + std::exp(-2.0), 1e-16);
  // Non-integer k (from a Chernoff bound) is allowed; k = 0 costs nothing but delta'.
  EXPECT_NEAR(advanced_composition(0.5, 0, 2.5, std::exp(-1.0)).epsilon,
              std::sqrt(5.0) * 0.5 + 2.5 * 0.5 * std::expm1(0.5), 1e-14);
  EXPECT_EQ(advanced_composition(0.5, 1e-6, 0, 1e-6).epsilon, 0.0);
}

TEST(DpComposition, OptimalTakesTheMinimumBelowTheKLimit) {
  // eps = 1, k = 10: advanced = sqrt(20 ln 1e5) + 10 (e - 1) > 10 = simple.
  EXPECT_DOUBLE_EQ(optimal_composition(1, 0, 10, 1e-5).epsilon, 10.0);
  // k = 1e5 is not < 1e5: the code's rule keeps the (here larger) advanced value.
  EXPECT_DOUBLE_EQ(optimal_composition(1, 0, 1e5, 1e-5).epsilon,
                   advanced_composition(1, 0, 1e5, 1e-5).epsilon);
  EXPECT_GT(optimal_composition(1, 0, 1e5, 1e-5).epsilon, 1e5);
  // Small eps, many rounds: advanced wins.
  EXPECT_DOUBLE_EQ(optimal_composition(0.01, 0, 1e4, 1e-5).epsilon,
                   advanced_composition(0.01, 0, 1e4, 1e-5).epsilon);
}

TEST(DpComposition, AppendixZItem4LdpCurveIsFlat) {
  // eps0 = 0.1, delta = delta' = delta_hat = 1e-7, T = 100 n, N_v = 169.5 (proof formula): LDP = 9.1758 for
  // all n.
  for (double n : {10.0, 24.0, 1e3, 1e6}) {
    const double nv = chernoff_visit_bound(100 * n, n, 1e-7, NvFormula::proof);
    EXPECT_NEAR(nv, 169.5, 0.05);
    EXPECT_NEAR(optimal_composition(0.1, 1e-7, nv, 1e-7).epsilon, 9.1758, 5e-5) << n;
  }
}

TEST(DpComposition, AppendixZItem4bCodeQuirkLdpCurveGrows) {
  // n on logspace(0, 10, 30): 10^(30/29) = 10.8, 10^(40/29) = 24.0, 10^(60/29) = 117; plus n = 1e3 and 1e6.
  const double ns[] = {std::pow(10.0, 30.0 / 29), std::pow(10.0, 40.0 / 29), std::pow(10.0, 60.0 / 29), 1e3,
                       1e6};
  const double ldp[] = {11.94, 14.06, 20.93, 40.5, 644.2};
  const double tol[] = {5e-3, 5e-3, 5e-3, 5e-2, 5e-2};
  for (int i = 0; i < 5; ++i) {
    const double nv = chernoff_visit_bound(100 * ns[i], ns[i], 1e-7, NvFormula::code_quirk);
    if (i == 0) {
      EXPECT_NEAR(nv, 261.8, 0.05);
    }
    if (i == 1) {
      EXPECT_NEAR(nv, 340.6, 0.05);
    }
    EXPECT_NEAR(optimal_composition(0.1, 1e-7, nv, 1e-7).epsilon, ldp[i], tol[i]) << ns[i];
  }
}

TEST(DpComposition, HeterogeneousHandCalculations) {
  // One entry eps = 1: first + second > 1 = sum, so the sum wins.
  EXPECT_DOUBLE_EQ(heterogeneous_composition({1.0}, 1e-5).epsilon, 1.0);
  // 10,000 entries of 0.01, delta = 1e-9: delta_new = 1e-5, S2 = 1, e + 1/delta_new > 1/delta_new, so
  // second = sqrt(2 ln 1e5); first = 1e4 * 0.01 (e^0.01 - 1)/(e^0.01 + 1).
  const double first = 100 * std::expm1(0.01) / (std::exp(0.01) + 1);
  const std::vector<double> many(10000, 0.01);
  EXPECT_NEAR(heterogeneous_composition(many, 1e-9).epsilon, first + std::sqrt(2 * std::log(1e5)), 1e-12);
  // 100 entries of 0.01, delta = 1e-7: delta_new = 1e-5, sqrt(S2) = 0.1 <= 1 - e delta_new: the other branch,
  // second = sqrt(2 * 0.01 * ln(e + 0.1 / 1e-5)).
  const std::vector<double> few(100, 0.01);
  EXPECT_NEAR(heterogeneous_composition(few, 1e-7).epsilon,
              first / 100 + std::sqrt(0.02 * std::log(std::numbers::e + 1e4)), 1e-13);
}

TEST(DpComposition, HeterogeneousInvariants) {
  // Empty list: no loss (the code's overwritten delta line is irrelevant).
  EXPECT_EQ(heterogeneous_composition(std::vector<double>{}, 1e-7).epsilon, 0.0);
  EXPECT_EQ(heterogeneous_composition(std::vector<double>{}, 1e-7).delta, 0.0);
  // Equal entries: never worse than C2 with delta' = k delta, and never worse than the sum.
  for (double eps : {0.001, 0.05, 0.5, 2.0})
    for (int k : {1, 10, 1000}) {
      const EpsDelta h = heterogeneous_composition(std::vector<double>(k, eps), 1e-8);
      EXPECT_LE(h.epsilon, advanced_composition(eps, 0, k, k * 1e-8).epsilon * (1 + 1e-12));
      EXPECT_LE(h.epsilon, k * eps * (1 + 1e-12));
      // Kairouz's total delta 1 - (1 - delta)^k (1 - k delta), about 2 k delta.
      EXPECT_NEAR(h.delta, 2 * k * 1e-8, 1e-4 * 2 * k * 1e-8);
    }
  // Streaming sums give the list's answer.
  const std::vector<double> list = {0.1, 0.0, 0.7, 0.02, 0.3};
  HeterogeneousSums sums;
  for (double e : list) sums.add(e);
  EXPECT_DOUBLE_EQ(heterogeneous_composition(sums, 1e-6).epsilon,
                   heterogeneous_composition(list, 1e-6).epsilon);
}

TEST(DpComposition, RdpAddsAtFixedOrder) {
  const RdpCurve a{{1.5, 2, 8}, {0.75, 1, 4}}, b{{1.5, 2, 8}, {0.1, 0.2, INFINITY}};
  const RdpCurve sum = compose_rdp(a, b);
  EXPECT_DOUBLE_EQ(sum.epsilons[0], 0.85);
  EXPECT_DOUBLE_EQ(sum.epsilons[1], 1.2);
  EXPECT_TRUE(std::isinf(sum.epsilons[2]));
  const RdpCurve three = self_compose_rdp(a, 3);
  EXPECT_DOUBLE_EQ(three.epsilons[2], 12.0);
  EXPECT_EQ(self_compose_rdp(b, 0).epsilons[2], 0.0);  // no event, no loss (not 0 * inf)
  expect_invalid([&] { compose_rdp(a, RdpCurve{{1.5, 2}, {0, 0}}); }, "same orders");
}

TEST(DpComposition, BadInput) {
  expect_invalid([] { simple_composition(-0.1, 0, 1); }, "epsilon must be finite and >= 0 (got -0.1)");
  expect_invalid([] { simple_composition(0.1, 1, 1); }, "delta must be in [0, 1) (got 1)");
  expect_invalid([] { advanced_composition(0.1, 0, -1, 1e-5); }, "k must be finite and >= 0 (got -1)");
  expect_invalid([] { advanced_composition(0.1, 0, 1, 0); }, "delta_prime must be in (0, 1) (got 0)");
  expect_invalid([] { optimal_composition(0.1, 0, 1, 1); }, "delta_prime");
  expect_invalid([] { optimal_composition(NAN, 0, 1, 0.5); }, "epsilon");
  expect_invalid([] { heterogeneous_composition({0.1, -1.0}, 1e-5); }, "epsilon");
  expect_invalid([] { heterogeneous_composition({0.1}, 0); }, "delta");
  expect_invalid([] { heterogeneous_composition(std::vector<double>(10, 0.1), 0.2); },
                 "count * delta must be < 1");
  expect_invalid([] { self_compose_rdp(RdpCurve{{2}, {1}}, -2); }, "k");
}

}  // namespace
}  // namespace netdp::dp
