#include "netdp/dp/randomized_response.hpp"

#include <cmath>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

namespace {
void check(const char* f, double epsilon, int categories) {
  require_finite_nonnegative(f, "epsilon", epsilon);
  require(categories >= 2, f, "categories", categories, ">= 2");
}
}  // namespace

double krr_keep_probability(double epsilon, int categories) {
  check("krr_keep_probability", epsilon, categories);
  // e^eps / (K - 1 + e^eps) written as 1 / (1 + (K - 1) e^-eps): no overflow for large eps.
  return 1 / (1 + (categories - 1) * std::exp(-epsilon));
}

double krr_other_probability(double epsilon, int categories) {
  check("krr_other_probability", epsilon, categories);
  return std::exp(-epsilon) / (1 + (categories - 1) * std::exp(-epsilon));
}

double rr_gamma_epsilon(double gamma, int categories) {
  const char* f = "rr_gamma_epsilon";
  require(gamma > 0 && gamma <= 1, f, "gamma", gamma, "in (0, 1]");
  require(categories >= 2, f, "categories", categories, ">= 2");
  return std::log1p(categories * (1 - gamma) / gamma);
}

double rr_gamma_of_epsilon(double epsilon, int categories) {
  check("rr_gamma_of_epsilon", epsilon, categories);
  return categories / (std::expm1(epsilon) + categories);
}

double krr_frequency_mse(double epsilon, int categories, double n) {
  const char* f = "krr_frequency_mse";
  check(f, epsilon, categories);
  require_positive(f, "epsilon", epsilon);
  require_positive(f, "n", n);
  const double e = std::expm1(epsilon);
  return (categories - 1 + e) / (n * e * e);
}

}  // namespace netdp::dp
