// Concentration bounds (docs/math.md §1.8, CB1 with the `nv_formula` switch, CB2): hand values and Appendix Z
// items 4 / 4b (N_v = 169.5 with the proof formula; 261.8 and 340.6 with the code quirk).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/concentration.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

TEST(DpConcentration, ChernoffHandValue) {
  // T/n = 12, ln(1/delta_hat) = 3: 12 + sqrt(3 * 12 * 3) = 12 + sqrt(108).
  EXPECT_NEAR(chernoff_visit_bound(1200, 100, std::exp(-3.0)), 12 + std::sqrt(108.0), 1e-13);
  // Code quirk: 12 + sqrt(1.5 * 1200 * 3) = 12 + sqrt(5400).
  EXPECT_NEAR(chernoff_visit_bound(1200, 100, std::exp(-3.0), NvFormula::code_quirk), 12 + std::sqrt(5400.0),
              1e-12);
}

TEST(DpConcentration, AppendixZItems4And4b) {
  // T = 100 n, delta_hat = 1e-7: 100 + sqrt(300 ln 1e7) = 169.5 for every n (proof formula).
  for (double n : {10.0, 1e3, 1e6}) EXPECT_NEAR(chernoff_visit_bound(100 * n, n, 1e-7), 169.5, 0.05);
  // Code quirk on the figure's grid: n = 10^(30/29) = 10.8 -> 261.8; n = 10^(40/29) = 24.0 -> 340.6.
  const double n1 = std::pow(10.0, 30.0 / 29), n2 = std::pow(10.0, 40.0 / 29);
  EXPECT_NEAR(chernoff_visit_bound(100 * n1, n1, 1e-7, NvFormula::code_quirk), 261.8, 0.05);
  EXPECT_NEAR(chernoff_visit_bound(100 * n2, n2, 1e-7, NvFormula::code_quirk), 340.6, 0.05);
}

TEST(DpConcentration, ChernoffParameterCondition) {
  // Needs T >= 3 n ln(1/delta_hat): 3 ln(1e7) = 48.4, so T = 100 n is fine and T = 40 n is not.
  EXPECT_TRUE(chernoff_visit_bound_valid(100 * 50, 50, 1e-7));
  EXPECT_FALSE(chernoff_visit_bound_valid(40 * 50, 50, 1e-7));
  // n = 10, ln(1/delta_hat) = 2: the threshold is T = 60.
  EXPECT_TRUE(chernoff_visit_bound_valid(60.001, 10, std::exp(-2.0)));
  EXPECT_FALSE(chernoff_visit_bound_valid(59.999, 10, std::exp(-2.0)));
}

TEST(DpConcentration, SpottedContributionsHandValue) {
  // N_u = 50, n = 100, delta_tilde = e^-3: 2 * 50/100 + sqrt(6 * 0.5 * 3) = 1 + 3 = 4.
  EXPECT_NEAR(spotted_contributions(50, 100, std::exp(-3.0)), 4.0, 1e-14);
  EXPECT_EQ(spotted_contributions(0, 100, 0.1), 0.0);
}

TEST(DpConcentration, ParseAndBadInput) {
  EXPECT_EQ(parse_nv_formula("proof"), NvFormula::proof);
  EXPECT_EQ(parse_nv_formula("code"), NvFormula::code_quirk);
  EXPECT_EQ(parse_nv_formula("code_quirk"), NvFormula::code_quirk);
  EXPECT_EQ(to_string(NvFormula::code_quirk), "code_quirk");
  expect_invalid([] { parse_nv_formula("thesis"); }, "thesis");
  expect_invalid([] { chernoff_visit_bound(-1, 10, 0.1); }, "steps must be finite and >= 0 (got -1)");
  expect_invalid([] { chernoff_visit_bound(10, 0.5, 0.1); }, "n must be finite and >= 1 (got 0.5)");
  expect_invalid([] { chernoff_visit_bound(10, 10, 0); }, "delta_hat must be in (0, 1) (got 0)");
  expect_invalid([] { chernoff_visit_bound_valid(10, 10, 1); }, "delta_hat");
  expect_invalid([] { spotted_contributions(-1, 10, 0.1); }, "contributions");
  expect_invalid([] { spotted_contributions(1, 10, 1.5); }, "delta_tilde");
}

}  // namespace
}  // namespace netdp::dp
