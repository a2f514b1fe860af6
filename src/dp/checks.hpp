#pragma once
// Internal helpers of the DP toolbox: argument checks that throw InvalidInput naming the function, the
// parameter and its value (DESIGN principle 6), and small log-space utilities.
#include <algorithm>
#include <cmath>
#include <string>

#include "netdp/error.hpp"

namespace netdp::dp::detail {

/// Shortest decimal form that reads back to the same double (no "1e-05 vs 0.00001" ambiguity).
std::string format(double x);

/// Throws InvalidInput("<function>: <parameter> must be <requirement> (got <value>)") unless ok.
/// Every check below is written so that NaN fails it.
inline void require(bool ok, const char* function, const char* parameter, double value,
                    const char* requirement) {
  if (!ok)
    throw InvalidInput(std::string(function) + ": " + parameter + " must be " + requirement + " (got " +
                       format(value) + ")");
}
inline void require_order(const char* f, double alpha, const char* name = "alpha") {
  require(alpha > 1, f, name, alpha, "> 1");
}
inline void require_open_unit(const char* f, const char* name, double x) {
  require(x > 0 && x < 1, f, name, x, "in (0, 1)");
}
inline void require_positive(const char* f, const char* name, double x) {
  require(x > 0, f, name, x, "> 0");
}
inline void require_nonnegative(const char* f, const char* name, double x) {
  require(x >= 0, f, name, x, ">= 0");
}
inline void require_finite_nonnegative(const char* f, const char* name, double x) {
  require(x >= 0 && std::isfinite(x), f, name, x, "finite and >= 0");
}

/// ln(e^a + e^b) without overflow; -inf is the log of 0.
inline double log_add(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const double hi = a > b ? a : b, lo = a > b ? b : a;
  return hi + std::log1p(std::exp(lo - hi));
}

/// ln of the Bin(n, p) probability mass at k (lgamma form, fine for n up to ~1e15).
inline double log_binomial_pmf(double n, double k, double p) {
  if (p <= 0) return k == 0 ? 0.0 : -INFINITY;
  if (p >= 1) return k == n ? 0.0 : -INFINITY;
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * std::log(p) +
         (n - k) * std::log1p(-p);
}

/// ln sum_{k = k_min..n} Bin(n, p)(k) e^{log_f(k)}, summed in log space outwards from the mean, each
/// direction stopping once its terms decrease and fall 50 e-folds below the running sum (or below e^-1000):
/// the bulk of the binomial mass only, so n ~ 1e6 costs a few hundred terms. Assumes k -> ln Bin(k) +
/// log_f(k) is unimodal, which holds for the log-concave uses here (SS2 delta_cycle, SH3 Bennett).
template <class LogF>
double log_binomial_sum(double n, double p, double k_min, LogF log_f) {
  const double start = std::clamp(std::round(n * p), k_min, n);
  double total = -INFINITY;
  auto walk = [&](double k, double step) {
    for (double previous = INFINITY; k >= k_min && k <= n; k += step) {
      const double t = log_binomial_pmf(n, k, p) + log_f(k);
      total = log_add(total, t);
      if (t <= previous && t < std::max(total - 50, -1000.0)) break;
      previous = t;
    }
  };
  walk(start, 1);
  walk(start - 1, -1);
  return total;
}

}  // namespace netdp::dp::detail
