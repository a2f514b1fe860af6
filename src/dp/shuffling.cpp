#include "netdp/dp/shuffling.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

namespace {

constexpr double kTol = 1e-12;               // SH3 tol; deltas are clipped to [10 tol, 1]
constexpr double kMinBlanketEpsilon = 1e-6;  // SH3 root bracket [1e-6, eps0]

void check_base(const char* f, double eps0, std::int64_t n) {
  require(eps0 > 0 && std::isfinite(eps0), f, "eps0", eps0, "finite and > 0");
  require(n >= 1, f, "n", double(n), ">= 1");
}

// phi(u) = (1 + u) ln(1 + u) - u >= 0; a series for small u, where the closed form cancels.
double bennett_phi(double u) {
  if (u < 1e-3) return u * u * (0.5 - u * (1.0 / 6 - u * (1.0 / 12 - u / 20)));
  return (1 + u) * std::log1p(u) - u;
}

double hoeffding_log_delta(double epsilon, double eps0, double n) {
  const double gamma_lb = std::exp(-eps0);
  const double a = std::expm1(epsilon);
  const double b = (std::exp(epsilon) + 1) * 2 * std::sinh(eps0);  // gamma_ub (e^eps + 1)(e^eps0 - e^-eps0)
  const double shrink = -std::expm1(-2 * a * a / (b * b));
  return -std::log(gamma_lb * n) + 2 * std::log(b) - std::log(4 * a) + n * std::log1p(-gamma_lb * shrink);
}

// M ~ Bin(n, e^-eps0): the binomial of the Bennett bound, whose terms do not depend on epsilon.
BinomialTerms bennett_binomial(double eps0, double n) {
  return BinomialTerms(n, std::exp(-eps0), 1);
}

double bennett_log_delta(double epsilon, double eps0, double n, BinomialTerms& binomial) {
  const double gamma_lb = std::exp(-eps0);
  const double a = std::expm1(epsilon);
  const double b_plus = std::exp(eps0) * -std::expm1(epsilon - 2 * eps0);
  const double c = std::exp(eps0) * (std::exp(2 * epsilon) + 1) - 2 * gamma_lb * std::exp(epsilon - 2 * eps0);
  const double alpha_b = c / (b_plus * b_plus), beta = a * b_plus / c, eta = 1 / b_plus;
  const double rate = alpha_b * bennett_phi(beta), log_denominator = std::log(eta * std::log1p(beta));
  // E[exp(-M alpha phi(beta)) / (eta ln(1 + beta)) ; M >= 1], M ~ Bin(n, gamma_lb): the M = 0 term is
  // excluded.
  const double log_expectation =
      log_binomial_sum(binomial, [&](double m) { return -m * rate - log_denominator; });
  return -std::log(gamma_lb * n) + log_expectation;
}

}  // namespace

bool erlingsson_valid(double eps0, std::int64_t n, double delta) {
  return eps0 > 0 && eps0 <= 0.5 && n >= 1000 && delta > 0 && delta <= 0.01;
}

double erlingsson_epsilon(double eps0, std::int64_t n, double delta) {
  const char* f = "erlingsson_epsilon";
  require(eps0 > 0 && eps0 <= 0.5, f, "eps0", eps0, "in (0, 1/2]");
  require(n >= 1000, f, "n", double(n), ">= 1000");
  require(delta > 0 && delta <= 0.01, f, "delta", delta, "in (0, 1/100]");
  return 12 * eps0 * std::sqrt(std::log(1 / delta) / double(n));
}

bool erlingsson_delta_valid(double eps0, std::int64_t n, double epsilon) {
  if (!(eps0 > 0 && eps0 <= 0.5 && n >= 1000 && epsilon > 0 && epsilon <= eps0)) return false;
  const double x = epsilon / (12 * eps0);
  return std::exp(-double(n) * x * x) <= 0.01;
}

double erlingsson_delta(double eps0, std::int64_t n, double epsilon) {
  const char* f = "erlingsson_delta";
  require(eps0 > 0 && eps0 <= 0.5, f, "eps0", eps0, "in (0, 1/2]");
  require(n >= 1000, f, "n", double(n), ">= 1000");
  require(epsilon > 0 && epsilon <= eps0, f, "epsilon", epsilon, "in (0, eps0]");
  const double x = epsilon / (12 * eps0), delta = std::exp(-double(n) * x * x);
  require(delta <= 0.01, f, "the resulting delta", delta, "<= 1/100 (Erlingsson et al.'s range)");
  return delta;
}

bool fmt_valid(double eps0, std::int64_t n, double delta) {
  if (!(eps0 > 0 && n >= 1 && delta > 0 && delta < 1)) return false;
  return eps0 <= std::log(double(n) / (16 * std::log(2 / delta)));
}

namespace {
void check_fmt(const char* f, double eps0, std::int64_t n, double delta) {
  check_base(f, eps0, n);
  require_open_unit(f, "delta", delta);
  const double limit = std::log(double(n) / (16 * std::log(2 / delta)));
  require(eps0 <= limit, f, "eps0", eps0, ("<= ln(n / (16 ln(2/delta))) = " + format_double(limit)).c_str());
}
}  // namespace

double fmt_epsilon(double eps0, std::int64_t n, double delta) {
  check_fmt("fmt_epsilon", eps0, n, delta);
  const double e = std::exp(eps0), nn = double(n);
  const double inner = 8 * std::sqrt(e * std::log(4 / delta)) / std::sqrt(nn) + 8 * e / nn;
  return std::log1p(std::tanh(eps0 / 2) * inner);  // (e^eps0 - 1)/(e^eps0 + 1) = tanh(eps0/2)
}

double fmt_epsilon_simplified(double eps0, std::int64_t n, double delta) {
  const char* f = "fmt_epsilon_simplified";
  check_fmt(f, eps0, n, delta);
  require(eps0 <= 1, f, "eps0", eps0, "<= 1");
  return 14 * std::sqrt(std::log(4 / delta)) * eps0 / std::sqrt(double(n));
}

BlanketBound parse_blanket_bound(std::string_view text) {
  if (text == "hoeffding") return BlanketBound::hoeffding;
  if (text == "bennett") return BlanketBound::bennett;
  throw InvalidInput("unknown privacy-blanket bound '" + std::string(text) +
                     "' (expected hoeffding or bennett)");
}

std::string to_string(BlanketBound b) {
  return b == BlanketBound::hoeffding ? "hoeffding" : "bennett";
}

namespace {

double blanket_delta_with(BlanketBound bound, double epsilon, double eps0, std::int64_t n,
                          BinomialTerms& binomial) {
  if (epsilon >= eps0) return 10 * kTol;
  const double log_delta = bound == BlanketBound::hoeffding
                               ? hoeffding_log_delta(epsilon, eps0, double(n))
                               : bennett_log_delta(epsilon, eps0, double(n), binomial);
  return std::clamp(std::exp(log_delta), 10 * kTol, 1.0);
}

}  // namespace

double blanket_delta(BlanketBound bound, double epsilon, double eps0, std::int64_t n) {
  const char* f = "blanket_delta";
  check_base(f, eps0, n);
  require_positive(f, "epsilon", epsilon);
  BinomialTerms binomial = bennett_binomial(eps0, double(n));
  return blanket_delta_with(bound, epsilon, eps0, n, binomial);
}

double blanket_epsilon(BlanketBound bound, double eps0, std::int64_t n, double delta) {
  const char* f = "blanket_epsilon";
  check_base(f, eps0, n);
  require_open_unit(f, "delta", delta);
  if (eps0 <= kMinBlanketEpsilon) return eps0;
  // Every step of the bisection sums against the same binomial terms: computed once.
  BinomialTerms binomial = bennett_binomial(eps0, double(n));
  const auto delta_at = [&](double epsilon) { return blanket_delta_with(bound, epsilon, eps0, n, binomial); };
  double lo = kMinBlanketEpsilon, hi = eps0;
  if (delta_at(lo) <= delta) return lo;
  if (delta_at(hi) > delta) return eps0;  // delta below 10 tol: no amplification certified
  while (hi - lo > kTol) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (delta_at(mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

double shuffle_epsilon(double eps0, std::int64_t n, double delta) {
  double eps = std::min(blanket_epsilon(BlanketBound::hoeffding, eps0, n, delta),
                        blanket_epsilon(BlanketBound::bennett, eps0, n, delta));
  if (erlingsson_valid(eps0, n, delta)) eps = std::min(eps, erlingsson_epsilon(eps0, n, delta));
  return eps;
}

}  // namespace netdp::dp
