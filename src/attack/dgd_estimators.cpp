// The D-GD gradient estimators (docs/math.md §7.3 "Estimators"): OLS as the minimum-norm least-squares
// solution (pseudo-inverse, NumPy's lstsq cut-off), GLS whitened by the pseudo-inverse square root of the
// noise covariance of Algorithm A.1 (which handles a singular covariance), and each one's variance.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "netdp/ground/serial_blas.hpp"
#include "netdp/attack/attack_dgd.hpp"

namespace netdp::attack {
namespace {

std::size_t idx(int i) {
  return static_cast<std::size_t>(i);
}

// c = a b (rows x inner) (inner x cols), row-major.
std::vector<double> product(const std::vector<double>& a, const std::vector<double>& b, int rows, int inner,
                            int cols) {
  kernels::use_single_threaded_blas();  // the same bits for any OpenBLAS thread count (netdp/ground/serial_blas.hpp)
  std::vector<double> c(idx(rows) * idx(cols), 0.0);
  if (rows && inner && cols)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, cols, inner, 1.0, a.data(), inner, b.data(),
                cols, 0.0, c.data(), cols);
  return c;
}

// The pseudo-inverse (cols x rows) of a rows x cols matrix, singular values below s_max max(rows, cols) eps
// treated as zero (numpy.linalg.lstsq's default, the reference code's estimator).
std::vector<double> pseudo_inverse(std::vector<double> a, int rows, int cols) {
  kernels::use_single_threaded_blas();
  const int r = std::min(rows, cols);
  std::vector<double> s(idx(r)), u(idx(rows) * idx(r)), vt(idx(r) * idx(cols));
  const lapack_int info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', rows, cols, a.data(), cols, s.data(),
                                         u.data(), r, vt.data(), cols);
  if (info != 0) throw std::runtime_error("attack dgd: dgesdd failed (info " + std::to_string(info) + ")");
  const double cut =
      (s.empty() ? 0 : s.front()) * std::max(rows, cols) * std::numeric_limits<double>::epsilon();
  // A^+ = V S^+ U^T: scale the rows of V^T, then (S^+ V^T)^T U^T.
  for (int i = 0; i < r; ++i) {
    const double inv = s[idx(i)] > cut ? 1.0 / s[idx(i)] : 0.0;
    for (int j = 0; j < cols; ++j) vt[idx(i) * idx(cols) + idx(j)] *= inv;
  }
  std::vector<double> out(idx(cols) * idx(rows), 0.0);
  if (r > 0)
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasTrans, cols, rows, r, 1.0, vt.data(), cols, u.data(), r, 0.0,
                out.data(), rows);
  return out;
}

// Sigma^{+1/2}: V diag(lambda^{-1/2}) V^T over the eigenvalues above lambda_max m eps.
std::vector<double> inverse_square_root(std::vector<double> sigma, int m) {
  kernels::use_single_threaded_blas();
  std::vector<double> lambda(idx(m));
  const lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', m, sigma.data(), m, lambda.data());
  if (info != 0) throw std::runtime_error("attack dgd: dsyevd failed (info " + std::to_string(info) + ")");
  const double top = lambda.empty() ? 0 : std::max(0.0, lambda.back());
  const double cut = top * m * std::numeric_limits<double>::epsilon();
  std::vector<double> scaled(sigma);  // columns of V scaled by lambda^{-1/2}
  for (int j = 0; j < m; ++j) {
    const double f = lambda[idx(j)] > cut ? 1.0 / std::sqrt(lambda[idx(j)]) : 0.0;
    for (int i = 0; i < m; ++i) scaled[idx(i) * idx(m) + idx(j)] *= f;
  }
  std::vector<double> out(idx(m) * idx(m), 0.0);
  if (m > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, m, m, 1.0, scaled.data(), m, sigma.data(), m, 0.0,
                out.data(), m);
  return out;
}

// diag(M Sigma M^T) for M (c x m).
std::vector<double> variance(const std::vector<double>& mat, const std::vector<double>& sigma, int c, int m) {
  const std::vector<double> ms = product(mat, sigma, c, m, m);
  std::vector<double> out(idx(c), 0.0);
  for (int i = 0; i < c; ++i) {
    double sum = 0;
    for (int j = 0; j < m; ++j) sum += ms[idx(i) * idx(m) + idx(j)] * mat[idx(i) * idx(m) + idx(j)];
    out[idx(i)] = std::max(0.0, sum);
  }
  return out;
}

}  // namespace

DgdEstimator dgd_estimator(const DgdKnowledge& k, int t) {
  if (t < 1 || t > k.steps) throw std::invalid_argument("attack dgd: prefix t out of range");
  const int m = k.rows_after(t), c = static_cast<int>(k.targets.size());
  const std::vector<double> kt(k.matrix.begin(),
                               k.matrix.begin() + static_cast<std::ptrdiff_t>(idx(m) * idx(c)));
  std::vector<double> sigma(idx(m) * idx(m));
  const std::size_t full = idx(k.rows);
  for (int i = 0; i < m; ++i)
    std::copy_n(k.covariance.data() + idx(i) * full, idx(m), sigma.data() + idx(i) * idx(m));
  DgdEstimator e;
  e.t = t, e.rows = m, e.targets = c;
  e.ols = pseudo_inverse(kt, m, c);
  e.ols_variance = variance(e.ols, sigma, c, m);
  const std::vector<double> root = inverse_square_root(sigma, m);
  e.gls = product(pseudo_inverse(product(root, kt, m, m, c), m, c), root, c, m, m);
  e.gls_variance = variance(e.gls, sigma, c, m);
  return e;
}

DgdEstimate estimate_gradients(const DgdEstimator& m, std::span<const double> y_hat, int dim) {
  const std::vector<double> y(y_hat.begin(),
                              y_hat.begin() + static_cast<std::ptrdiff_t>(idx(m.rows) * idx(dim)));
  return {product(m.ols, y, m.targets, m.rows, dim), product(m.gls, y, m.targets, m.rows, dim)};
}

}  // namespace netdp::attack
