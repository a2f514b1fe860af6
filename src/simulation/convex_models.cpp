// The built-in objectives of Muffliato-GD (docs/math.md §6.5: phi = (1/n) sum_v phi_v, phi_v the mean loss
// over D_v plus a ridge term), their gradients, and the optimum the utility curves are measured against.
#include <algorithm>
#include <cmath>
#include <string>

#include "common/convex_model_math.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {

namespace {

double dot(std::span<const double> a, std::span<const double> b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

/// ln(1 + exp(-z)) without overflow.
double softplus_negative(double z) {
  return z > 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
}

using kernels::convex::sigmoid;
static_assert(static_cast<int>(Objective::quadratic) == static_cast<int>(kernels::convex::Loss::quadratic) &&
              static_cast<int>(Objective::least_squares) ==
                  static_cast<int>(kernels::convex::Loss::least_squares) &&
              static_cast<int>(Objective::logistic) == static_cast<int>(kernels::convex::Loss::logistic));

/// Solves A x = b for a symmetric positive definite p x p A (row-major) by Cholesky; false if A is not
/// numerically positive definite.
bool solve_spd(std::vector<double> a, std::vector<double>& b, int p) {
  for (int j = 0; j < p; ++j) {
    double d = a[j * p + j];
    for (int k = 0; k < j; ++k) d -= a[j * p + k] * a[j * p + k];
    if (!(d > 1e-14 * std::max(1.0, std::fabs(a[j * p + j])))) return false;
    a[j * p + j] = std::sqrt(d);
    for (int i = j + 1; i < p; ++i) {
      double s = a[i * p + j];
      for (int k = 0; k < j; ++k) s -= a[i * p + k] * a[j * p + k];
      a[i * p + j] = s / a[j * p + j];
    }
  }
  for (int i = 0; i < p; ++i) {  // L y = b
    for (int k = 0; k < i; ++k) b[i] -= a[i * p + k] * b[k];
    b[i] /= a[i * p + i];
  }
  for (int i = p - 1; i >= 0; --i) {  // L^T x = y
    for (int k = i + 1; k < p; ++k) b[i] -= a[k * p + i] * b[k];
    b[i] /= a[i * p + i];
  }
  return true;
}

double norm(std::span<const double> a) {
  return std::sqrt(dot(a, a));
}

/// A = (1/n) sum_v (1/m_v) sum_i w_i x_i x_i^T + mu I with weights w_i = weight(i) (least squares: 1;
/// logistic Hessian: s_i (1 - s_i)).
template <typename Weight>
std::vector<double> weighted_gram(const LocalData& d, double l2, Weight&& weight) {
  const int p = d.dim;
  std::vector<double> a(static_cast<std::size_t>(p) * p, 0.0), local(a.size());
  for (node_t v = 0; v < d.n; ++v) {
    std::fill(local.begin(), local.end(), 0.0);
    for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
      const auto x = d.x(i);
      const double w = weight(i);
      for (int r = 0; r < p; ++r)
        for (int c = 0; c < p; ++c) local[r * p + c] += w * x[r] * x[c];
    }
    for (std::size_t k = 0; k < a.size(); ++k) a[k] += local[k] / double(d.size(v));
  }
  for (auto& x : a) x /= d.n;
  for (int k = 0; k < p; ++k) a[k * p + k] += l2;
  return a;
}

Optimum quadratic_optimum(Objective o, const LocalData& d, double l2) {
  const int p = d.dim;
  Optimum opt;
  opt.method = "closed form (Cholesky)";
  std::vector<double> b(p, 0.0), local(p);
  for (node_t v = 0; v < d.n; ++v) {  // b = (1/n) sum_v (1/m_v) sum_i (x_i, or y_i x_i)
    std::fill(local.begin(), local.end(), 0.0);
    for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
      const double y = o == Objective::quadratic ? 1.0 : d.labels[i];
      const auto x = d.x(i);
      for (int k = 0; k < p; ++k) local[k] += y * x[k];
    }
    for (int k = 0; k < p; ++k) b[k] += local[k] / double(d.size(v));
  }
  for (auto& x : b) x /= d.n;
  if (o == Objective::quadratic) {
    opt.hessian.assign(static_cast<std::size_t>(p) * p, 0.0);
    for (int k = 0; k < p; ++k) opt.hessian[k * p + k] = 1.0 + l2;
  } else {
    opt.hessian = weighted_gram(d, l2, [](std::int64_t) { return 1.0; });
  }
  if (!solve_spd(opt.hessian, b, p))
    throw InvalidInput(
        to_string(o) +
        ": the data do not determine a unique optimum (X^T X is singular); give l2 > 0 or more data");
  opt.theta = std::move(b);
  opt.value = global_objective(o, d, l2, opt.theta);
  std::vector<double> g(p);
  global_gradient(o, d, l2, opt.theta, g);
  opt.gradient_norm = norm(g);
  return opt;
}

/// Damped Newton with Armijo backtracking from theta = 0.
Optimum logistic_optimum(const LocalData& d, double l2) {
  constexpr int kMaxIterations = 200;
  constexpr double kTolerance = 1e-12;
  const int p = d.dim;
  Optimum opt;
  opt.method = "damped Newton";
  opt.theta.assign(p, 0.0);
  opt.converged = false;
  std::vector<double> g(p), step(p), trial(p);
  double value = global_objective(Objective::logistic, d, l2, opt.theta);
  for (int it = 0; it < kMaxIterations; ++it) {
    global_gradient(Objective::logistic, d, l2, opt.theta, g);
    opt.gradient_norm = norm(g);
    opt.iterations = it;
    if (opt.gradient_norm <= kTolerance) {
      opt.converged = true;
      break;
    }
    auto hessian = weighted_gram(d, l2, [&](std::int64_t i) {
      const double s = sigmoid(d.labels[i] * dot(d.x(i), opt.theta));
      return s * (1.0 - s);
    });
    for (int k = 0; k < p; ++k) step[k] = -g[k];
    if (!solve_spd(std::move(hessian), step, p)) break;
    const double slope = dot(g, step);
    double t = 1.0, next = value;
    bool moved = false;
    for (int halvings = 0; halvings < 60; ++halvings, t /= 2) {
      for (int k = 0; k < p; ++k) trial[k] = opt.theta[k] + t * step[k];
      next = global_objective(Objective::logistic, d, l2, trial);
      if (next <= value + 0.25 * t * slope) {
        moved = true;
        break;
      }
    }
    if (!moved) {  // no decrease left at double precision
      opt.converged = opt.gradient_norm <= 1e-8;
      break;
    }
    opt.theta = trial;
    value = next;
  }
  opt.value = value;
  return opt;
}

}  // namespace

Objective parse_objective(std::string_view text) {
  if (text == "quadratic") return Objective::quadratic;
  if (text == "least-squares") return Objective::least_squares;
  if (text == "logistic") return Objective::logistic;
  throw InvalidInput("unknown objective '" + std::string(text) +
                     "' (expected quadratic, least-squares or logistic)");
}

std::string to_string(Objective o) {
  switch (o) {
    case Objective::quadratic:
      return "quadratic";
    case Objective::least_squares:
      return "least-squares";
    case Objective::logistic:
      return "logistic";
  }
  return "?";
}

void validate(const LocalData& d, Objective o) {
  const std::string what = to_string(o) + " data: ";
  if (d.n < 1) throw InvalidInput(what + "n must be >= 1");
  if (d.dim < 1) throw InvalidInput(what + "the dimension p must be >= 1, got " + std::to_string(d.dim));
  if (d.offsets.size() != static_cast<std::size_t>(d.n) + 1 || d.offsets.front() != 0)
    throw InvalidInput(what + "offsets must have n + 1 entries starting at 0");
  for (node_t v = 0; v < d.n; ++v)
    if (d.offsets[v + 1] <= d.offsets[v])
      throw InvalidInput(what + "node " + std::to_string(v) + " has no example (every node needs one)");
  const std::int64_t m = d.examples();
  if (d.features.size() != static_cast<std::size_t>(m) * d.dim)
    throw InvalidInput(what + "expected " + std::to_string(m) + " x " + std::to_string(d.dim) + " features");
  const std::size_t labels = o == Objective::quadratic ? 0 : static_cast<std::size_t>(m);
  if (d.labels.size() != labels)
    throw InvalidInput(what + "expected " + std::to_string(labels) + " labels, got " +
                       std::to_string(d.labels.size()));
  for (double x : d.features)
    if (!std::isfinite(x)) throw InvalidInput(what + "a feature is not finite");
  for (std::size_t i = 0; i < d.labels.size(); ++i) {
    if (!std::isfinite(d.labels[i])) throw InvalidInput(what + "a label is not finite");
    if (o == Objective::logistic && d.labels[i] != 1.0 && d.labels[i] != -1.0)
      throw InvalidInput(what + "labels must be -1 or +1, example " + std::to_string(i) + " has " +
                         format_double(d.labels[i]));
  }
}

void example_gradient(Objective o, const LocalData& d, std::int64_t i, std::span<const double> theta,
                      std::span<double> out) {
  kernels::convex::example_gradient(static_cast<kernels::convex::Loss>(o), d.x(i).data(),
                                    d.labels.empty() ? 0.0 : d.labels[i], theta.data(), d.dim, out.data());
}

double local_objective(Objective o, const LocalData& d, double l2, node_t v, std::span<const double> theta) {
  double sum = 0;
  for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
    const auto x = d.x(i);
    switch (o) {
      case Objective::quadratic: {
        double s = 0;
        for (int k = 0; k < d.dim; ++k) s += (theta[k] - x[k]) * (theta[k] - x[k]);
        sum += s / 2;
        break;
      }
      case Objective::least_squares: {
        const double r = dot(x, theta) - d.labels[i];
        sum += r * r / 2;
        break;
      }
      case Objective::logistic:
        sum += softplus_negative(d.labels[i] * dot(x, theta));
        break;
    }
  }
  return sum / double(d.size(v)) + l2 / 2 * dot(theta, theta);
}

double global_objective(Objective o, const LocalData& d, double l2, std::span<const double> theta) {
  double sum = 0;
  for (node_t v = 0; v < d.n; ++v) sum += local_objective(o, d, l2, v, theta);
  return sum / d.n;
}

void global_gradient(Objective o, const LocalData& d, double l2, std::span<const double> theta,
                     std::span<double> out) {
  std::vector<double> local(d.dim), g(d.dim);
  std::fill(out.begin(), out.end(), 0.0);
  for (node_t v = 0; v < d.n; ++v) {
    std::fill(local.begin(), local.end(), 0.0);
    for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
      example_gradient(o, d, i, theta, g);
      for (int k = 0; k < d.dim; ++k) local[k] += g[k];
    }
    for (int k = 0; k < d.dim; ++k) out[k] += local[k] / double(d.size(v)) + l2 * theta[k];
  }
  for (auto& x : out) x /= d.n;
}

double accuracy(const LocalData& d, std::span<const double> theta) {
  std::int64_t right = 0;
  for (std::int64_t i = 0; i < d.examples(); ++i)
    right += (dot(d.x(i), theta) >= 0 ? 1.0 : -1.0) == d.labels[i];
  return double(right) / double(d.examples());
}

Optimum objective_optimum(Objective o, const LocalData& d, double l2) {
  validate(d, o);
  if (!(l2 >= 0) || !std::isfinite(l2)) throw InvalidParameter("l2", "l2 must be a finite number >= 0");
  return o == Objective::logistic ? logistic_optimum(d, l2) : quadratic_optimum(o, d, l2);
}

double optimality_gap(Objective o, const LocalData& d, double l2, const Optimum& opt,
                      std::span<const double> theta) {
  if (opt.hessian.empty()) return global_objective(o, d, l2, theta) - opt.value;
  const int p = d.dim;
  double s = 0;
  for (int r = 0; r < p; ++r) {
    double row = 0;
    for (int c = 0; c < p; ++c) row += opt.hessian[r * p + c] * (theta[c] - opt.theta[c]);
    s += (theta[r] - opt.theta[r]) * row;
  }
  return s / 2;
}

}  // namespace netdp
