// Events and accountants: RDP of k-fold Gaussian = k alpha/(2 sigma^2), GDP composition = sqrt(sum mu^2),
// RDP epsilon >= exact GDP epsilon and close for many folds, Appendix Z item 7 through the GDP accountant,
// SS3 events, Laplace events, the edge-of-grid warning, and unsupported events / bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/dp/accountant.hpp"
#include "netdp/dp/gaussian.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

TEST(DpAccountant, KFoldGaussianRdpCurve) {
  RdpAccountant acc;
  acc.compose(GaussianEvent{2.0}, 7);
  const RdpCurve& c = acc.curve();
  ASSERT_EQ(c.orders.size(), default_rdp_orders().size());
  for (std::size_t i = 0; i < c.orders.size(); ++i) EXPECT_NEAR(c.epsilons[i], 7 * c.orders[i] / 8, 1e-12);
}

TEST(DpAccountant, EventFormsAgree) {
  const std::vector<double> orders = {1.5, 2, 4, 16};
  RdpAccountant a(orders), b(orders), c(orders);
  a.compose(GaussianEvent{1.5}, 10).compose(GaussianEvent{3.0});
  b.compose(SelfComposedEvent(GaussianEvent{1.5}, 10)).compose(GaussianEvent{3.0});
  ComposedEvent all;
  for (int i = 0; i < 10; ++i) all.events.push_back(GaussianEvent{1.5});
  all.events.push_back(GaussianEvent{3.0});
  c.compose(all);
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double expected = orders[i] * (10 / (2 * 2.25) + 1 / (2 * 9.0));
    EXPECT_NEAR(a.curve().epsilons[i], expected, 1e-12);
    EXPECT_NEAR(b.curve().epsilons[i], expected, 1e-12);
    EXPECT_NEAR(c.curve().epsilons[i], expected, 1e-12);
  }
  EXPECT_EQ(event_name(all), "ComposedEvent");
  EXPECT_EQ(event_name(SelfComposedEvent(GaussianEvent{1}, 2)), "SelfComposedEvent");
}

TEST(DpAccountant, GdpComposesInQuadrature) {
  GdpAccountant acc;
  acc.compose(GaussianEvent{1.0}).compose(GaussianEvent{2.0});
  EXPECT_NEAR(acc.mu(), std::sqrt(1.25), 1e-15);
  acc.compose(SelfComposedEvent(ComposedEvent{{GaussianEvent{2.0}, GaussianEvent{2.0}}}, 3), 2);
  EXPECT_NEAR(acc.mu(), std::sqrt(1.25 + 12 * 0.25), 1e-15);
  GdpAccountant empty;
  EXPECT_EQ(empty.get_epsilon(1e-5), 0.0);
  EXPECT_EQ(empty.get_delta(0.0), 0.0);
}

TEST(DpAccountant, GdpAppendixZItem7) {
  const double mus[] = {0.1, 0.5, 1, 2, 5, 10};
  const double expected[] = {0.3969, 2.2541, 4.8866, 10.997, 35.566, 96.717};
  const double digits[] = {5e-5, 5e-5, 5e-5, 5e-4, 5e-4, 5e-4};
  for (int i = 0; i < 6; ++i) {
    // mu = sqrt(k)/sigma: k = 25 mechanisms with sigma = 5/mu.
    GdpAccountant acc;
    acc.compose(GaussianEvent{5 / mus[i]}, 25);
    EXPECT_NEAR(acc.get_epsilon(1e-6), expected[i], digits[i]) << mus[i];
    EXPECT_NEAR(acc.get_delta(acc.get_epsilon(1e-6)), 1e-6, 1e-14);
  }
}

TEST(DpAccountant, RdpUpperBoundsExactGdpAndIsCloseForManyFolds) {
  for (int k : {1, 10, 100, 400}) {
    RdpAccountant rdp;
    GdpAccountant gdp;
    rdp.compose(GaussianEvent{1.0}, k);
    gdp.compose(GaussianEvent{1.0}, k);
    for (double delta : {1e-5, 1e-6}) {
      const double exact = gdp.get_epsilon(delta), bound = rdp.get_epsilon(delta);
      EXPECT_GE(bound, exact) << k;
      if (k >= 100) {
        EXPECT_LE(bound, 1.05 * exact) << k;  // "within a few percent" for large k
      }
      EXPECT_GE(rdp.get_delta(exact), delta * (1 - 1e-12));  // the same statement from the delta side
    }
  }
}

TEST(DpAccountant, RdpEpsilonAndDeltaRoundTrip) {
  RdpAccountant acc;
  acc.compose(GaussianEvent{3.0}, 50);
  const RdpOptimum e = acc.epsilon_report(1e-6);
  EXPECT_FALSE(e.at_grid_edge);
  const RdpOptimum d = acc.delta_report(e.value);
  EXPECT_NEAR(d.value, 1e-6, 1e-12);
  EXPECT_EQ(d.order, e.order);
  // The classic conversion is never better.
  RdpAccountant classic(default_rdp_orders(), RdpConversion::classic);
  classic.compose(GaussianEvent{3.0}, 50);
  EXPECT_GT(classic.get_epsilon(1e-6), e.value);
}

TEST(DpAccountant, EdgeOfGridWarning) {
  RdpAccountant strong;  // huge loss: the best order is the smallest one
  strong.compose(GaussianEvent{0.05}, 1000);
  const RdpOptimum low = strong.epsilon_report(1e-5);
  EXPECT_TRUE(low.at_grid_edge);
  EXPECT_EQ(low.order, 1.25);
  EXPECT_NE(low.warning.find("smallest"), std::string::npos);
  RdpAccountant weak;  // tiny loss: the best order is the largest one
  weak.compose(GaussianEvent{1000.0});
  const RdpOptimum high = weak.epsilon_report(1e-5);
  EXPECT_TRUE(high.at_grid_edge);
  EXPECT_EQ(high.order, 512.0);
  EXPECT_NE(high.warning.find("largest"), std::string::npos);
}

TEST(DpAccountant, PoissonSampledGaussianUsesTheClosedFormWhereValid) {
  const std::vector<double> orders = {2, 8, 16, 64};
  RdpAccountant acc(orders);
  acc.compose(PoissonSampledGaussianEvent{0.01, 4, SubsampledBound::mironov_talwar_zhang}, 3);
  // q = 0.01, sigma = 4: orders 2 and 8 satisfy both MTZ conditions, 16 and 64 do not (bound 2 = 13.5).
  EXPECT_NEAR(acc.curve().epsilons[0], 3 * 2 * 2 * 1e-4 / 16, 1e-18);
  EXPECT_NEAR(acc.curve().epsilons[1], 3 * 2 * 8 * 1e-4 / 16, 1e-18);
  EXPECT_TRUE(std::isinf(acc.curve().epsilons[2]));
  EXPECT_TRUE(std::isinf(acc.curve().epsilons[3]));
  EXPECT_EQ(acc.epsilon_report(1e-5).order, 8.0);  // the largest valid order, flagged as the edge
  EXPECT_TRUE(acc.epsilon_report(1e-5).at_grid_edge);
  RdpAccountant thm(orders);
  thm.compose(PoissonSampledGaussianEvent{0.1, 5, SubsampledBound::thm_3_10});
  EXPECT_NEAR(thm.curve().epsilons[3], 6 * 64 * 0.01 / 25, 1e-15);
  // sigma < 4: no order is valid.
  expect_invalid([] { RdpAccountant().compose(PoissonSampledGaussianEvent{0.01, 1}); }, "sigma must be >= 4");
}

TEST(DpAccountant, UnsupportedEventsAndBadInput) {
  expect_invalid(
      [] {
        GdpAccountant().compose(PoissonSampledGaussianEvent{0.01, 5});
      },
      "PoissonSampledGaussianEvent is not supported");
  expect_invalid(
      [] {
        GdpAccountant().compose(ComposedEvent{{GaussianEvent{1}, PoissonSampledGaussianEvent{0.1, 5}}});
      },
      "PoissonSampledGaussianEvent");
  expect_invalid([] { RdpAccountant().compose(GaussianEvent{0}); }, "noise_multiplier must be > 0 (got 0)");
  expect_invalid([] { GdpAccountant().compose(GaussianEvent{-1}); }, "noise_multiplier");
  expect_invalid([] { RdpAccountant().compose(GaussianEvent{1}, -1); }, "count must be >= 0 (got -1)");
  expect_invalid([] { RdpAccountant().compose(SelfComposedEvent(GaussianEvent{1}, -3)); }, "count");
  expect_invalid([] { GdpAccountant().compose(GaussianEvent{1}, -2); }, "count");
  expect_invalid([] { RdpAccountant(std::vector<double>{}); }, "order grid is empty");
  expect_invalid([] { RdpAccountant(std::vector<double>{2, 1}); }, "order must be > 1 (got 1)");
  expect_invalid([] { RdpAccountant().get_epsilon(0); }, "delta");
  expect_invalid([] { RdpAccountant().get_delta(-1); }, "epsilon");
  expect_invalid([] { GdpAccountant().get_epsilon(1); }, "delta");
  expect_invalid([] { GdpAccountant().get_delta(-1); }, "epsilon");
}

TEST(DpAccountant, LaplaceEventHasItsExactRdpAndNoGdpForm) {
  RdpAccountant acc({2, 8});
  acc.compose(LaplaceEvent{0.5}, 3);
  // Order 2, b = 1/2, by hand: ln(2/3 e^2 + 1/3 e^-4); three events add.
  EXPECT_NEAR(acc.curve().epsilons[0], 3 * std::log(2.0 / 3 * std::exp(2.0) + std::exp(-4.0) / 3), 1e-13);
  EXPECT_LT(acc.curve().epsilons[1], 3 * 2.0);  // below the pure-DP level 3/b at every order
  EXPECT_EQ(event_name(LaplaceEvent{1}), "LaplaceEvent");
  expect_invalid([] { GdpAccountant().compose(LaplaceEvent{1}); }, "LaplaceEvent is not supported");
  expect_invalid([] { RdpAccountant().compose(LaplaceEvent{0}); }, "noise_multiplier must be > 0");
}

}  // namespace
}  // namespace netdp::dp
