#pragma once
// Proximal maps of the users' local objectives for consensus ADMM (docs/admm.md "Proximal maps", docs/math.md
// §8.2): prox_{c f_i}(v) = argmin_x c f_i(x) + ||x - v||^2 / 2 with f_i the built-in convex model of user i
// (convex_models.hpp: the mean loss over its examples plus mu/2 ||x||^2). Quadratic and least squares in
// closed form (one Cholesky factor per user, computed once); logistic by Newton steps from a warm start.
#include <cstdint>
#include <vector>

#include "netdp/simulation/convex_models.hpp"

namespace netdp {

class AdmmProx {
 public:
  /// c > 0 the prox step, newton_steps >= 1 (logistic only).
  AdmmProx(Objective o, const LocalData& d, double l2, double c, int newton_steps);

  /// x <- prox_{c f_i}(v) (p values each); for logistic x holds the warm start on entry. scratch: at least
  /// scratch_size() doubles.
  void apply(node_t i, const double* v, double* x, double* scratch) const;
  std::size_t scratch_size() const;
  double step() const { return c_; }

 private:
  Objective objective_;
  const LocalData* data_;
  double l2_, c_;
  int newton_steps_;
  std::vector<double> factors_;  // n x p x p Cholesky factors of c (H_i + mu I) + I (quadratic losses)
  std::vector<double> linear_;   // n x p: c b_i
};

/// The contraction factor tau of the Lions-Mercier operator of consensus ADMM (docs/admm.md "Utility bound"):
/// the reflection of the consensus projection is an isometry, and the reflected prox of a c-scaled f_i whose
/// Hessian lies in [a_lo, a_hi] contracts by max(|1 - c a| / (1 + c a)) over a in {a_lo, a_hi}. netdp takes
/// a_lo = mu (quadratic: 1 + mu) and a_hi = mu + kappa max_j ||x_j||^2 (least squares kappa = 1, logistic
/// 1/4; quadratic 1 + mu), an upper bound on tau. tau = 1 (no contraction) when mu = 0 for the non-quadratic
/// losses.
double admm_contraction(Objective o, const LocalData& d, double l2, double c);

}  // namespace netdp
