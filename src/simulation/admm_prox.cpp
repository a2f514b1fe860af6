// Proximal maps of the local objectives (docs/admm.md "Proximal maps"); the arithmetic is the single-source
// body kernels/common/admm_bodies.hpp.
#include "netdp/simulation/admm_prox.hpp"

#include <algorithm>
#include <cmath>

#include "common/admm_bodies.hpp"
#include "netdp/core/error.hpp"

namespace netdp {

namespace {

kernels::admm::LocalView local_view(Objective o, const LocalData& d, double l2, node_t i) {
  kernels::admm::LocalView v;
  v.loss = static_cast<kernels::convex::Loss>(o);
  v.dim = d.dim;
  v.features = d.features.data() + d.offsets[i] * d.dim;
  v.labels = d.labels.empty() ? nullptr : d.labels.data() + d.offsets[i];
  v.count = d.size(i);
  v.l2 = l2;
  return v;
}

}  // namespace

AdmmProx::AdmmProx(Objective o, const LocalData& d, double l2, double c, int newton_steps)
    : objective_(o), data_(&d), l2_(l2), c_(c), newton_steps_(newton_steps) {
  if (o == Objective::logistic) return;
  const auto p = static_cast<std::size_t>(d.dim), n = static_cast<std::size_t>(d.n);
  factors_.resize(n * p * p);
  linear_.resize(n * p);
  for (node_t i = 0; i < d.n; ++i) {
    double* a = factors_.data() + i * p * p;
    kernels::admm::prox_system(local_view(o, d, l2, i), c, a, linear_.data() + i * p);
    if (!kernels::admm::cholesky_factor(a, d.dim))  // c (H + mu I) + I >= I: only NaN data fail here
      throw InvalidInput("admm: the proximal system of user " + std::to_string(i) +
                         " is not positive definite");
  }
}

std::size_t AdmmProx::scratch_size() const {
  const auto p = static_cast<std::size_t>(data_->dim);
  return p * p + p;
}

void AdmmProx::apply(node_t i, const double* v, double* x, double* scratch) const {
  const int p = data_->dim;
  const auto offset = static_cast<std::size_t>(i) * static_cast<std::size_t>(p);
  if (objective_ == Objective::logistic)
    kernels::admm::prox_logistic(local_view(objective_, *data_, l2_, i), c_, v, newton_steps_, x, scratch,
                                 scratch + p * p);
  else
    kernels::admm::prox_closed_form(factors_.data() + offset * p, linear_.data() + offset, v, p, x);
}

double admm_contraction(Objective o, const LocalData& d, double l2, double c) {
  double lo = l2, hi = 0;
  if (o == Objective::quadratic) {
    lo = hi = 1 + l2;
  } else {
    double largest = 0;
    for (std::int64_t j = 0; j < d.examples(); ++j) {
      double s = 0;
      for (double v : d.x(j)) s += v * v;
      largest = std::max(largest, s);
    }
    hi = l2 + (o == Objective::logistic ? 0.25 : 1.0) * largest;
  }
  auto factor = [c](double a) { return std::fabs(1 - c * a) / (1 + c * a); };
  return std::max(factor(lo), factor(hi));
}

}  // namespace netdp
