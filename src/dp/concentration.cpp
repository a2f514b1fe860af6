#include "netdp/dp/concentration.hpp"

#include <cmath>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

NvFormula parse_nv_formula(std::string_view text) {
  if (text == "proof") return NvFormula::proof;
  if (text == "code_quirk" || text == "code") return NvFormula::code_quirk;
  throw InvalidInput("unknown nv_formula '" + std::string(text) + "' (expected proof or code_quirk)");
}

std::string to_string(NvFormula f) {
  return f == NvFormula::proof ? "proof" : "code_quirk";
}

namespace {
void check(const char* f, double steps, double n, double delta_hat) {
  require_finite_nonnegative(f, "steps", steps);
  require(n >= 1 && std::isfinite(n), f, "n", n, "finite and >= 1");
  require_open_unit(f, "delta_hat", delta_hat);
}
}  // namespace

double chernoff_visit_bound(double steps, double n, double delta_hat, NvFormula formula) {
  check("chernoff_visit_bound", steps, n, delta_hat);
  const double log_inv = std::log(1 / delta_hat);
  const double spread = formula == NvFormula::proof ? 3 * (steps / n) : 1.5 * steps;
  return steps / n + std::sqrt(spread * log_inv);
}

bool chernoff_visit_bound_valid(double steps, double n, double delta_hat) {
  check("chernoff_visit_bound_valid", steps, n, delta_hat);
  return steps >= 3 * n * std::log(1 / delta_hat);
}

double spotted_contributions(double contributions, double n, double delta_tilde) {
  const char* f = "spotted_contributions";
  require_finite_nonnegative(f, "contributions", contributions);
  require(n >= 1 && std::isfinite(n), f, "n", n, "finite and >= 1");
  require_open_unit(f, "delta_tilde", delta_tilde);
  return 2 * contributions / n + std::sqrt(6 * contributions / n * std::log(1 / delta_tilde));
}

}  // namespace netdp::dp
