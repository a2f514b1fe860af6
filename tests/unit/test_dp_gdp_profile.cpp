// The exact Gaussian privacy profile in log space and its inverse (docs/math.md §1.2, G3/G4) against
// tests/data/gdp_reference.csv, high-precision values written by tests/data/gdp_reference.py with mpmath
// (150 digits), plus monotonicity, the edges of the range and the composition of Gaussian views.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "netdp/dp/gaussian.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

struct Row {
  std::string kind;  // log_delta (x = eps) or epsilon (x = delta)
  double mu, x, value;
};

std::vector<Row> reference() {
  std::ifstream in(testing::source_path("tests/data/gdp_reference.csv"));
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    Row r;
    fields >> r.kind >> r.mu >> r.x >> r.value;
    rows.push_back(r);
  }
  return rows;
}

const double kLogTiny = std::log(1e-300);

std::string scientific(double x) {
  std::ostringstream out;
  out << std::scientific << std::setprecision(2) << x;
  return out.str();
}

TEST(DpGdpProfile, LogDeltaMatchesMpmath) {
  const auto rows = reference();
  int checked = 0, in_range = 0;
  double worst = 0;  // relative error of delta where delta is in [1e-300, 0.1]
  for (const Row& r : rows) {
    if (r.kind != "log_delta") continue;
    ++checked;
    const double got = gdp_log_delta(r.mu, r.x);
    if (r.value >= kLogTiny) {
      // |error of ln delta| is the relative error of delta.
      EXPECT_NEAR(got, r.value, 1e-12) << "mu " << r.mu << " eps " << r.x;
      if (r.value <= std::log(0.1)) {
        worst = std::max(worst, std::fabs(got - r.value));
        ++in_range;
      }
      EXPECT_NEAR(gdp_delta(r.mu, r.x), std::exp(r.value), 1e-12 * std::exp(r.value));
    } else {  // below 1e-300 (down to ln delta = -5e13 at eps = 1e4, mu = 1e-3): relative on ln delta
      EXPECT_NEAR(got, r.value, 1e-14 * std::fabs(r.value)) << "mu " << r.mu << " eps " << r.x;
    }
  }
  // The grid, 18 points either side of where the formula changes, and the 248 nonzero roots of the epsilon
  // rows.
  EXPECT_EQ(checked, 15 * 16 + 18 + 248);
  EXPECT_GT(in_range, 300);
  RecordProperty("max_relative_error_delta", scientific(worst));
  EXPECT_LT(worst, 2e-13);  // ln delta to within about an ulp of 690
}

TEST(DpGdpProfile, EpsilonMatchesMpmath) {
  const auto rows = reference();
  int checked = 0, zeros = 0;
  double worst = 0;
  for (const Row& r : rows) {
    if (r.kind != "epsilon") continue;
    ++checked;
    const GdpEpsilon b = gdp_epsilon_bracket(r.mu, std::log(r.x));
    EXPECT_EQ(gdp_epsilon(r.mu, r.x), b.upper);
    EXPECT_GE(b.lower, 0.0);
    EXPECT_LE(b.lower, b.upper);
    if (r.value == 0) {  // delta >= delta(0): eps = 0 exactly
      ++zeros;
      EXPECT_EQ(b.upper, 0.0) << "mu " << r.mu << " delta " << r.x;
      continue;
    }
    EXPECT_NEAR(b.upper, r.value, 1e-12 * r.value) << "mu " << r.mu << " delta " << r.x;
    EXPECT_LE(b.upper - b.lower, 4e-16 * b.upper);  // a bracket of adjacent doubles
    worst = std::max(worst, std::fabs(b.upper - r.value) / r.value);
  }
  EXPECT_EQ(checked, 15 * 18);
  EXPECT_GT(zeros, 0);  // mu = 1e-3: delta(0) = 4e-4, so delta >= 1e-3 needs no epsilon
  RecordProperty("max_relative_error_epsilon", scientific(worst));
  EXPECT_LT(worst, 1e-14);
}

TEST(DpGdpProfile, EdgesOfTheRange) {
  // mu = 1e-3 at delta = 1e-300 and mu = 50 at delta = 0.1 (the table's corners) meet delta by the bracket.
  for (auto [mu, delta] : {std::pair{1e-3, 1e-300}, {50.0, 0.1}, {50.0, 1e-300}, {1e-3, 1e-5}}) {
    const GdpEpsilon b = gdp_epsilon_bracket(mu, std::log(delta));
    EXPECT_LE(gdp_log_delta(mu, b.upper), std::log(delta));
    EXPECT_GT(gdp_log_delta(mu, b.lower), std::log(delta));
  }
  // delta below the smallest double: ln delta = -1e4 still has an epsilon, and it inverts.
  const double eps = gdp_epsilon_of_log_delta(2.0, -1e4);
  EXPECT_TRUE(std::isfinite(eps));
  EXPECT_NEAR(gdp_log_delta(2.0, eps), -1e4, 1e-10);
  // eps = 1e4: delta underflows as a double, ln delta does not; both are reported, neither is NaN.
  EXPECT_EQ(gdp_delta(1.0, 1e4), 0.0);
  EXPECT_LT(gdp_log_delta(1.0, 1e4), -4e7);
  EXPECT_EQ(gdp_log_delta(1.0, INFINITY), -INFINITY);
  EXPECT_EQ(gdp_log_delta(1e-3, 1e308), -INFINITY);   // eps/mu overflows: -inf, not NaN
  EXPECT_EQ(gdp_log_delta(1e-160, 1e-3), -INFINITY);  // x = 1e157: ln delta < -5e313
  EXPECT_EQ(gdp_log_delta(1e157, 1e308), 0.0);        // x = -5e156: delta = 1
  // x = 1e147: ln delta = -x^2/2 - ln x - ln sqrt(2 pi) (the Mills ratio is 1/x to 1e-294).
  EXPECT_NEAR(gdp_log_delta(1e-150, 1e-3), -5e293, 1e-14 * 5e293);
  EXPECT_EQ(gdp_epsilon_of_log_delta(1.0, -INFINITY), INFINITY);
}

TEST(DpGdpProfile, MonotoneAndNeverNegative) {
  for (double mu : {1e-3, 0.03, 1.0, 7.0, 50.0}) {
    double previous = INFINITY;
    for (double log_delta = std::log(1e-300); log_delta < std::log(0.5); log_delta += 0.37) {
      const double eps = gdp_epsilon_of_log_delta(mu, log_delta);
      EXPECT_GE(eps, 0.0);
      EXPECT_LE(eps, previous) << mu << " " << log_delta;  // a larger delta never costs more epsilon
      previous = eps;
    }
    previous = 1;
    for (double eps = 0; eps <= 1e4; eps = eps < 1e-3 ? eps + 1e-4 : eps * 1.07) {
      const double log_delta = gdp_log_delta(mu, eps);
      EXPECT_LE(log_delta, previous) << mu << " " << eps;
      EXPECT_LE(log_delta, 0.0);
      previous = log_delta;
    }
  }
}

TEST(DpGdpProfile, ComposedGaussianViewsAddMuSquared) {
  EXPECT_DOUBLE_EQ(gdp_compose(3, 4), 5);
  EXPECT_EQ(gdp_compose(0, 0.7), 0.7);
  EXPECT_EQ(gdp_compose(INFINITY, 1), INFINITY);
  // k identical views: the composed profile is that of sqrt(k) mu.
  double mu = 0;
  for (int k = 0; k < 9; ++k) mu = gdp_compose(mu, 0.5);
  EXPECT_NEAR(mu, 1.5, 1e-15);
  EXPECT_NEAR(gdp_epsilon(mu, 1e-6), gdp_epsilon(1.5, 1e-6), 1e-14 * gdp_epsilon(1.5, 1e-6));
  testing::expect_invalid([] { gdp_compose(-1, 1); }, "mu must be >= 0");
  testing::expect_invalid([] { gdp_epsilon_bracket(1, 0.0); }, "log_delta must be < 0");
}

}  // namespace
}  // namespace netdp::dp
