#include "netdp/dp/iteration.hpp"

#include <cmath>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

double iteration_rdp(double alpha, double noise_multiplier, double steps) {
  const char* f = "iteration_rdp";
  require_order(f, alpha);
  require_positive(f, "noise_multiplier", noise_multiplier);
  require(steps >= 1, f, "steps", steps, ">= 1");
  return alpha / (2 * noise_multiplier * noise_multiplier * steps);
}

namespace {
void check_c(const char* f, double alpha, double c) {
  require_order(f, alpha);
  require(c > 0 && c <= 1, f, "c", c, "in (0, 1]");
}
}  // namespace

bool weak_convexity_admissible(double max_divergence, double alpha, double c) {
  check_c("weak_convexity_admissible", alpha, c);
  require_nonnegative("weak_convexity_admissible", "max_divergence", max_divergence);
  return max_divergence <= c / (alpha - 1);
}

double weak_convexity_bound(const std::vector<double>& divergences, const std::vector<double>& weights,
                            double alpha, double c) {
  const char* f = "weak_convexity_bound";
  check_c(f, alpha, c);
  if (divergences.size() != weights.size() || divergences.empty())
    throw InvalidInput(std::string(f) + ": needs one weight per divergence and at least one (got " +
                       std::to_string(divergences.size()) + " divergences, " +
                       std::to_string(weights.size()) + " weights)");
  double total = 0, mean = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    require(weights[i] >= 0 && std::isfinite(weights[i]), f, "weight", weights[i], "finite and >= 0");
    require_nonnegative(f, "divergence", divergences[i]);
    if (weights[i] == 0) continue;
    require(divergences[i] <= c / (alpha - 1), f, "divergence", divergences[i],
            ("<= c/(alpha - 1) = " + format_double(c / (alpha - 1)) + " (PI4 admissibility)").c_str());
    total += weights[i];
    mean += weights[i] * divergences[i];
  }
  require_positive(f, "sum of weights", total);
  return (1 + c) * mean / total;
}

WeakConvexityCondition parse_weak_convexity_condition(std::string_view text) {
  if (text == "stated") return WeakConvexityCondition::stated;
  if (text == "exact") return WeakConvexityCondition::exact;
  throw InvalidInput("unknown weak_convexity_condition '" + std::string(text) +
                     "' (expected stated or exact)");
}

std::string to_string(WeakConvexityCondition c) {
  return c == WeakConvexityCondition::stated ? "stated" : "exact";
}

bool weak_convexity_condition_holds(double alpha, double noise_multiplier, WeakConvexityCondition condition) {
  const char* f = "weak_convexity_condition_holds";
  require_order(f, alpha);
  require_positive(f, "noise_multiplier", noise_multiplier);
  const double s2 = noise_multiplier * noise_multiplier, a = alpha * (alpha - 1);
  return condition == WeakConvexityCondition::stated ? s2 >= 2 * a : s2 >= a / 2;
}

double alpha_max(double noise_multiplier, WeakConvexityCondition condition) {
  require_positive("alpha_max", "noise_multiplier", noise_multiplier);
  const double s2 = noise_multiplier * noise_multiplier;
  // Largest root of alpha (alpha - 1) = K sigma^2 with K = 1/2 (stated) or 2 (exact).
  const double k = condition == WeakConvexityCondition::stated ? 0.5 : 2.0;
  return (1 + std::sqrt(1 + 4 * k * s2)) / 2;
}

}  // namespace netdp::dp
