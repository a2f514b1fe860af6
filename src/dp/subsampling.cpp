#include "netdp/dp/subsampling.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "common/dp_math.hpp"
#include "netdp/dp/gaussian.hpp"

namespace netdp::dp {
using namespace detail;

namespace {

using kernels::dp_math::amplified;

// ln(e^x - 1) for x > 0, no overflow.
double log_expm1(double x) {
  return x > 30 ? x + std::log1p(-std::exp(-x)) : std::log(std::expm1(x));
}

// SS2 group-k profile of the Gaussian base mechanism at eps (G3), by the chosen option.
double group_delta(DeltaCycle method, double epsilon, double theta, double k) {
  if (method == DeltaCycle::exact_gaussian) return gdp_delta(k * theta, epsilon);
  if (k == 1) return gdp_delta(theta, epsilon);
  const double base = gdp_delta(theta, epsilon / k);
  if (epsilon == 0) return std::min(1.0, k * base);  // limit of (e^eps - 1)/(e^(eps/k) - 1)
  return std::min(1.0, std::exp(log_expm1(epsilon) - log_expm1(epsilon / k)) * base);
}

}  // namespace

EpsDelta subsample_without_replacement(double epsilon, double delta, double q) {
  const char* f = "subsample_without_replacement";
  require_finite_nonnegative(f, "epsilon", epsilon);
  require(delta >= 0 && delta <= 1, f, "delta", delta, "in [0, 1]");
  require(q >= 0 && q <= 1, f, "q", q, "in [0, 1]");
  return {amplified(q, epsilon), q * delta};
}

double with_replacement_hit_probability(std::int64_t m, std::int64_t n) {
  const char* f = "with_replacement_hit_probability";
  require(m >= 0, f, "m", double(m), ">= 0");
  require(n >= 1, f, "n", double(n), ">= 1");
  return kernels::dp_math::with_replacement_hit_probability(m, n);
}

double with_replacement_epsilon(double epsilon_a, std::int64_t m, std::int64_t n) {
  require_finite_nonnegative("with_replacement_epsilon", "epsilon_a", epsilon_a);
  return amplified(with_replacement_hit_probability(m, n), epsilon_a);
}

DeltaCycle parse_delta_cycle(std::string_view text) {
  if (text == "k_delta") return DeltaCycle::k_delta;
  if (text == "group_privacy") return DeltaCycle::group_privacy;
  if (text == "exact_gaussian") return DeltaCycle::exact_gaussian;
  throw InvalidInput("unknown delta_cycle option '" + std::string(text) +
                     "' (expected k_delta, group_privacy or exact_gaussian)");
}

std::string to_string(DeltaCycle d) {
  switch (d) {
    case DeltaCycle::k_delta:
      return "k_delta";
    case DeltaCycle::group_privacy:
      return "group_privacy";
    case DeltaCycle::exact_gaussian:
      return "exact_gaussian";
  }
  return "?";
}

double aggregated_gaussian_theta(double sensitivity, double sigma_loc_abs, double m) {
  const char* f = "aggregated_gaussian_theta";
  require_positive(f, "sensitivity", sensitivity);
  require_positive(f, "sigma_loc_abs", sigma_loc_abs);
  require(m >= 1, f, "m", m, ">= 1");
  return sensitivity / (sigma_loc_abs * std::sqrt(m));
}

double with_replacement_delta(DeltaCycle method, double epsilon_a, double theta, double delta_a,
                              std::int64_t m, std::int64_t n) {
  const char* f = "with_replacement_delta";
  require_nonnegative(f, "epsilon_a", epsilon_a);
  const double hit = with_replacement_hit_probability(m, n);  // validates m, n
  if (method == DeltaCycle::k_delta) {
    require(delta_a >= 0 && delta_a <= 1, f, "delta_a", delta_a, "in [0, 1]");
    return std::min(1.0, double(m) / double(n) * delta_a);  // E[k] delta with k ~ Bin(m, 1/n)
  }
  require(theta > 0 && std::isfinite(theta), f, "theta", theta, "finite and > 0");
  if (hit == 0) return 0;
  const double log_total = log_binomial_sum(double(m), 1.0 / double(n), 1, [&](double k) {
    return std::log(group_delta(method, epsilon_a, theta, k));
  });
  return std::min(1.0, std::exp(log_total));
}

std::string to_string(SubsampledBound b) {
  return b == SubsampledBound::thm_3_10 ? "thm_3_10" : "mironov_talwar_zhang";
}

namespace {

// Returns an empty string when the bound holds, else the violated condition (used for messages).
std::string violated(SubsampledBound bound, double alpha, double q, double sigma) {
  if (!(alpha > 1)) return "alpha must be > 1 (got " + format_double(alpha) + ")";
  if (!(q > 0 && q < 0.2)) return "q must be in (0, 1/5) (got " + format_double(q) + ")";
  if (!(sigma >= 4)) return "sigma must be >= 4 (got " + format_double(sigma) + ")";
  if (bound == SubsampledBound::thm_3_10) return {};
  const double s2 = sigma * sigma;
  const double m = std::log1p(1 / (q * (alpha - 1)));
  const double denominator = m + std::log(q * alpha) + 1 / (2 * s2);
  const double first = (m * m * s2 / 2 - std::log(5 * s2)) / denominator;
  if (!(denominator > 0 && alpha <= first))
    return "alpha must be <= (M^2 sigma^2/2 - ln(5 sigma^2)) / (M + ln(q alpha) + 1/(2 sigma^2)) = " +
           format_double(first) + " (got " + format_double(alpha) + ")";
  const double second = m * s2 / 2 - 2 * std::log(sigma);
  if (!(alpha <= second))
    return "alpha must be <= M sigma^2/2 - 2 ln(sigma) = " + format_double(second) + " (got " +
           format_double(alpha) + ")";
  return {};
}

}  // namespace

bool subsampled_gaussian_rdp_valid(SubsampledBound bound, double alpha, double q, double sigma) {
  return violated(bound, alpha, q, sigma).empty();
}

double subsampled_gaussian_rdp(SubsampledBound bound, double alpha, double q, double sigma) {
  if (const std::string why = violated(bound, alpha, q, sigma); !why.empty())
    throw InvalidInput("subsampled_gaussian_rdp (" + to_string(bound) + "): " + why);
  const double factor = bound == SubsampledBound::thm_3_10 ? 6 : 2;
  return factor * alpha * q * q / (sigma * sigma);
}

}  // namespace netdp::dp
