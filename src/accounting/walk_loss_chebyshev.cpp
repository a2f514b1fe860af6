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
constexpr int kRhoGrid = 400;  // ellipses tried per bound (E2)

double harmonic(int steps) {
  double h = 0;
  for (int t = 1; t <= steps; ++t) h += 1.0 / t;
  return h;
}

/// E2: ln of M(rho) >= sup |S_T| on the Bernstein ellipse E_rho of [lo, hi]. S_T(z) = sum_{t<=T} z^t / t is
/// entire: |S_T(z)| <= sum_t R^t / t with R = max |z| on the ellipse.
double log_sup_on_ellipse(int steps, double lo, double hi, double rho) {
  const double center = 0.5 * (hi + lo), half = 0.5 * (hi - lo);
  const double r = std::abs(center) + half * 0.5 * (rho + 1.0 / rho), h = harmonic(steps);
  if (r < 1.0) return std::log(std::min(h, -std::log1p(-r)));
  return std::log(h) + steps * std::log(r);
}

/// E2's rho grid: geometric, 1 + 1e-6 .. 1 + 1e3 (S_T is entire).
double grid_rho(int index) {
  return 1.0 + std::pow(10.0, -6.0 + 9.0 * (index + 1.0) / (kRhoGrid + 1.0));
}

/// E2: ln of the interpolation bound 4 M(rho) rho^-K / (rho - 1).
double log_bound(int steps, double lo, double hi, double rho, int degree) {
  return std::log(4.0) + log_sup_on_ellipse(steps, lo, hi, rho) - degree * std::log(rho) -
         std::log(rho - 1.0);
}

/// E3 in closed form (docs/walk_loss.md "Degree and error bound"): with lambda = c + h x, 1 - lambda = h (A -
/// x), A = (1 - c)/h = (rho + 1/rho)/2, and ln(A - cos t) = ln(rho/2) - 2 sum_k rho^-k cos(k t)/k, so -ln(1 -
/// lambda) = -ln(h rho/2) + 2 sum_{k>=1} (rho^-k / k) T_k(x) exactly: rho is the Bernstein ellipse through
/// the singularity 1. A - 1 = (1 - hi)/h is formed directly (no cancellation for a small gap).
double singular_rho(double lo, double hi) {
  const double half = 0.5 * (hi - lo), a_minus_1 = (1.0 - hi) / half;
  return 1.0 + a_minus_1 + std::sqrt(a_minus_1 * (a_minus_1 + 2.0));
}

/// sup over [lo, hi] of the series' tail beyond degree K: 2 sum_{k>K} rho^-k/k <= 2 rho^-(K+1) / ((K + 1) (1
/// - 1/rho)), in logs.
double log_series_tail(double rho, int degree) {
  return std::log(2.0) - (degree + 1.0) * std::log(rho) - std::log(degree + 1.0) - std::log1p(-1.0 / rho);
}

/// Interpolation coefficients at the K + 1 Chebyshev points of the first kind, theta_j = pi (j + 1/2)/(K +
/// 1): c_k = (2 / (K + 1)) sum_j f(x_j) cos(k theta_j), c_0 halved. cos(k theta_j) = cos(pi m / (2 (K + 1)))
/// with m = k (2j + 1) mod 4(K + 1): one table.
std::vector<double> interpolation_coefficients(int steps, double lo, double hi, int degree) {
  const int points = degree + 1;
  const double center = 0.5 * (hi + lo), half = 0.5 * (hi - lo);
  std::vector<double> values(points), table(4 * static_cast<std::size_t>(points));
  for (std::size_t m = 0; m < table.size(); ++m) table[m] = std::cos(kPi * double(m) / (2.0 * points));
  for (int j = 0; j < points; ++j) {
    const double lambda = center + half * table[static_cast<std::size_t>(2 * j + 1)];
    values[j] = kernels::partial_log_series(lambda, steps);
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
  if (method == 0) {  // the truncated closed-form series: its tail
    const double rho = singular_rho(lo, hi);
    if (best_rho) *best_rho = rho;
    return std::exp(log_series_tail(rho, degree));
  }
  double best = std::numeric_limits<double>::infinity(), rho_at_best = 0;
  for (int i = 0; i < kRhoGrid; ++i) {
    const double rho = grid_rho(i), b = log_bound(steps, lo, hi, rho, degree);
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
  if (method == 0) {
    // E3: the exact Chebyshev series, truncated at the least K whose tail meets the tolerance (the tail
    // decreases in K).
    const double rho = singular_rho(lo, hi), log_tolerance = std::log(tolerance);
    int degree = 1;
    while (degree < max_degree && log_series_tail(rho, degree) > log_tolerance) ++degree;
    plan.degree = degree;
    plan.ellipse_rho = rho;
    plan.error_bound = std::exp(log_series_tail(rho, degree));
    plan.coefficients.resize(static_cast<std::size_t>(degree) + 1);
    plan.coefficients[0] = -std::log(0.5 * (hi - lo)) - std::log(0.5 * rho);
    for (int k = 1; k <= degree; ++k) plan.coefficients[k] = 2.0 * std::exp(-k * std::log(rho)) / k;
    return plan;
  }
  // Least K over the grid: 4 M rho^-K / (rho - 1) <= tolerance <=> K >= (ln(4M/(rho-1)) - ln tol) / ln rho.
  double needed = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kRhoGrid; ++i) {
    const double rho = grid_rho(i);
    const double k = (log_bound(steps, lo, hi, rho, 0) - std::log(tolerance)) / std::log(rho);
    needed = std::min(needed, std::max(1.0, std::ceil(k)));
  }
  int degree = needed < double(max_degree) ? static_cast<int>(needed) : max_degree;
  degree = std::min(degree, steps);
  plan.degree = degree;
  plan.error_bound = walk_chebyshev_error_bound(method, steps, lo, hi, degree, &plan.ellipse_rho);
  plan.coefficients = interpolation_coefficients(steps, lo, hi, degree);
  return plan;
}

}  // namespace netdp
