#include "netdp/mf/mf_correlation.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <string>

#include "core/progress.hpp"
#include "netdp/ground/serial_blas.hpp"
#include "netdp/core/error.hpp"

namespace netdp::mf {

CorrelationSpec parse_correlation(std::string_view text) {
  CorrelationSpec spec;
  const std::string_view file_prefix = "file:";
  if (text.substr(0, file_prefix.size()) == file_prefix) {
    spec.kind = CorrelationKind::file;
    spec.path = std::string(text.substr(file_prefix.size()));
    if (spec.path.empty()) throw InvalidParameter("correlation", "correlation file: needs a path");
    return spec;
  }
  for (CorrelationKind k : {CorrelationKind::none, CorrelationKind::ldp, CorrelationKind::antipgd,
                            CorrelationKind::sr, CorrelationKind::bsr, CorrelationKind::dmf,
                            CorrelationKind::optimal, CorrelationKind::mafalda, CorrelationKind::mafalda_l})
    if (text == to_string(k)) {
      spec.kind = k;
      return spec;
    }
  throw InvalidParameter(
      "correlation",
      "correlation: expected none, ldp, antipgd, sr, bsr, dmf, optimal, mafalda, mafalda-l or file:PATH, "
      "got '" +
          std::string(text) + "'");
}

std::string to_string(CorrelationKind kind) {
  switch (kind) {
    case CorrelationKind::none:
      return "none";
    case CorrelationKind::ldp:
      return "ldp";
    case CorrelationKind::antipgd:
      return "antipgd";
    case CorrelationKind::sr:
      return "sr";
    case CorrelationKind::bsr:
      return "bsr";
    case CorrelationKind::dmf:
      return "dmf";
    case CorrelationKind::optimal:
      return "optimal";
    case CorrelationKind::mafalda:
      return "mafalda";
    case CorrelationKind::mafalda_l:
      return "mafalda-l";
    case CorrelationKind::file:
      return "file";
  }
  return "?";
}

std::string display_name(CorrelationKind kind) {
  switch (kind) {
    case CorrelationKind::none:
      return "Unnoised baseline";
    case CorrelationKind::ldp:
      return "DP-D-SGD";
    case CorrelationKind::antipgd:
      return "ANTIPGD";
    case CorrelationKind::sr:
      return "SR";
    case CorrelationKind::bsr:
      return "BSR";
    case CorrelationKind::dmf:
      return "D-MF";
    case CorrelationKind::optimal:
      return "Optimal (Message Loss)";
    case CorrelationKind::mafalda:
      return "MAFALDA-SGD";
    case CorrelationKind::mafalda_l:
      return "MAFALDA-L-SGD";
    case CorrelationKind::file:
      return "user-supplied";
  }
  return "?";
}

std::vector<double> sr_coefficients(int count) {
  std::vector<double> y(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0) y[0] = 1.0;
  for (int k = 1; k < count; ++k) {
    double sum = 0.0;
    for (int j = 1; j < k; ++j) sum += y[j] * y[k - j];
    y[k] = (1.0 - sum) / 2.0;
  }
  return y;
}

Matrix toeplitz(const std::vector<double>& column, int band, bool symmetric) {
  const auto n = static_cast<std::int64_t>(column.size());
  Matrix m(n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t d = i - j;
      if (d < 0 && !symmetric) continue;
      const std::int64_t lag = std::abs(d);
      if (band > 0 && lag >= band) continue;
      m(i, j) = column[static_cast<std::size_t>(lag)];
    }
  return m;
}

namespace {

/// Lower Cholesky factor of a symmetric matrix in place (upper triangle zeroed); false unless positive
/// definite.
bool cholesky_lower(Matrix& a) {
  kernels::use_single_threaded_blas();
  const auto n = static_cast<lapack_int>(a.rows);
  if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, a.a.data(), n) != 0) return false;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = i + 1; j < a.cols; ++j) a(i, j) = 0.0;
  return true;
}

/// P A P (P the anti-diagonal permutation).
Matrix reverse_both(const Matrix& a) {
  Matrix r(a.rows, a.cols);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j) r(i, j) = a(a.rows - 1 - i, a.cols - 1 - j);
  return r;
}

/// Projects a direction onto the constraint set's tangent space (§9.6): zero the masked entries (i != j,
/// i = j mod b) and subtract, in every residue class, the mean of its diagonal entries.
void project(Matrix& d, const Participation& p) {
  const int b = p.batches, k = p.epochs;
  for (int j = 0; j < b; ++j) {
    double mean = 0.0;
    for (int e = 0; e < k; ++e) mean += d(j + e * b, j + e * b);
    mean /= k;
    for (int e = 0; e < k; ++e) {
      d(j + e * b, j + e * b) -= mean;
      for (int f = 0; f < k; ++f)
        if (f != e) d(j + e * b, j + f * b) = 0.0;
    }
  }
}

/// tr(G X^-1) and the projected gradient -X^-1 G X^-1; false when X is not positive definite or the loss is
/// not finite.
bool loss_and_gradient(const Matrix& x, const Matrix& gram, const Participation& p, double& loss,
                       Matrix& grad) {
  Matrix inv = x;
  const auto n = static_cast<lapack_int>(x.rows);
  kernels::use_single_threaded_blas();
  if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, inv.a.data(), n) != 0) return false;
  if (LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', n, inv.a.data(), n) != 0) return false;
  for (std::int64_t i = 0; i < inv.rows; ++i)
    for (std::int64_t j = i + 1; j < inv.cols; ++j) inv(i, j) = inv(j, i);
  double sum = 0.0;
  for (std::size_t i = 0; i < inv.a.size(); ++i) sum += inv.a[i] * gram.a[i];
  if (!std::isfinite(sum)) return false;
  Matrix g = multiply(multiply(inv, gram), inv);
  for (double& v : g.a) v = -v;
  if (!std::all_of(g.a.begin(), g.a.end(), [](double v) { return std::isfinite(v); })) return false;
  project(g, p);
  loss = sum;
  grad = std::move(g);
  return true;
}

double dot(const Matrix& a, const Matrix& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.a.size(); ++i) s += a.a[i] * b.a[i];
  return s;
}

}  // namespace

Matrix surrogate_gram(const Matrix& gram) {
  Matrix s = reverse_both(gram);
  if (!cholesky_lower(s)) throw InvalidInput("the workload Gram is not positive definite (surrogate code)");
  // The reference takes the upper factor U = L^T of P G P (scipy's default) as S: S^T S = L L^T = P G P.
  return multiply(s, s, false, true);
}

Matrix factor_from_gram(const Matrix& x) {
  Matrix l = reverse_both(x);
  if (!cholesky_lower(l)) throw InvalidInput("X = C^T C is not positive definite");
  const std::int64_t n = x.rows;
  Matrix c(n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) c(i, j) = l(n - 1 - j, n - 1 - i);
  return c;
}

// docs/math.md §9.6: projected gradient with the one-memory L-BFGS direction, step 1 divided by 4 up to 30
// times until the loss decreases, stop when max |dX| <= 1e-8.
OptimizeResult optimize_factorization(const Matrix& gram, const Participation& p, int max_iterations) {
  const int T = p.steps();
  if (gram.rows != T || gram.cols != T)
    throw InvalidInput("optimize_factorization: the Gram must be T x T with T = b k");
  Matrix x = Matrix::identity(T);
  for (double& v : x.a) v /= p.epochs;
  double loss = 0.0;
  Matrix dx;
  if (!loss_and_gradient(x, gram, p, loss, dx)) throw InvalidInput("optimize_factorization: bad start");
  Matrix z = dx;
  OptimizeResult result;
  bool converged = false;
  for (int it = 0; it < max_iterations && !converged; ++it) {
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
    result.iterations = it + 1;
    const Matrix x1 = x, dx1 = dx;
    const double loss1 = loss;
    double step = 1.0;
    bool decreased = false;
    for (int trial = 0; trial < 30 && !decreased; ++trial) {
      Matrix trial_x = x1;
      for (std::size_t i = 0; i < trial_x.a.size(); ++i) trial_x.a[i] -= step * z.a[i];
      double trial_loss = 0.0;
      Matrix trial_dx;
      if (loss_and_gradient(trial_x, gram, p, trial_loss, trial_dx) && trial_loss < loss1) {
        x = std::move(trial_x), dx = std::move(trial_dx), loss = trial_loss;
        decreased = true;
      } else {
        step *= 0.25;
      }
    }
    // No decrease in 30 trials: X1 is stationary to working precision along the direction.
    if (!decreased) break;
    double largest = 0.0;
    for (double v : dx.a) largest = std::max(largest, std::abs(v));
    if (largest <= 1e-8) {
      converged = true;
      break;
    }
    Matrix s = x, y = dx;
    for (std::size_t i = 0; i < s.a.size(); ++i) s.a[i] -= x1.a[i], y.a[i] -= dx1.a[i];
    const double rho = 1.0 / dot(y, s);
    const double alpha = rho * dot(s, dx);
    const double gamma = dot(s, y) / dot(y, y);
    for (std::size_t i = 0; i < z.a.size(); ++i) z.a[i] = gamma * (dx.a[i] - alpha * y.a[i]);
    const double beta = rho * dot(y, z);
    for (std::size_t i = 0; i < z.a.size(); ++i) z.a[i] += s.a[i] * (alpha - beta);
    if (result.iterations == max_iterations)
      throw InvalidInput("the MAFALDA optimiser did not converge in " + std::to_string(max_iterations) +
                         " iterations (max-iterations)");
  }
  // Restore exact feasibility (rounding drifts the class sums by ulps) and symmetry.
  for (std::int64_t i = 0; i < T; ++i)
    for (std::int64_t j = 0; j < i; ++j) x(i, j) = x(j, i) = 0.5 * (x(i, j) + x(j, i));
  for (int j = 0; j < p.batches; ++j) {
    double sum = 0.0;
    for (int e = 0; e < p.epochs; ++e) sum += x(j + e * p.batches, j + e * p.batches);
    for (int e = 0; e < p.epochs; ++e) x(j + e * p.batches, j + e * p.batches) /= sum;
  }
  result.objective = loss;
  result.converged = converged;
  result.c = factor_from_gram(x);
  result.x = std::move(x);
  return result;
}

Matrix correlation_matrix(const CorrelationSpec& spec, const Participation& p, const CsrMatrix* w,
                          int* iterations, bool* converged) {
  const int T = p.steps();
  if (iterations) *iterations = 0;
  const auto optimised = [&](Matrix gram) {
    if (spec.surrogate == Surrogate::code) gram = surrogate_gram(gram);
    OptimizeResult r = optimize_factorization(gram, p, spec.max_iterations);
    if (iterations) *iterations = r.iterations;
    if (converged) *converged = r.converged;
    return r.c;
  };
  const auto need_w = [&]() -> const CsrMatrix& {
    if (!w) throw InvalidParameter("correlation", "correlation " + to_string(spec.kind) + " needs a graph");
    return *w;
  };
  switch (spec.kind) {
    case CorrelationKind::none:
      return Matrix(T, T);
    case CorrelationKind::ldp:
      return Matrix::identity(T);
    case CorrelationKind::antipgd:
      return prefix_sum(T);
    case CorrelationKind::sr:
      return toeplitz(sr_coefficients(T), 0, spec.symmetric_toeplitz);
    case CorrelationKind::bsr:
      return toeplitz(sr_coefficients(T), spec.band > 0 ? spec.band : p.batches, spec.symmetric_toeplitz);
    case CorrelationKind::dmf: {
      const Matrix a = prefix_sum(T);
      return optimised(multiply(a, a, true, false));
    }
    case CorrelationKind::optimal:
      return optimised(workload_gram(need_w(), T, 0, true));
    case CorrelationKind::mafalda:
      return optimised(workload_gram(need_w(), T, 1, true));
    case CorrelationKind::mafalda_l:
      throw InvalidParameter("correlation", "correlation mafalda-l has one C per node, not one C_local");
    case CorrelationKind::file: {
      Matrix c = read_npy_matrix(spec.path, "correlation");
      if (c.rows != T || c.cols != T)
        throw InvalidParameter("correlation", "correlation " + spec.path + ": expected a " +
                                                  std::to_string(T) + " x " + std::to_string(T) +
                                                  " matrix, got " + std::to_string(c.rows) + " x " +
                                                  std::to_string(c.cols));
      return c;
    }
  }
  return Matrix::identity(T);
}

double workload_error(const Matrix& gram, const Matrix& c) {
  if (std::all_of(c.a.begin(), c.a.end(), [](double v) { return v == 0.0; }))
    return std::numeric_limits<double>::infinity();
  kernels::use_single_threaded_blas();
  Matrix inv = c;
  const auto n = static_cast<lapack_int>(c.rows);
  std::vector<lapack_int> pivots(static_cast<std::size_t>(n));
  if (LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, inv.a.data(), n, pivots.data()) != 0 ||
      LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, inv.a.data(), n, pivots.data()) != 0)
    return std::numeric_limits<double>::infinity();
  return dot(multiply(gram, inv), inv);
}

std::vector<OptimizeResult> optimize_per_node(const std::vector<Matrix>& grams, const Participation& p,
                                              int max_iterations, bool parallel) {
  std::vector<OptimizeResult> out(grams.size());
  std::string error;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::size_t u = 0; u < grams.size(); ++u) {
    try {
      out[u] = optimize_factorization(grams[u], p, max_iterations);
    } catch (const std::exception& e) {
#pragma omp critical(netdp_mf_optimize_per_node)
      if (error.empty()) error = "node " + std::to_string(u) + ": " + e.what();
    }
  }
  throw_if_stopped();  // a stop, not the nodes' error it caused
  if (!error.empty()) throw InvalidInput(error);
  return out;
}

Matrix stack_rows(const std::vector<Matrix>& c) {
  if (c.empty()) return Matrix();
  Matrix out(c[0].rows * static_cast<std::int64_t>(c.size()), c[0].cols);
  for (std::size_t u = 0; u < c.size(); ++u)
    std::copy(c[u].a.begin(), c[u].a.end(), out.a.begin() + static_cast<std::ptrdiff_t>(u * c[u].a.size()));
  return out;
}

std::vector<Matrix> correlation_matrices(const CorrelationSpec& spec, const Participation& p,
                                         const CsrMatrix* w, int* iterations, bool* converged) {
  const int T = p.steps();
  if (spec.kind == CorrelationKind::mafalda_l) {
    if (!w) throw InvalidParameter("correlation", "correlation mafalda-l needs a graph");
    std::vector<Matrix> grams = node_workload_grams(*w, T, 1, true);
    if (spec.surrogate == Surrogate::code)
      for (Matrix& g : grams) g = surrogate_gram(g);
    const std::vector<OptimizeResult> r = optimize_per_node(grams, p, spec.max_iterations, true);
    std::vector<Matrix> c;
    int most = 0;
    bool all = true;
    for (const OptimizeResult& x : r) {
      c.push_back(x.c);
      most = std::max(most, x.iterations);
      all = all && x.converged;
    }
    if (iterations) *iterations = most;
    if (converged) *converged = all;
    return c;
  }
  if (spec.kind == CorrelationKind::file) {
    const Matrix m = read_npy_matrix(spec.path, "correlation");
    const std::int64_t n = w ? w->n : 0;
    if (iterations) *iterations = 0;
    if (m.cols == T && m.rows == T) return {m};
    if (m.cols == T && n > 0 && m.rows == n * T) {
      std::vector<Matrix> c(static_cast<std::size_t>(n), Matrix(T, T));
      for (std::int64_t u = 0; u < n; ++u)
        std::copy(m.a.begin() + u * T * T, m.a.begin() + (u + 1) * T * T,
                  c[static_cast<std::size_t>(u)].a.begin());
      return c;
    }
    throw InvalidParameter(
        "correlation",
        "correlation " + spec.path + ": expected a " + std::to_string(T) + " x " + std::to_string(T) +
            " matrix" +
            (n > 0 ? " or " + std::to_string(n * T) + " x " + std::to_string(T) + " (one per node)"
                   : std::string()) +
            ", got " + std::to_string(m.rows) + " x " + std::to_string(m.cols));
  }
  return {correlation_matrix(spec, p, w, iterations, converged)};
}

}  // namespace netdp::mf
