#include "netdp/dp/calibration.hpp"

#include <cmath>

#include "checks.hpp"
#include "netdp/dp/gaussian.hpp"

namespace netdp::dp {
using namespace detail;

double calibrate_sigma(const std::function<double(double sigma)>& epsilon_of_sigma, double target,
                       const CalibrationOptions& options) {
  const char* f = "calibrate_sigma";
  require_finite_nonnegative(f, "target", target);
  require(options.relative_tolerance > 0 && options.relative_tolerance < 1, f, "relative_tolerance",
          options.relative_tolerance, "in (0, 1)");
  require_positive(f, "min_sigma", options.min_sigma);
  require(options.initial_sigma >= options.min_sigma && options.initial_sigma <= options.max_sigma, f,
          "initial_sigma", options.initial_sigma, "in [min_sigma, max_sigma]");
  auto meets = [&](double sigma) {
    const double eps = epsilon_of_sigma(sigma);
    if (std::isnan(eps))
      throw InvalidInput(std::string(f) +
                         ": epsilon_of_sigma returned NaN at sigma = " + format_double(sigma));
    return eps <= target;
  };
  double lo = options.initial_sigma, hi = options.initial_sigma;
  if (meets(hi)) {
    do {
      hi = lo;
      lo = hi / 2;
      if (lo < options.min_sigma) return hi;  // every sigma down to min_sigma meets the target
    } while (meets(lo));
  } else {
    do {
      lo = hi;
      hi = lo * 2;
      if (hi > options.max_sigma)
        throw InvalidInput(std::string(f) + ": target " + format_double(target) +
                           " is not reached for sigma up to " + format_double(options.max_sigma));
    } while (!meets(hi));
  }
  // Invariant: meets(hi) and !meets(lo).
  while (hi - lo > options.relative_tolerance * hi) {
    const double mid = 0.5 * (lo + hi);
    (meets(mid) ? hi : lo) = mid;
  }
  return hi;
}

double gaussian_sigma_exact(double epsilon, double delta, double sensitivity,
                            const CalibrationOptions& options) {
  const char* f = "gaussian_sigma_exact";
  require_positive(f, "epsilon", epsilon);
  require_open_unit(f, "delta", delta);
  require_positive(f, "sensitivity", sensitivity);
  return calibrate_sigma([&](double s) { return gdp_delta(sensitivity / s, epsilon); }, delta, options);
}

}  // namespace netdp::dp
