// Chebyshev expansion of the walk-loss graph term: interval, degree, coefficients and the proven error bound
// (docs/walk_loss.md "Chebyshev solver"; docs/math.md §5.3 for f).
#include "netdp/accounting/walk_loss_chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/walk_loss_math.hpp"

namespace netdp {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kRhoGrid = 400;  // ellipses tried per bound

double harmonic(int steps) {
  double h = 0;
  for (int t = 1; t <= steps; ++t) h += 1.0 / t;
  return h;
}

/// ln of M(rho) >= sup |f| on the Bernstein ellipse E_rho of [lo, hi]; +inf when f is not analytic there.
double log_sup_on_ellipse(int method, int steps, double lo, double hi, double rho) {
  const double center = 0.5 * (hi + lo), half = 0.5 * (hi - lo);
  const double semi_major = half * 0.5 * (rho + 1.0 / rho);
  if (method == 0) {
    // f = -ln(1 - z): analytic left of 1. On the ellipse Re(1 - z) > 0, so |arg(1 - z)| < pi/2, and
    // d_min <= |1 - z| <= d_max.
    const double d_min = 1.0 - center - semi_major, d_max = 1.0 - center + semi_major;
    if (!(d_min > 0)) return std::numeric_limits<double>::infinity();
    return std::log(std::max(std::abs(std::log(d_min)), std::abs(std::log(d_max))) + kPi / 2);
  }
  // f = S_T(z) = sum_{t<=T} z^t / t, entire: |S_T(z)| <= sum_t R^t / t with R = max |z| on the ellipse.
  const double r = std::abs(center) + semi_major, h = harmonic(steps);
  if (r < 1.0) return std::log(std::min(h, -std::log1p(-r)));
  return std::log(h) + steps * std::log(r);
}

/// The rho grid: (1, rho_max) for E3 (rho_max puts the ellipse's right end on the singularity 1), a
/// geometric range 1 + 1e-6 .. 1 + 1e3 for the entire S_T.
double grid_rho(int method, double lo, double hi, int index) {
  const double s = (index + 1.0) / (kRhoGrid + 1.0);
  if (method == 0) {
    const double a = (1.0 - 0.5 * (hi + lo)) / (0.5 * (hi - lo));
    const double rho_max = a + std::sqrt(a * a - 1.0);
    return 1.0 + (rho_max - 1.0) * s;
  }
  return 1.0 + std::pow(10.0, -6.0 + 9.0 * s);
}

double log_bound(int method, int steps, double lo, double hi, double rho, int degree) {
  return std::log(4.0) + log_sup_on_ellipse(method, steps, lo, hi, rho) - degree * std::log(rho) -
         std::log(rho - 1.0);
}

/// Interpolation coefficients at the K + 1 Chebyshev points of the first kind, theta_j = pi (j + 1/2)/(K +
/// 1): c_k = (2 / (K + 1)) sum_j f(x_j) cos(k theta_j), c_0 halved. cos(k theta_j) = cos(pi m / (2 (K + 1)))
/// with m = k (2j + 1) mod 4(K + 1): one table.
std::vector<double> interpolation_coefficients(int method, int steps, double lo, double hi, int degree) {
  const int points = degree + 1;
  const double center = 0.5 * (hi + lo), half = 0.5 * (hi - lo);
  std::vector<double> values(points), table(4 * static_cast<std::size_t>(points));
  for (std::size_t m = 0; m < table.size(); ++m) table[m] = std::cos(kPi * double(m) / (2.0 * points));
  for (int j = 0; j < points; ++j) {
    const double lambda = center + half * table[static_cast<std::size_t>(2 * j + 1)];
    values[j] = method == 0 ? -std::log1p(-lambda) : kernels::partial_log_series(lambda, steps);
  }
  std::vector<double> c(points);
  const std::int64_t period = 4 * static_cast<std::int64_t>(points);
  for (int k = 0; k < points; ++k) {
    double sum = 0;
    for (int j = 0; j < points; ++j) sum += values[j] * table[(std::int64_t(k) * (2 * j + 1)) % period];
    c[k] = 2.0 * sum / points;
  }
  c[0] *= 0.5;
  return c;
}

}  // namespace

void walk_chebyshev_interval(const CsrMatrix& w, double lambda_2, double lambda_min, double* lo, double* hi) {
  double gershgorin = 1.0;  // lambda >= W_ii - sum_{j != i} W_ij = 2 W_ii - 1 (rows sum to 1, entries >= 0)
  for (node_t i = 0; i < w.n; ++i) gershgorin = std::min(gershgorin, 2.0 * w.at(i, i) - 1.0);
  const double margin = std::max(1e-9, 0.01 * (1.0 - lambda_2));
  *hi = std::min(lambda_2 + margin, 1.0 - 0.5 * margin);
  *lo = std::max({gershgorin, lambda_min - margin, -1.0});
  if (!(*lo < *hi)) *lo = *hi - margin;
}

double walk_chebyshev_error_bound(int method, int steps, double lo, double hi, int degree, double* best_rho) {
  if (method == 1 && degree >= steps) {
    if (best_rho) *best_rho = 0;
    return 0.0;  // S_T is a polynomial of degree T: interpolated exactly
  }
  double best = std::numeric_limits<double>::infinity(), rho_at_best = 0;
  for (int i = 0; i < kRhoGrid; ++i) {
    const double rho = grid_rho(method, lo, hi, i), b = log_bound(method, steps, lo, hi, rho, degree);
    if (b < best) best = b, rho_at_best = rho;
  }
  if (best_rho) *best_rho = rho_at_best;
  return std::exp(best);
}

WalkChebyshevPlan plan_walk_chebyshev(int method, int steps, double lo, double hi, double tolerance,
                                      int max_degree) {
  WalkChebyshevPlan plan;
  plan.lo = lo;
  plan.hi = hi;
  // Least K over the grid: 4 M rho^-K / (rho - 1) <= tolerance <=> K >= (ln(4M/(rho-1)) - ln tol) / ln rho.
  double needed = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kRhoGrid; ++i) {
    const double rho = grid_rho(method, lo, hi, i);
    const double k = (log_bound(method, steps, lo, hi, rho, 0) - std::log(tolerance)) / std::log(rho);
    needed = std::min(needed, std::max(1.0, std::ceil(k)));
  }
  int degree = needed < double(max_degree) ? static_cast<int>(needed) : max_degree;
  if (method == 1) degree = std::min(degree, steps);
  plan.degree = degree;
  plan.error_bound = walk_chebyshev_error_bound(method, steps, lo, hi, degree, &plan.ellipse_rho);
  plan.coefficients = interpolation_coefficients(method, steps, lo, hi, degree);
  return plan;
}

}  // namespace netdp
