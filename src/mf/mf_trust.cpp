#include "netdp/mf/mf_trust.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "cpu/serial_blas.hpp"
#include "netdp/core/error.hpp"

namespace netdp::mf {

TrustModel parse_trust(std::string_view text) {
  if (text == "ldp") return TrustModel::ldp;
  if (text == "pndp") return TrustModel::pndp;
  throw InvalidParameter("trust", "trust: expected ldp or pndp, got '" + std::string(text) + "'");
}

std::string to_string(TrustModel trust) {
  return trust == TrustModel::ldp ? "ldp" : "pndp";
}

bool invert(Matrix& c) {
  kernels::use_single_threaded_blas();
  const auto n = static_cast<lapack_int>(c.rows);
  std::vector<lapack_int> pivots(static_cast<std::size_t>(n));
  if (LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, c.a.data(), n, pivots.data()) != 0) return false;
  return LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, c.a.data(), n, pivots.data()) == 0;
}

CsrMatrix transpose(const CsrMatrix& w) {
  std::vector<Triplet> triplets;
  triplets.reserve(static_cast<std::size_t>(w.nnz()));
  for (node_t i = 0; i < w.n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
      triplets.push_back({w.columns[static_cast<std::size_t>(k)], i, w.values[static_cast<std::size_t>(k)]});
  return csr_from_triplets(w.n, std::move(triplets));
}

std::vector<double> pndp_row(const CsrMatrix& w, const CsrMatrix& w_transpose, const Matrix& c,
                             const Matrix& c_inverse, const Participation& p, node_t attacker) {
  const std::int64_t n = w.n, T = p.steps();
  std::vector<double> row(static_cast<std::size_t>(n), 0.0);
  row[static_cast<std::size_t>(attacker)] = std::numeric_limits<double>::infinity();
  // The observed nodes: {w : W_vw > 0} and v itself (docs/math.md §9.4).
  std::vector<node_t> seen{attacker};
  for (offset_t k = w.offsets[attacker]; k < w.offsets[attacker + 1]; ++k)
    if (w.values[static_cast<std::size_t>(k)] > 0) seen.push_back(w.columns[static_cast<std::size_t>(k)]);
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  const auto m0 = static_cast<std::int64_t>(seen.size());
  // q[t] = (P_v W^t)^T, n x m0 row-major: q[t](u, i) = (W^t)_{seen_i, u}.
  std::vector<double> q(static_cast<std::size_t>(T * n * m0), 0.0);
  for (std::int64_t i = 0; i < m0; ++i) q[static_cast<std::size_t>(seen[i] * m0 + i)] = 1.0;
  for (std::int64_t t = 1; t < T; ++t)
    csr_multiply(w_transpose, q.data() + (t - 1) * n * m0, q.data() + t * n * m0, m0, false);
  // Victims the messages reach (v excluded: its own noise is known, so its columns leave the projector).
  std::vector<node_t> reached;
  for (node_t u = 0; u < n; ++u) {
    if (u == attacker) continue;
    bool any = false;
    for (std::int64_t t = 0; t < T && !any; ++t)
      for (std::int64_t i = 0; i < m0 && !any; ++i)
        any = q[static_cast<std::size_t>((t * n + u) * m0 + i)] != 0.0;
    if (any) reached.push_back(u);
  }
  const auto nr = static_cast<std::int64_t>(reached.size());
  if (nr == 0) return row;
  // R: the observed message rows (t, i) over the reached victims' columns (node-major, u T + s):
  // R[(t, i), (u, s)] = (W^{t-s})_{seen_i, u} for s <= t.
  const std::int64_t rows = T * m0, cols = nr * T;
  std::vector<double> r(static_cast<std::size_t>(rows * cols), 0.0);
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t i = 0; i < m0; ++i) {
      double* out = r.data() + (t * m0 + i) * cols;
      for (std::int64_t k = 0; k < nr; ++k)
        for (std::int64_t s = 0; s <= t; ++s)
          out[k * T + s] =
              q[static_cast<std::size_t>(((t - s) * n + reached[static_cast<std::size_t>(k)]) * m0 + i)];
    }
  kernels::use_single_threaded_blas();
  if (!c_inverse.a.empty()) {
    // R (I (x) C^-1): R viewed as (rows nr) x T, times C^-1.
    std::vector<double> tmp(r.size());
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows * nr), static_cast<int>(T),
                static_cast<int>(T), 1.0, r.data(), static_cast<int>(T), c_inverse.a.data(),
                static_cast<int>(T), 0.0, tmp.data(), static_cast<int>(T));
    r.swap(tmp);
  }
  // Orthonormal basis of R's row space: the right singular vectors above numpy's rank tolerance. R row-major
  // is R^T column-major (cols x rows, tall): its left singular vectors, column-major, are the basis vectors
  // one after the other, i.e. vt row-major (kmin x cols), with no transposed copy.
  const std::int64_t kmin = std::min(rows, cols);
  std::vector<double> sv(static_cast<std::size_t>(kmin)), vt(static_cast<std::size_t>(kmin * cols)),
      small(static_cast<std::size_t>(kmin * rows));
  if (LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', static_cast<lapack_int>(cols), static_cast<lapack_int>(rows),
                     r.data(), static_cast<lapack_int>(cols), sv.data(), vt.data(),
                     static_cast<lapack_int>(cols), small.data(), static_cast<lapack_int>(kmin)) != 0)
    throw std::runtime_error("pndp: the SVD of the observed messages did not converge");
  std::vector<double>().swap(r);
  const double tolerance =
      sv.empty() ? 0.0
                 : sv[0] * static_cast<double>(std::max(rows, cols)) * std::numeric_limits<double>::epsilon();
  std::int64_t rank = 0;
  while (rank < kmin && sv[static_cast<std::size_t>(rank)] > tolerance) ++rank;
  if (rank == 0) return row;
  // Y = V_u C for every reached victim at once ((rank nr) x T), then X_uu = Y_u^T Y_u.
  std::vector<double> y;
  if (c.rows == T && !c_inverse.a.empty()) {
    y.resize(static_cast<std::size_t>(rank * cols));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rank * nr), static_cast<int>(T),
                static_cast<int>(T), 1.0, vt.data(), static_cast<int>(T), c.a.data(), static_cast<int>(T),
                0.0, y.data(), static_cast<int>(T));
  }
  const double* basis = y.empty() ? vt.data() : y.data();
  Matrix x(T, T);
  for (std::int64_t k = 0; k < nr; ++k) {
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, static_cast<int>(T), static_cast<int>(rank), 1.0,
                basis + k * T, static_cast<int>(cols), 0.0, x.a.data(), static_cast<int>(T));
    for (std::int64_t i = 0; i < T; ++i)
      for (std::int64_t j = 0; j < i; ++j) x(i, j) = x(j, i);
    row[static_cast<std::size_t>(reached[static_cast<std::size_t>(k)])] =
        std::sqrt(sensitivity_squared(x, p));
  }
  return row;
}

Matrix pairwise_sensitivity(TrustModel trust, const CsrMatrix& w, const Matrix& c, const Participation& p,
                            const std::vector<node_t>& attackers, bool parallel) {
  const std::int64_t n = w.n, T = p.steps();
  if (c.rows != T || c.cols != T)
    throw InvalidParameter("correlation", "correlation: C must be " + std::to_string(T) + " x " +
                                              std::to_string(T) + ", got " + std::to_string(c.rows) + " x " +
                                              std::to_string(c.cols));
  for (node_t v : attackers)
    if (v < 0 || v >= n)
      throw InvalidParameter(
          "attackers", "attackers: node " + std::to_string(v) + " is not in 0.." + std::to_string(n - 1));
  const auto na = static_cast<std::int64_t>(attackers.size());
  Matrix out(na, n);
  const double inf = std::numeric_limits<double>::infinity();
  if (std::all_of(c.a.begin(), c.a.end(), [](double v) { return v == 0.0; })) {
    std::fill(out.a.begin(), out.a.end(), inf);
    return out;
  }
  Matrix c_inverse = c;
  if (!invert(c_inverse))
    throw InvalidParameter("correlation", "correlation: C must be invertible (or 0 for no noise)");
  if (trust == TrustModel::ldp) {
    const double s = sensitivity(c, p);
    std::fill(out.a.begin(), out.a.end(), s);
    for (std::int64_t a = 0; a < na; ++a) out(a, attackers[static_cast<std::size_t>(a)]) = inf;
    return out;
  }
  const bool identity = [&] {
    const Matrix id = Matrix::identity(T);
    return c.a == id.a;
  }();
  if (identity) c_inverse = Matrix();
  const CsrMatrix wt = transpose(w);
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::int64_t a = 0; a < na; ++a) {
    const std::vector<double> row = pndp_row(w, wt, c, c_inverse, p, attackers[static_cast<std::size_t>(a)]);
    std::copy(row.begin(), row.end(), out.a.begin() + a * n);
  }
  return out;
}

}  // namespace netdp::mf
