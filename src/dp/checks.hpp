#pragma once
// Internal helpers of the DP toolbox: argument checks that throw InvalidInput naming the function, the
// parameter and its value (docs/design.md principle 6), and small log-space utilities.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::dp::detail {

/// Throws InvalidInput("<function>: <parameter> must be <requirement> (got <value>)") unless ok.
/// Every check below is written so that NaN fails it.
inline void require(bool ok, const char* function, const char* parameter, double value,
                    const char* requirement) {
  if (!ok)
    throw InvalidInput(std::string(function) + ": " + parameter + " must be " + requirement + " (got " +
                       format_double(value) + ")");
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

/// The terms ln Bin(n, p)(k) that log_binomial_sum visits, outwards from the mean, computed once: they do not
/// depend on log_f, so a bisection that sums against many log_f (SH3's Bennett bound) reuses them.
class BinomialTerms {
 public:
  BinomialTerms(double n, double p, double k_min)
      : n_(n), p_(p), k_min_(k_min), start_(std::clamp(std::round(n * p), k_min, n)) {}
  double n() const { return n_; }
  double k_min() const { return k_min_; }
  double start() const { return start_; }
  /// ln Bin(n, p)(start + i) and ln Bin(n, p)(start - 1 - i).
  double up(std::size_t i) { return at(up_, i, start_ + double(i)); }
  double down(std::size_t i) { return at(down_, i, start_ - 1 - double(i)); }

 private:
  double at(std::vector<double>& terms, std::size_t i, double k) {
    if (i == terms.size()) terms.push_back(log_binomial_pmf(n_, k, p_));  // visited in order
    return terms[i];
  }
  double n_, p_, k_min_, start_;
  std::vector<double> up_, down_;
};

/// ln sum_{k = k_min..n} Bin(n, p)(k) e^{log_f(k)}, summed in log space outwards from the mean, each
/// direction stopping once its terms decrease and fall 50 e-folds below the running sum (or below e^-1000):
/// the bulk of the binomial mass only, so n ~ 1e6 costs a few hundred terms. Assumes k -> ln Bin(k) +
/// log_f(k) is unimodal, which holds for the log-concave uses here (SS2 delta_cycle, SH3 Bennett).
template <class LogF>
double log_binomial_sum(BinomialTerms& binomial, LogF log_f) {
  double total = -INFINITY;
  auto walk = [&](bool upwards) {
    double previous = INFINITY;
    for (std::size_t i = 0;; ++i) {
      const double k = upwards ? binomial.start() + double(i) : binomial.start() - 1 - double(i);
      if (k < binomial.k_min() || k > binomial.n()) break;
      const double t = (upwards ? binomial.up(i) : binomial.down(i)) + log_f(k);
      total = log_add(total, t);
      if (t <= previous && t < std::max(total - 50, -1000.0)) break;
      previous = t;
    }
  };
  walk(true);
  walk(false);
  return total;
}

template <class LogF>
double log_binomial_sum(double n, double p, double k_min, LogF log_f) {
  BinomialTerms binomial(n, p, k_min);
  return log_binomial_sum(binomial, log_f);
}

}  // namespace netdp::dp::detail
