// Noise calibration by bisection: round trips (the calibrated sigma meets the target, sigma (1 - 1e-6) does
// not), known inverses, the exact Gaussian calibration against the classic one (Appendix Z item 8), and
// failures.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/dp/accountant.hpp"
#include "netdp/dp/calibration.hpp"
#include "netdp/dp/gaussian.hpp"
#include "support/test_support.hpp"

namespace netdp::dp {
namespace {

using testing::expect_invalid;

// The round-trip property every calibration must have.
void expect_threshold(const std::function<double(double)>& f, double target, double sigma) {
  EXPECT_LE(f(sigma), target) << sigma;
  EXPECT_GT(f(sigma * (1 - 1e-6)), target) << sigma;
}

TEST(DpCalibration, KnownInverseFromBelowAndAbove) {
  const auto f = [](double s) { return 3 / s; };  // eps(sigma) = 3/sigma: sigma = 3/target
  for (double initial : {1e-3, 1.0, 1e3}) {
    CalibrationOptions o;
    o.initial_sigma = initial;
    const double s = calibrate_sigma(f, 1.5, o);
    EXPECT_NEAR(s, 2.0, 2e-9 * 2);
    EXPECT_GE(s, 2.0);  // the side that meets the target
    expect_threshold(f, 1.5, s);
  }
}

TEST(DpCalibration, InfinityMeansNoBound) {
  // A closed form that holds only for sigma >= 4 (e.g. SS3): below, the caller returns +inf.
  const auto f = [](double s) { return s < 4 ? INFINITY : 10 / s; };
  EXPECT_NEAR(calibrate_sigma(f, 5), 4.0, 4e-9);
  EXPECT_NEAR(calibrate_sigma(f, 1), 10.0, 1e-8);
}

TEST(DpCalibration, GaussianExactVersusClassic) {
  // Appendix Z item 8 is the classic G2 value 4.8448; the exact profile needs less noise (about 3.73).
  const double classic = gaussian_sigma_classic(1, 1e-5);
  EXPECT_NEAR(classic, 4.8448, 5e-5);
  const double exact = gaussian_sigma_exact(1, 1e-5);
  EXPECT_LT(exact, classic);
  EXPECT_GT(exact, 3.5);
  expect_threshold([](double s) { return gdp_delta(1 / s, 1); }, 1e-5, exact);
  EXPECT_NEAR(gaussian_sigma_exact(1, 1e-5, 2.5), 2.5 * exact, 1e-8 * exact);  // s scales with Delta
}

TEST(DpCalibration, KFoldGaussianEqualsOneGaussianWithSqrtKLessNoise) {
  // k Gaussian mechanisms with multiplier sigma compose to sqrt(k)/sigma-GDP, one mechanism with
  // sigma/sqrt(k).
  const int k = 100;
  const double target = 2, delta = 1e-6;
  const auto eps_of_sigma = [&](double s) {
    GdpAccountant acc;
    acc.compose(GaussianEvent{s}, k);
    return acc.get_epsilon(delta);
  };
  const double sigma = calibrate_sigma(eps_of_sigma, target);
  expect_threshold(eps_of_sigma, target, sigma);
  EXPECT_NEAR(sigma, std::sqrt(double(k)) * gaussian_sigma_exact(target, delta), 1e-7 * sigma);
}

TEST(DpCalibration, RdpAccountantRoundTrip) {
  const auto eps_of_sigma = [](double s) {
    RdpAccountant acc;
    acc.compose(GaussianEvent{s}, 1000);
    return acc.get_epsilon(1e-5);
  };
  const double sigma = calibrate_sigma(eps_of_sigma, 3.0);
  expect_threshold(eps_of_sigma, 3.0, sigma);
}

TEST(DpCalibration, Failures) {
  expect_invalid([] { calibrate_sigma([](double s) { return 1 + 1 / s; }, 0.5); }, "is not reached");
  expect_invalid([] { calibrate_sigma([](double) { return NAN; }, 0.5); }, "returned NaN");
  CalibrationOptions bad;
  bad.relative_tolerance = 0;
  expect_invalid([&] { calibrate_sigma([](double s) { return 1 / s; }, 0.5, bad); }, "relative_tolerance");
  expect_invalid([] { calibrate_sigma([](double s) { return 1 / s; }, -1); },
                 "target must be finite and >= 0");
  expect_invalid([] { gaussian_sigma_exact(0, 1e-5); }, "epsilon must be > 0 (got 0)");
  expect_invalid([] { gaussian_sigma_exact(1, 0); }, "delta");
  // Every sigma meets a target that does not depend on sigma: the search stops at min_sigma.
  EXPECT_LE(calibrate_sigma([](double) { return 0.0; }, 1), 2e-12);
}

}  // namespace
}  // namespace netdp::dp
