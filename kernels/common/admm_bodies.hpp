#pragma once
// Single-source bodies of private consensus ADMM (docs/admm.md, docs/math.md §8.1-§8.2): the proximal step
// of one user's local objective and the noisy block update of Algorithm 8.1. src/simulation/admm.cpp runs
// them on the CPU, one run per thread; tests/unit/test_admm.cpp checks them against closed forms.
//
// The local objective of user i is f_i(x) = (1/m_i) sum_j l(x; j) + mu/2 ||x||^2 (convex_model_math.hpp), and
// its proximal map with step c is prox_{c f_i}(v) = argmin_x c f_i(x) + ||x - v||^2 / 2.
#include <cmath>
#include <cstdint>

#include "common/convex_model_math.hpp"
#include "common/hd.hpp"

namespace netdp::kernels::admm {

/// In-place Cholesky factor L (lower triangle, row-major p x p) of a symmetric positive definite a; false if
/// a is not numerically positive definite.
NETDP_HD inline bool cholesky_factor(double* a, int p) {
  for (int j = 0; j < p; ++j) {
    double d = a[j * p + j];
    for (int k = 0; k < j; ++k) d -= a[j * p + k] * a[j * p + k];
    if (!(d > 0)) return false;
    a[j * p + j] = std::sqrt(d);
    for (int i = j + 1; i < p; ++i) {
      double s = a[i * p + j];
      for (int k = 0; k < j; ++k) s -= a[i * p + k] * a[j * p + k];
      a[i * p + j] = s / a[j * p + j];
    }
  }
  return true;
}

/// b <- (L L^T)^{-1} b for the factor of cholesky_factor.
NETDP_HD inline void cholesky_solve(const double* l, double* b, int p) {
  for (int i = 0; i < p; ++i) {
    for (int k = 0; k < i; ++k) b[i] -= l[i * p + k] * b[k];
    b[i] /= l[i * p + i];
  }
  for (int i = p - 1; i >= 0; --i) {
    for (int k = i + 1; k < p; ++k) b[i] -= l[k * p + i] * b[k];
    b[i] /= l[i * p + i];
  }
}

/// One user's data.
struct LocalView {
  convex::Loss loss = convex::Loss::logistic;
  int dim = 0;                       // p
  const double* features = nullptr;  // the user's m examples x p, row-major
  const double* labels = nullptr;    // m labels (nullptr for quadratic)
  std::int64_t count = 0;            // m
  double l2 = 0;                     // mu
};

/// Quadratic losses (quadratic, least squares): c f_i(x) + ||x - v||^2/2 has the gradient (c(H + mu I) + I) x
/// - (c b + v) with H = (1/m) sum_j x_j x_j^T, b = (1/m) sum_j y_j x_j (quadratic: H = I, b = mean target).
/// factor: the Cholesky factor of c(H + mu I) + I (prox_factor); cb: c b (prox_linear_term). x <- the prox.
NETDP_HD inline void prox_closed_form(const double* factor, const double* cb, const double* v, int p,
                                      double* x) {
  for (int k = 0; k < p; ++k) x[k] = cb[k] + v[k];
  cholesky_solve(factor, x, p);
}

/// c(H + mu I) + I into a (p x p, not yet factored) and c b into cb, for the quadratic losses.
NETDP_HD inline void prox_system(const LocalView& d, double c, double* a, double* cb) {
  const int p = d.dim;
  const double m = double(d.count);
  for (int k = 0; k < p * p; ++k) a[k] = 0;
  for (int k = 0; k < p; ++k) cb[k] = 0;
  for (std::int64_t j = 0; j < d.count; ++j) {
    const double* xj = d.features + j * p;
    const double y = d.loss == convex::Loss::quadratic ? 1.0 : d.labels[j];
    for (int r = 0; r < p; ++r) {
      cb[r] += c * y * xj[r] / m;
      if (d.loss != convex::Loss::quadratic)
        for (int s = 0; s < p; ++s) a[r * p + s] += c * xj[r] * xj[s] / m;
    }
  }
  const double diagonal = d.loss == convex::Loss::quadratic ? c * (1 + d.l2) + 1 : c * d.l2 + 1;
  for (int k = 0; k < p; ++k) a[k * p + k] += diagonal;
}

/// Logistic loss: `steps` Newton steps on c f_i(x) + ||x - v||^2/2 from the x given (a warm start), each
/// solving (c grad^2 f_i(x) + I) s = c grad f_i(x) + x - v. The objective is (1 + c mu)-strongly convex and
/// smooth, so a few steps from the previous prox reach machine precision (docs/admm.md "Proximal maps").
/// hessian: p x p scratch; g: p scratch. Returns the norm of the last gradient (before its step).
NETDP_HD inline double prox_logistic(const LocalView& d, double c, const double* v, int steps, double* x,
                                     double* hessian, double* g) {
  const int p = d.dim;
  const double m = double(d.count);
  double last = 0;
  for (int it = 0; it < steps; ++it) {
    for (int k = 0; k < p * p; ++k) hessian[k] = 0;
    for (int k = 0; k < p; ++k) g[k] = c * d.l2 * x[k] + x[k] - v[k];
    for (std::int64_t j = 0; j < d.count; ++j) {
      const double* xj = d.features + j * p;
      const double y = d.labels[j];
      const double s = convex::sigmoid(-y * convex::dot(xj, x, p));  // l' = -y s, l'' = s (1 - s)
      const double w = c * s * (1 - s) / m;
      for (int r = 0; r < p; ++r) {
        g[r] += -c * y * s * xj[r] / m;
        for (int q = 0; q < p; ++q) hessian[r * p + q] += w * xj[r] * xj[q];
      }
    }
    last = std::sqrt(convex::dot(g, g, p));
    for (int k = 0; k < p; ++k) hessian[k * p + k] += c * d.l2 + 1;
    cholesky_factor(hessian, p);  // positive definite: c grad^2 f_i >= 0 plus the identity
    cholesky_solve(hessian, g, p);
    for (int k = 0; k < p; ++k) x[k] -= g[k];
  }
  return last;
}

/// The noisy block update of Algorithm 8.1 for consensus ADMM (docs/math.md §8.2): R_i(u) - u_i = 2(x_i - z),
/// so u_i <- u_i + lambda (R_i(u) + eta - u_i) = u_i + 2 lambda (x_i - z + eta/2), eta = sigma * normals.
NETDP_HD inline void block_update(double* u, const double* x, const double* z, const double* normals,
                                  double sigma, double lambda, int p) {
  for (int k = 0; k < p; ++k) u[k] += 2 * lambda * (x[k] - z[k] + sigma * normals[k] / 2);
}

}  // namespace netdp::kernels::admm
