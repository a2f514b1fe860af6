// RDP -> (eps, delta) (docs/math.md §1.4 C6 and the improved conversion): hand values, monotonicity, improved
// <= classic, inverses, the linear-curve closed form against a grid, and the edge-of-grid warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/dp/conversion.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

RdpCurve linear_curve(double slope, const std::vector<double>& orders) {
  RdpCurve c{orders, {}};
  for (double a : orders) c.epsilons.push_back(slope * a);
  return c;
}

TEST(DpConversion, SingleOrderHandValues) {
  // rdp = 1, alpha = 2, delta = e^-3: classic 1 + 3 = 4; improved 1 + ln(1/2) - (-3 + ln 2) = 4 - 2 ln 2.
  const double delta = std::exp(-3.0);
  EXPECT_NEAR(rdp_to_epsilon(1, 2, delta, RdpConversion::classic), 4.0, 1e-14);
  EXPECT_NEAR(rdp_to_epsilon(1, 2, delta, RdpConversion::improved), 4 - 2 * std::log(2.0), 1e-14);
  // Inverses at the same point.
  EXPECT_NEAR(rdp_to_delta(1, 2, 4.0, RdpConversion::classic), delta, 1e-16);
  EXPECT_NEAR(rdp_to_delta(1, 2, 4 - 2 * std::log(2.0), RdpConversion::improved), delta, 1e-15);
}

TEST(DpConversion, ImprovedNeverExceedsClassicAndBothAreMonotone) {
  for (double alpha : {1.01, 1.5, 2.0, 8.0, 100.0})
    for (double rdp : {0.0, 0.01, 1.0, 30.0}) {
      double previous_classic = INFINITY, previous_improved = INFINITY;
      for (double delta : {1e-15, 1e-9, 1e-5, 1e-2, 0.5}) {
        const double c = rdp_to_epsilon(rdp, alpha, delta, RdpConversion::classic);
        const double i = rdp_to_epsilon(rdp, alpha, delta, RdpConversion::improved);
        EXPECT_LE(i, c);
        EXPECT_GE(i, 0.0);
        EXPECT_LT(c, previous_classic);  // larger delta, smaller epsilon
        EXPECT_LE(i, previous_improved);
        previous_classic = c, previous_improved = i;
      }
      EXPECT_LT(rdp_to_epsilon(rdp, alpha, 1e-6, RdpConversion::classic),
                rdp_to_epsilon(rdp + 0.1, alpha, 1e-6, RdpConversion::classic));
    }
}

TEST(DpConversion, InversesRoundTripPerOrder) {
  for (auto method : {RdpConversion::classic, RdpConversion::improved})
    for (double alpha : {1.25, 3.0, 64.0})
      for (double delta : {1e-10, 1e-5, 1e-3}) {
        const double eps = rdp_to_epsilon(2.0, alpha, delta, method);
        EXPECT_NEAR(rdp_to_delta(2.0, alpha, eps, method), delta, 1e-10 * delta);
      }
}

TEST(DpConversion, DefaultGrid) {
  const std::vector<double> g = default_rdp_orders();
  EXPECT_EQ(g.size(), 73u);
  EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
  EXPECT_EQ(g.front(), 1.25);
  EXPECT_EQ(g.back(), 512.0);
  for (double a : {1.5, 1.75, 2.0, 2.5, 3.0, 4.5, 5.0, 64.0, 128.0, 256.0})
    EXPECT_NE(std::find(g.begin(), g.end(), a), g.end()) << a;
}

TEST(DpConversion, CurveOptimumRoundTripsBetweenEpsilonAndDelta) {
  const RdpCurve c = linear_curve(0.05, default_rdp_orders());
  for (auto method : {RdpConversion::classic, RdpConversion::improved}) {
    const RdpOptimum e = rdp_curve_to_epsilon(c, 1e-6, method);
    EXPECT_FALSE(e.at_grid_edge);
    EXPECT_TRUE(e.warning.empty());
    const RdpOptimum d = rdp_curve_to_delta(c, e.value, method);
    EXPECT_NEAR(d.value, 1e-6, 1e-12);
    EXPECT_EQ(d.order, e.order);
  }
}

TEST(DpConversion, LinearClosedFormMatchesAFineGrid) {
  // eps(alpha) = a alpha: alpha* = 1 + sqrt(ln(1/delta)/a), eps = a + 2 sqrt(a ln(1/delta)).
  const double a = 0.01, delta = 1e-6, log_inv = std::log(1e6);
  const LinearRdpOptimum closed = linear_rdp_to_epsilon(a, delta);
  EXPECT_NEAR(closed.order, 1 + std::sqrt(log_inv / a), 1e-12);
  EXPECT_NEAR(closed.epsilon, a + 2 * std::sqrt(a * log_inv), 1e-12);
  EXPECT_FALSE(closed.capped);
  std::vector<double> fine;
  for (double x = 1.001; x < 200; x *= 1.0005) fine.push_back(x);
  const RdpOptimum grid = rdp_curve_to_epsilon(linear_curve(a, fine), delta, RdpConversion::classic);
  EXPECT_GE(grid.value, closed.epsilon * (1 - 1e-14));
  EXPECT_NEAR(grid.value, closed.epsilon, 1e-6 * closed.epsilon);
  EXPECT_NEAR(grid.order, closed.order, 0.05);
  // With alpha_max = 5 binding: eps = 5a + ln(1/delta)/4, the grid optimum over orders <= 5.
  const LinearRdpOptimum capped = linear_rdp_to_epsilon(a, delta, 5);
  EXPECT_TRUE(capped.capped);
  EXPECT_EQ(capped.order, 5.0);
  EXPECT_NEAR(capped.epsilon, 5 * a + log_inv / 4, 1e-14);
  const RdpOptimum below =
      rdp_curve_to_epsilon(linear_curve(a, {1.5, 2, 3, 4, 5}), delta, RdpConversion::classic);
  EXPECT_NEAR(below.value, capped.epsilon, 1e-14);
  // A flat curve (slope 0) needs the cap to say anything.
  EXPECT_EQ(linear_rdp_to_epsilon(0, delta).epsilon, 0.0);
  EXPECT_NEAR(linear_rdp_to_epsilon(0, delta, 11).epsilon, log_inv / 10, 1e-14);
}

TEST(DpConversion, EdgeOfGridWarning) {
  const std::vector<double> g = default_rdp_orders();
  const RdpOptimum low = rdp_curve_to_epsilon(linear_curve(1000, g), 1e-5);
  EXPECT_TRUE(low.at_grid_edge);
  EXPECT_EQ(low.order, 1.25);
  EXPECT_NE(low.warning.find("smallest"), std::string::npos) << low.warning;
  const RdpOptimum high = rdp_curve_to_epsilon(linear_curve(1e-9, g), 1e-5);
  EXPECT_TRUE(high.at_grid_edge);
  EXPECT_EQ(high.order, 512.0);
  EXPECT_NE(high.warning.find("largest"), std::string::npos) << high.warning;
  const RdpOptimum d = rdp_curve_to_delta(linear_curve(1e-9, g), 1.0);
  EXPECT_TRUE(d.at_grid_edge);
  // Orders without a bound (+inf) do not count as the edge.
  RdpCurve c = linear_curve(1e-9, {2, 4, 8, 16});
  c.epsilons[3] = INFINITY;
  const RdpOptimum inner = rdp_curve_to_epsilon(c, 1e-5);
  EXPECT_EQ(inner.order, 8.0);
  EXPECT_TRUE(inner.at_grid_edge);
}

TEST(DpConversion, BadInput) {
  expect_invalid([] { rdp_to_epsilon(1, 1, 1e-5); }, "alpha must be > 1 (got 1)");
  expect_invalid([] { rdp_to_epsilon(1, 0.5, 1e-5); }, "alpha");
  expect_invalid([] { rdp_to_epsilon(1, 2, 0); }, "delta must be in (0, 1) (got 0)");
  expect_invalid([] { rdp_to_epsilon(1, 2, 1); }, "delta");
  expect_invalid([] { rdp_to_epsilon(-1, 2, 0.1); }, "rdp must be >= 0 (got -1)");
  expect_invalid([] { rdp_to_delta(1, 2, -1); }, "epsilon must be >= 0 (got -1)");
  expect_invalid([] { rdp_curve_to_epsilon(RdpCurve{{2, 3}, {1}}, 1e-5); }, "as many values as orders");
  expect_invalid(
      [] {
        rdp_curve_to_epsilon(RdpCurve{{2, 0.9}, {1, 1}}, 1e-5);
      },
      "alpha must be > 1 (got 0.9)");
  expect_invalid([] { rdp_curve_to_epsilon(RdpCurve{{2}, {INFINITY}}, 1e-5); }, "infinite at every order");
  expect_invalid([] { linear_rdp_to_epsilon(-1, 1e-5); }, "slope");
  expect_invalid([] { linear_rdp_to_epsilon(1, 1e-5, 1); }, "alpha_max must be > 1 (got 1)");
  expect_invalid([] { parse_rdp_conversion("tight"); }, "tight");
  EXPECT_EQ(parse_rdp_conversion("classic"), RdpConversion::classic);
  EXPECT_EQ(to_string(parse_rdp_conversion("improved")), "improved");
}

}  // namespace
}  // namespace netdp::dp
