#pragma once
// Per-example maths of the built-in convex models (include/netdp/simulation/convex_models.hpp, docs/math.md
// §6.5 and §4.3), single-source so that a device step and the host library share one implementation.
#include <cmath>

#include "common/hd.hpp"

namespace netdp::kernels::convex {

/// The order of netdp::Objective (convex_models.hpp).
enum class Loss : int { quadratic = 0, least_squares = 1, logistic = 2 };

NETDP_HD inline double dot(const double* a, const double* b, int p) {
  double s = 0;
  for (int k = 0; k < p; ++k) s += a[k] * b[k];
  return s;
}

/// 1 / (1 + exp(-z)) without overflow.
NETDP_HD inline double sigmoid(double z) {
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

/// Gradient of l(theta; x, y) into out (p values): quadratic theta - x, least squares (x^T theta - y) x,
/// logistic -y sigmoid(-y x^T theta) x.
NETDP_HD inline void example_gradient(Loss o, const double* x, double y, const double* theta, int p,
                                      double* out) {
  if (o == Loss::quadratic) {
    for (int k = 0; k < p; ++k) out[k] = theta[k] - x[k];
  } else if (o == Loss::least_squares) {
    const double r = dot(x, theta, p) - y;
    for (int k = 0; k < p; ++k) out[k] = r * x[k];
  } else {
    const double c = -y * sigmoid(-y * dot(x, theta, p));
    for (int k = 0; k < p; ++k) out[k] = c * x[k];
  }
}

/// min(1, L / ||g||): the factor that clips g to norm L (L <= 0: no clipping).
NETDP_HD inline double clip_scale(const double* g, int p, double clip) {
  if (!(clip > 0)) return 1.0;
  const double norm2 = dot(g, g, p);
  return norm2 > clip * clip ? clip / std::sqrt(norm2) : 1.0;
}

}  // namespace netdp::kernels::convex
