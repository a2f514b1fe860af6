#pragma once
// Chebyshev expansion of the walk-loss graph term (docs/walk_loss.md "Solvers", docs/math.md §5.3):
// G = f(W) on the complement of the all-ones vector, with f(lambda) = -ln(1 - lambda) (E3) or S_T(lambda)
// (E2), replaced by a polynomial p of degree K in T_k((2 lambda - hi - lo) / (hi - lo)) on an interval
// [lo, hi] holding the deflated spectrum: for E3 the exact Chebyshev series of f truncated, for E2 the
// interpolant at the K + 1 Chebyshev points. The degree is the least K whose proven bound on sup |f - p|
// over [lo, hi] meets the tolerance.
#include <vector>

#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

struct WalkChebyshevPlan {
  double lo = 0, hi = 0;             // interval of the deflated spectrum (safety margin included)
  int degree = 0;                    // K
  std::vector<double> coefficients;  // c_0 .. c_K on T_k((2 lambda - hi - lo) / (hi - lo))
  double error_bound = 0;            // proven bound on sup_{[lo, hi]} |f - p| (0: p = f exactly)
  double ellipse_rho = 0;            // the Bernstein ellipse parameter that gives error_bound
};

/// The interval of the deflated spectrum: Lanczos' (or the dense) extreme eigenvalues lambda_2 and
/// lambda_min widened by a margin of 1% of the gap 1 - lambda_2 (and 1e-9) on each side, the low end never
/// below Gershgorin's min_i (2 W_ii - 1) >= -1, which holds for every symmetric stochastic W.
void walk_chebyshev_interval(const CsrMatrix& w, double lambda_2, double lambda_min, double* lo, double* hi);

/// Degree, coefficients and bound for method 0 (E3, f = -ln(1 - lambda)) or 1 (E2, f = S_T) on [lo, hi],
/// hi < 1, the degree capped at `max_degree` (then error_bound is what that degree gives).
/// E3: with rho = A + sqrt(A^2 - 1), A = (2 - hi - lo)/(hi - lo) (the Bernstein ellipse through the
/// singularity 1), f = -ln((hi - lo) rho / 4) + 2 sum_{k>=1} (rho^-k / k) T_k exactly; p is that series
/// truncated at K and sup |f - p| <= 2 rho^-(K+1) / ((K + 1) (1 - 1/rho)) (its tail).
/// E2: the interpolant; bound (Trefethen, Approximation Theory and Approximation Practice, Thm 8.2)
/// sup |f - p_K| <= 4 M(rho) rho^-K / (rho - 1) for every Bernstein ellipse E_rho of [lo, hi] with |S_T| <=
/// M(rho) on it, the least K over a grid of rho; a degree >= T interpolates the polynomial S_T exactly
/// (error_bound 0), so K never exceeds T.
WalkChebyshevPlan plan_walk_chebyshev(int method, int steps, double lo, double hi, double tolerance,
                                      int max_degree = 200000);

/// The bound of plan_walk_chebyshev for a given degree (E3: the series' tail; E2: the minimum over the grid).
double walk_chebyshev_error_bound(int method, int steps, double lo, double hi, int degree,
                                  double* best_rho = nullptr);

}  // namespace netdp
