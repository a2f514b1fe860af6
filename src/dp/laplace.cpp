#include "netdp/dp/laplace.hpp"

#include <cmath>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

double laplace_rdp(double alpha, double noise_multiplier) {
  require_order("laplace_rdp", alpha);
  require_positive("laplace_rdp", "noise_multiplier", noise_multiplier);
  const double b = noise_multiplier;
  const double tail = std::log1p((alpha - 1) / alpha * std::exp(-(2 * alpha - 1) / b));
  return 1 / b + (std::log(alpha / (2 * alpha - 1)) + tail) / (alpha - 1);
}

}  // namespace netdp::dp
