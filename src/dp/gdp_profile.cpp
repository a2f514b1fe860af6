// The exact Gaussian privacy profile G3 / G4 (docs/math.md §1.2) and its inverse, in log space.
//
// With x = eps/mu - mu/2, y = x + mu and the Mills ratio R(t) = Phi(-t)/phi(t) = int_0^inf e^{-tw - w^2/2}
// dw, the identity e^eps phi(y) = phi(x) turns delta = Phi(-x) - e^eps Phi(-y) into
//   delta = phi(x) (R(x) - R(y)) = phi(x) int_0^inf e^{-xw - w^2/2} (1 - e^{-mu w}) dw,
// an integral of a positive integrand: no cancellation, and ln delta = -x^2/2 - ln sqrt(2 pi) + ln(integral)
// never underflows. The integrals are taken by Gauss-Legendre quadrature on fixed panels after scaling w so
// that the integrand decays on a unit scale.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "checks.hpp"
#include "netdp/dp/gaussian.hpp"

namespace netdp::dp {
using namespace detail;

namespace {

constexpr int kNodes = 16;

struct GaussLegendre {
  std::array<double, kNodes> node{}, weight{};  // on [-1, 1]
  GaussLegendre() {
    for (int i = 0; i < kNodes; ++i) {
      double z = std::cos(std::numbers::pi * (i + 0.75) / (kNodes + 0.5));
      double derivative = 1;
      for (int iteration = 0; iteration < 100; ++iteration) {
        double p0 = 1, p1 = z;  // Legendre recurrence up to P_kNodes(z)
        for (int k = 2; k <= kNodes; ++k) {
          const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
          p0 = p1, p1 = p2;
        }
        derivative = kNodes * (z * p1 - p0) / (z * z - 1);
        const double step = p1 / derivative;
        z -= step;
        if (std::fabs(step) < 1e-17) break;
      }
      node[i] = z;
      weight[i] = 2 / ((1 - z * z) * derivative * derivative);
    }
  }
};

const GaussLegendre& gauss_legendre() {
  static const GaussLegendre rule;
  return rule;
}

// 1/c with c = (t + sqrt(t^2 + 4))/2, the root of c^2 = tc + 1, written without cancellation for either sign.
double inverse_rate(double t) {
  return t >= 0 ? 2 / (t + std::hypot(t, 2.0)) : (std::hypot(t, 2.0) - t) / 2;
}

// ln int_0^inf e^{-tw - w^2/2} g(w) dw for t > -1 (a bit below is fine), g(w) = 1 if mu = 0 (the Mills ratio
// R(t)), else 1 - e^{-mu w}. With w = s/c the exponent is -(1 - b)s - b s^2/2, b = 1/c^2 in (0, 2.62): its
// maximum over s >= 0 is at most 1/2 (subtracted as `peak`) and it decays at least like e^{-s/2} beyond s =
// 1, so panels up to s = 64 (or until the exponent is below -45) hold all of the integral.
double log_scaled_integral(double t, double mu) {
  static constexpr double edges[] = {0, 1, 2, 4, 8, 16, 32, 64};
  const GaussLegendre& rule = gauss_legendre();
  const double inv_c = inverse_rate(t), b = inv_c * inv_c, linear = 1 - b, kappa = mu * inv_c;
  const double peak = b > 1 ? (b - 1) * (b - 1) / (2 * b) : 0.0;
  auto exponent = [&](double s) { return -linear * s - b * s * s / 2 - peak; };
  double sum = 0;
  for (std::size_t p = 0; p + 1 < std::size(edges); ++p) {
    const double mid = (edges[p] + edges[p + 1]) / 2, half = (edges[p + 1] - edges[p]) / 2;
    double part = 0;
    for (int i = 0; i < kNodes; ++i) {
      const double s = mid + half * rule.node[i];
      part += rule.weight[i] * std::exp(exponent(s)) * (mu == 0 ? 1.0 : -std::expm1(-kappa * s));
    }
    sum += half * part;
    if (exponent(edges[p + 1]) < -45) break;
  }
  return std::log(sum) + peak + std::log(inv_c);
}

constexpr double kLogSqrtTwoPi = 0.91893853320467274178;  // ln sqrt(2 pi)

}  // namespace

double gdp_log_delta(double mu, double epsilon) {
  const char* f = "gdp_log_delta";
  require(mu > 0 && std::isfinite(mu), f, "mu", mu, "finite and > 0");
  require_nonnegative(f, "epsilon", epsilon);
  if (std::isinf(epsilon)) return -INFINITY;
  // x = eps/mu - mu/2 as an unevaluated sum x + x_low (the quotient's and the difference's rounding errors),
  // so that -x^2/2, up to hundreds for tiny delta, carries no rounding of x.
  const double q = epsilon / mu, x = q - mu / 2;
  if (x > 1e150) return -INFINITY;  // ln delta < -x^2/2 < -5e299 (and x^2 would overflow)
  const double q_low = std::fma(-q, mu, epsilon) / mu, x_low = (q - x) - mu / 2 + q_low;
  const double y = x + mu;
  // x <= -1: Phi(-x) >= Phi(1) and e^eps Phi(-y) / Phi(-x) = R(y)/R(x) <= R(1)/R(-1) < 0.2 (y >= -x >= 1),
  // so the two terms of G3 are subtracted directly.
  if (x <= -1) {
    const double log_second = -x * x / 2 - kLogSqrtTwoPi + log_scaled_integral(y, 0);  // e^eps Phi(-y)
    return std::log(0.5 * std::erfc(x / std::numbers::sqrt2) - std::exp(log_second));
  }
  const double square = x * x, square_low = std::fma(x, x, -square) + 2 * x * x_low;
  const double log_phi_low = -square_low / 2 - kLogSqrtTwoPi;  // ln phi(x) = -square/2 + log_phi_low
  // R(y)/R(x) is about inverse_rate(y)/inverse_rate(x): below 1/2 the difference R(x) - R(y) loses at most
  // one bit; above, the integral of (1 - e^{-mu w}) avoids the difference altogether.
  double log_integral;
  if (inverse_rate(y) < 0.5 * inverse_rate(x)) {
    const double log_rx = log_scaled_integral(x, 0), log_ry = log_scaled_integral(y, 0);
    log_integral = log_rx + std::log1p(-std::exp(log_ry - log_rx));
  } else {
    log_integral = log_scaled_integral(x, mu);
  }
  return -square / 2 + (log_phi_low + log_integral);
}

double gdp_delta(double mu, double epsilon) {
  const char* f = "gdp_delta";
  require(mu > 0 && std::isfinite(mu), f, "mu", mu, "finite and > 0");
  require_nonnegative(f, "epsilon", epsilon);
  return std::min(1.0, std::exp(gdp_log_delta(mu, epsilon)));
}

namespace {

// The textbook form ln Phi(a) + ln(1 - e^{eps + ln Phi(b) - ln Phi(a)}), a = -x, b = -y: cheap, but the
// difference loses digits when mu is small (about 1e-9 relative at mu = 1e-3): a starting point only.
double quick_log_delta(double mu, double eps) {
  const double log_pa = log_normal_cdf(mu / 2 - eps / mu);
  return log_pa + std::log(-std::expm1(std::min(0.0, eps + log_normal_cdf(-mu / 2 - eps / mu) - log_pa)));
}

// Newton steps on excess(eps) = ln delta(eps) - log_delta, decreasing in eps, from `eps` inside [lo, hi],
// where excess(lo) > 0 >= excess(hi); each evaluation narrows the bracket, a step that leaves it bisects. The
// slope d ln delta / d eps = -e^eps Phi(-y) / delta needs only a few digits: it comes from log_normal_cdf.
// Stops after `steps` evaluations, once a step is below `tolerance` times eps (tolerance > 0), or once the
// bracket holds two adjacent doubles (a step within 2 ulps goes to the neighbour on the root's side).
template <class Excess>
double newton(Excess excess, double mu, double log_delta, double& lo, double& hi, double eps,
              double tolerance, int steps) {
  for (int i = 0; i < steps && std::nextafter(lo, INFINITY) < hi; ++i) {
    const double e = excess(eps);
    if (!std::isfinite(e)) break;
    (e > 0 ? lo : hi) = eps;
    const double slope = -std::exp(eps + log_normal_cdf(-eps / mu - mu / 2) - (e + log_delta));
    double next = eps - e / slope;
    if (tolerance > 0 && std::fabs(next - eps) <= tolerance * eps) return next;
    if (std::fabs(next - eps) <= 2 * (std::nextafter(eps, INFINITY) - eps))  // within 2 ulps: step past
      next = e > 0 ? std::nextafter(eps, INFINITY) : std::nextafter(eps, 0.0);
    if (!(next > lo && next < hi)) next = lo + (hi - lo) / 2;
    eps = next;
  }
  return eps;
}

}  // namespace

GdpEpsilon gdp_epsilon_bracket(double mu, double log_delta) {
  const char* f = "gdp_epsilon";
  require(mu > 0 && std::isfinite(mu), f, "mu", mu, "finite and > 0");
  require(log_delta < 0, f, "log_delta", log_delta, "< 0 (delta in (0, 1))");
  if (log_delta == -INFINITY) return {INFINITY, INFINITY};
  auto excess = [&](double eps) { return gdp_log_delta(mu, eps) - log_delta; };
  if (excess(0) <= 0) return {0, 0};
  // delta(eps) <= Phi(-x) <= e^{-x^2/2}/2 for x >= 0: this eps meets delta (doubled if rounding says no).
  double lo = 0, hi = mu * (mu / 2 + std::sqrt(std::max(0.0, -2 * (log_delta + std::numbers::ln2))));
  while (excess(hi) > 0) lo = hi, hi = 2 * hi + 1;
  // A start from the cheap profile (its own bracket, discarded), then Newton on the exact one until the
  // bracket holds two adjacent doubles.
  double quick_lo = lo, quick_hi = hi;
  auto quick_excess = [&](double eps) { return quick_log_delta(mu, eps) - log_delta; };
  double start = newton(quick_excess, mu, log_delta, quick_lo, quick_hi, hi, 1e-12, 100);
  if (!(start > lo && start < hi)) start = hi;
  newton(excess, mu, log_delta, lo, hi, start, 0.0, 400);
  return {lo, hi};
}

double gdp_epsilon_of_log_delta(double mu, double log_delta) {
  return gdp_epsilon_bracket(mu, log_delta).upper;
}

double gdp_epsilon(double mu, double delta) {
  require_open_unit("gdp_epsilon", "delta", delta);
  return gdp_epsilon_bracket(mu, std::log(delta)).upper;
}

double gdp_compose(double mu, double nu) {
  require_nonnegative("gdp_compose", "mu", mu);
  require_nonnegative("gdp_compose", "nu", nu);
  return std::hypot(mu, nu);
}

}  // namespace netdp::dp
