#include "netdp/dp/gaussian.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

double log_normal_cdf(double x) {
  if (x > 5) return std::log1p(-0.5 * std::erfc(x / std::numbers::sqrt2));
  if (x >= -35) return std::log(0.5 * std::erfc(-x / std::numbers::sqrt2));
  // Phi(x) = phi(x)/|x| (1 - 1/x^2 + 3/x^4 - ...): at |x| >= 35 six terms are exact to double precision.
  const double r = 1 / (x * x);
  const double series = 1 - r * (1 - 3 * r * (1 - 5 * r * (1 - 7 * r * (1 - 9 * r))));
  return -0.5 * x * x - std::log(-x) - 0.5 * std::log(2 * std::numbers::pi) + std::log(series);
}

double gaussian_rdp(double alpha, double noise_multiplier) {
  require_order("gaussian_rdp", alpha);
  require_positive("gaussian_rdp", "noise_multiplier", noise_multiplier);
  return alpha / (2 * noise_multiplier * noise_multiplier);
}

double gaussian_sigma_classic(double epsilon, double delta, double sensitivity) {
  const char* f = "gaussian_sigma_classic";
  require_positive(f, "epsilon", epsilon);
  require_open_unit(f, "delta", delta);
  require_positive(f, "sensitivity", sensitivity);
  return sensitivity * std::sqrt(2 * std::log(1.25 / delta)) / epsilon;
}

double gdp_rdp(double alpha, double mu) {
  require_order("gdp_rdp", alpha);
  require_nonnegative("gdp_rdp", "mu", mu);
  return alpha * mu * mu / 2;
}

double aggregated_gaussian_epsilon(double epsilon, double m) {
  require_nonnegative("aggregated_gaussian_epsilon", "epsilon", epsilon);
  require(m >= 1, "aggregated_gaussian_epsilon", "m", m, ">= 1");
  return epsilon / std::sqrt(m);
}

namespace {
void check_linf(const char* f, double sigma_abs, double coordinates, double beta) {
  require_positive(f, "sigma_abs", sigma_abs);
  require(coordinates >= 1, f, "coordinates", coordinates, ">= 1");
  require_open_unit(f, "beta", beta);
}
}  // namespace

double gaussian_linf_error_s4(double sigma_abs, double coordinates, double beta) {
  check_linf("gaussian_linf_error_s4", sigma_abs, coordinates, beta);
  return sigma_abs * std::sqrt(std::log(coordinates / beta));
}

double gaussian_linf_error_union(double sigma_abs, double coordinates, double beta) {
  check_linf("gaussian_linf_error_union", sigma_abs, coordinates, beta);
  return sigma_abs * std::sqrt(2 * std::log(2 * coordinates / beta));
}

}  // namespace netdp::dp
