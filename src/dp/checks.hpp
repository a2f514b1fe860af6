#pragma once
// Internal helpers of the DP toolbox: argument checks that throw InvalidInput naming the function, the
// parameter and its value (DESIGN principle 6), and small log-space utilities.
#include <cmath>
#include <string>

#include "netdp/error.hpp"

namespace netdp::dp::detail {

/// Shortest decimal form that reads back to the same double (no "1e-05 vs 0.00001" ambiguity).
std::string format(double x);

/// Throws InvalidInput("<function>: <parameter> must be <requirement> (got <value>)") unless ok.
/// Every check below is written so that NaN fails it.
inline void require(bool ok, const char* function, const char* parameter, double value, const char* requirement) {
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
inline void require_positive(const char* f, const char* name, double x) { require(x > 0, f, name, x, "> 0"); }
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

}  // namespace netdp::dp::detail
