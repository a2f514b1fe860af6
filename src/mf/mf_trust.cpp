#include "netdp/mf/mf_trust.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/dp/conversion.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/ground/serial_blas.hpp"

namespace netdp::mf {

TrustModel parse_trust(std::string_view text) {
  if (text == "ldp") return TrustModel::ldp;
  if (text == "pndp") return TrustModel::pndp;
  if (text == "observation") return TrustModel::observation;
  if (text == "secldp") return TrustModel::secldp;
  throw InvalidParameter("trust",
                         "trust: expected ldp, pndp, observation or secldp, got '" + std::string(text) + "'");
}

std::string to_string(TrustModel trust) {
  switch (trust) {
    case TrustModel::ldp:
      return "ldp";
    case TrustModel::pndp:
      return "pndp";
    case TrustModel::observation:
      return "observation";
    case TrustModel::secldp:
      return "secldp";
  }
  return "?";
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

std::vector<double> pndp_row(const CsrMatrix& w, const CsrMatrix& w_transpose, std::span<const Matrix> c,
                             std::span<const Matrix> c_inverse, const Participation& p, node_t attacker) {
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
  const bool per_node = c.size() > 1;
  const auto node_matrix = [&](std::span<const Matrix> m, std::int64_t k) -> const Matrix& {
    return per_node ? m[static_cast<std::size_t>(reached[static_cast<std::size_t>(k)])] : m[0];
  };
  if (!c_inverse.empty()) {
    // R (I (x) C^-1): R viewed as (rows nr) x T times the shared C^-1, or block by block with C_u^-1.
    std::vector<double> tmp(r.size());
    if (!per_node)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows * nr), static_cast<int>(T),
                  static_cast<int>(T), 1.0, r.data(), static_cast<int>(T), c_inverse[0].a.data(),
                  static_cast<int>(T), 0.0, tmp.data(), static_cast<int>(T));
    else
      for (std::int64_t k = 0; k < nr; ++k)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(T),
                    static_cast<int>(T), 1.0, r.data() + k * T, static_cast<int>(cols),
                    node_matrix(c_inverse, k).a.data(), static_cast<int>(T), 0.0, tmp.data() + k * T,
                    static_cast<int>(cols));
    r.swap(tmp);
  }
  // An ill-conditioned C overflows here, and LAPACK refuses non-finite input (docs/reliability.md §1).
  for (const double x : r)
    require_finite(x, "the observed messages times C^-1", "use a better-conditioned correlation");
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
  // Y = V_u C_u for every reached victim ((rank nr) x T; one GEMM when C is shared), then X_uu = Y_u^T Y_u.
  std::vector<double> y;
  if (!c_inverse.empty()) {
    y.resize(static_cast<std::size_t>(rank * cols));
    if (!per_node)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rank * nr), static_cast<int>(T),
                  static_cast<int>(T), 1.0, vt.data(), static_cast<int>(T), c[0].a.data(),
                  static_cast<int>(T), 0.0, y.data(), static_cast<int>(T));
    else
      for (std::int64_t k = 0; k < nr; ++k)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rank), static_cast<int>(T),
                    static_cast<int>(T), 1.0, vt.data() + k * T, static_cast<int>(cols),
                    node_matrix(c, k).a.data(), static_cast<int>(T), 0.0, y.data() + k * T,
                    static_cast<int>(cols));
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
                            const std::vector<node_t>& attackers, bool parallel, double secret_ratio) {
  return pairwise_sensitivity(trust, w, std::vector<Matrix>{c}, p, attackers, parallel, secret_ratio);
}

ObservationModel secldp_step_model(const CsrMatrix& w, node_t attacker, double secret_ratio) {
  const std::int64_t n = w.n;
  if (!(secret_ratio >= 0) || !std::isfinite(secret_ratio))
    throw InvalidParameter("secret-ratio",
                           "secret-ratio must be finite and >= 0, got " + format_double(secret_ratio));
  if (n < 2) throw InvalidParameter("graph", "trust secldp needs at least two nodes");
  if (attacker < 0 || attacker >= n)
    throw InvalidParameter("attackers", "attackers: node " + std::to_string(attacker) + " is not in 0.." +
                                            std::to_string(n - 1));
  // One secret per undirected edge {i, j}, i != j, that the attacker does not hold (docs/math.md §9.4).
  std::vector<std::pair<node_t, node_t>> edges;
  for (node_t i = 0; i < n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      const node_t j = w.columns[static_cast<std::size_t>(k)];
      if (j != i && w.values[static_cast<std::size_t>(k)] != 0.0 && i != attacker && j != attacker)
        edges.emplace_back(std::min(i, j), std::max(i, j));
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  const auto m = static_cast<std::int64_t>(edges.size());
  // Row of node u: u's message less what the attacker knows (its own noise and secrets are public terms,
  // so v has no row and its column stays zero).
  const auto row = [attacker](node_t u) { return u < attacker ? u : u - 1; };
  ObservationModel out;
  out.b = Matrix(n - 1, n + m);
  for (node_t u = 0; u < n; ++u)
    if (u != attacker) out.b(row(u), u) = 1.0;
  for (std::int64_t e = 0; e < m; ++e) {  // s_ij = -s_ji: +r in i's message, -r in j's
    out.b(row(edges[static_cast<std::size_t>(e)].first), n + e) = secret_ratio;
    out.b(row(edges[static_cast<std::size_t>(e)].second), n + e) = -secret_ratio;
  }
  out.c = Matrix::identity(n + m);
  out.victims.resize(static_cast<std::size_t>(n));
  for (node_t u = 0; u < n; ++u) out.victims[static_cast<std::size_t>(u)] = {{u}};
  return out;
}

namespace {

/// SecLDP's rows: sqrt(kappa_u) from the generic observation model of one step, times sens_Pi(C_u)
/// (docs/math.md §9.4: the T steps are independent copies, and C_u enters as in LDP).
void secldp_rows(const CsrMatrix& w, const std::vector<Matrix>& c, const Participation& p,
                 const std::vector<node_t>& attackers, bool parallel, double secret_ratio, Matrix& out) {
  const std::int64_t n = w.n, na = static_cast<std::int64_t>(attackers.size());
  std::vector<double> ldp(c.size());
  for (std::size_t u = 0; u < c.size(); ++u) ldp[u] = sensitivity(c[u], p);
  const double inf = std::numeric_limits<double>::infinity();
  if (n == 1) {  // the attacker alone
    std::fill(out.a.begin(), out.a.end(), inf);
    return;
  }
  secldp_step_model(w, attackers.empty() ? 0 : attackers[0], secret_ratio);  // checks before the threads
  std::exception_ptr failure;  // as in the PNDP loop: no exception may leave the OpenMP region
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::int64_t a = 0; a < na; ++a) {
    try {
      const node_t v = attackers[static_cast<std::size_t>(a)];
      // sqrt(kappa_u) for every u (0 for v, whose column is empty).
      const std::vector<double> root_kappa = observation_sensitivity(secldp_step_model(w, v, secret_ratio));
      // kappa is a projector's diagonal entry, at most 1: the clamp removes rounding above LDP's value.
      for (node_t u = 0; u < n; ++u)
        out(a, u) = u == v ? inf
                           : std::min(1.0, root_kappa[static_cast<std::size_t>(u)]) *
                                 ldp[c.size() == 1 ? 0 : static_cast<std::size_t>(u)];
    } catch (...) {
#pragma omp critical(netdp_secldp_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

Matrix pairwise_sensitivity(TrustModel trust, const CsrMatrix& w, const std::vector<Matrix>& c,
                            const Participation& p, const std::vector<node_t>& attackers, bool parallel,
                            double secret_ratio) {
  const std::int64_t n = w.n, T = p.steps();
  if (trust == TrustModel::observation)
    throw InvalidParameter("trust", "trust observation takes its matrices from files, not from a graph");
  if (c.size() != 1 && static_cast<std::int64_t>(c.size()) != n)
    throw InvalidParameter("correlation", "correlation: expected one C or one per node (" +
                                              std::to_string(n) + "), got " + std::to_string(c.size()));
  for (const Matrix& m : c)
    if (m.rows != T || m.cols != T)
      throw InvalidParameter("correlation", "correlation: C must be " + std::to_string(T) + " x " +
                                                std::to_string(T) + ", got " + std::to_string(m.rows) +
                                                " x " + std::to_string(m.cols));
  for (node_t v : attackers)
    if (v < 0 || v >= n)
      throw InvalidParameter(
          "attackers", "attackers: node " + std::to_string(v) + " is not in 0.." + std::to_string(n - 1));
  const auto na = static_cast<std::int64_t>(attackers.size());
  Matrix out(na, n);
  const double inf = std::numeric_limits<double>::infinity();
  const auto is_zero = [](const Matrix& m) {
    return std::all_of(m.a.begin(), m.a.end(), [](double v) { return v == 0.0; });
  };
  if (std::all_of(c.begin(), c.end(), is_zero)) {
    std::fill(out.a.begin(), out.a.end(), inf);
    return out;
  }
  std::vector<Matrix> c_inverse = c;
  for (Matrix& m : c_inverse)
    if (!invert(m))
      throw InvalidParameter("correlation", "correlation: C must be invertible (or 0 for no noise)");
  if (trust == TrustModel::ldp) {
    std::vector<double> s(c.size());
    for (std::size_t u = 0; u < c.size(); ++u) s[u] = sensitivity(c[u], p);
    for (std::int64_t a = 0; a < na; ++a)
      for (std::int64_t u = 0; u < n; ++u) out(a, u) = s[c.size() == 1 ? 0 : static_cast<std::size_t>(u)];
    for (std::int64_t a = 0; a < na; ++a) out(a, attackers[static_cast<std::size_t>(a)]) = inf;
    return out;
  }
  if (trust == TrustModel::secldp) {
    secldp_rows(w, c, p, attackers, parallel, secret_ratio, out);
    return out;
  }
  const Matrix id = Matrix::identity(T);
  if (std::all_of(c.begin(), c.end(), [&](const Matrix& m) { return m.a == id.a; })) c_inverse.clear();
  const std::vector<Matrix> shared = c_inverse.empty() ? std::vector<Matrix>{id} : c;
  const CsrMatrix wt = transpose(w);
  // An exception may not leave an OpenMP region (it would end the program with SIGABRT, exit 134): the first
  // one (an SVD that fails on an overflowed C^-1, memory) is kept and thrown after the loop.
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::int64_t a = 0; a < na; ++a) {
    try {
      const std::vector<double> row =
          pndp_row(w, wt, shared, c_inverse, p, attackers[static_cast<std::size_t>(a)]);
      std::copy(row.begin(), row.end(), out.a.begin() + a * n);
    } catch (...) {
#pragma omp critical(netdp_pndp_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

void validate(const ObservationModel& m, const Matrix* a) {
  const std::int64_t N = m.c.rows;
  if (m.c.rows != m.c.cols)
    throw InvalidParameter("observation-c", "observation-c: C must be square, got " +
                                                std::to_string(m.c.rows) + " x " + std::to_string(m.c.cols));
  if (m.b.cols != N)
    throw InvalidParameter("observation-b", "observation-b: B must have N = " + std::to_string(N) +
                                                " columns (C is N x N), got " + std::to_string(m.b.rows) +
                                                " x " + std::to_string(m.b.cols));
  if (m.b.rows < 1) throw InvalidParameter("observation-b", "observation-b: B has no rows");
  for (const auto& victim : m.victims) {
    if (victim.empty()) throw InvalidParameter("observation-pi", "observation-pi: a victim has no set");
    for (const auto& set : victim)
      for (std::int64_t i : set)
        if (i < 0 || i >= N)
          throw InvalidParameter("observation-pi", "observation-pi: index " + std::to_string(i) +
                                                       " is not a column of C (0.." + std::to_string(N - 1) +
                                                       ")");
  }
  if (!a) return;
  if (a->rows != m.b.rows || a->cols != N)
    throw InvalidParameter("observation-a", "observation-a: A must be " + std::to_string(m.b.rows) + " x " +
                                                std::to_string(N) + " (B's rows x C's columns), got " +
                                                std::to_string(a->rows) + " x " + std::to_string(a->cols));
  const Matrix bc = multiply(m.b, m.c);
  double largest = 0.0, diff = 0.0;
  for (std::size_t i = 0; i < bc.a.size(); ++i) {
    largest = std::max(largest, std::abs(a->a[i]));
    diff = std::max(diff, std::abs(a->a[i] - bc.a[i]));
  }
  if (diff > 1e-9 * (1.0 + largest))
    throw InvalidParameter("observation-a",
                           "observation-a: A must equal B C (the theorem's factorization); max |A - B C| = " +
                               std::to_string(diff));
}

std::vector<std::vector<std::vector<std::int64_t>>> node_major_sets(std::int64_t columns,
                                                                    const Participation& p) {
  const std::int64_t T = p.steps();
  if (columns % T != 0)
    throw InvalidParameter("observation-b", "observation-b: N = " + std::to_string(columns) +
                                                " columns is not a multiple of T = " + std::to_string(T) +
                                                "; give observation-pi");
  std::vector<std::vector<std::vector<std::int64_t>>> victims(static_cast<std::size_t>(columns / T));
  for (std::int64_t u = 0; u < columns / T; ++u)
    for (int j = 0; j < p.batches; ++j) {
      std::vector<std::int64_t> set;
      for (int e = 0; e < p.epochs; ++e) set.push_back(u * T + j + static_cast<std::int64_t>(e) * p.batches);
      victims[static_cast<std::size_t>(u)].push_back(std::move(set));
    }
  return victims;
}

Matrix block_diagonal(const std::vector<Matrix>& c, std::int64_t nodes) {
  const std::int64_t T = c.at(0).rows;
  Matrix out(nodes * T, nodes * T);
  for (std::int64_t u = 0; u < nodes; ++u) {
    const Matrix& m = c.size() == 1 ? c[0] : c.at(static_cast<std::size_t>(u));
    for (std::int64_t i = 0; i < T; ++i)
      for (std::int64_t j = 0; j < T; ++j) out(u * T + i, u * T + j) = m(i, j);
  }
  return out;
}

std::vector<double> observation_sensitivity(const ObservationModel& m) {
  kernels::use_single_threaded_blas();
  const std::int64_t rows = m.b.rows, N = m.b.cols;
  // B^+ B = V_r V_r^T: the right singular vectors of B above numpy's rank tolerance. B row-major is B^T
  // column-major (N x rows): its left singular vectors are the rows of vt below.
  const std::int64_t kmin = std::min(rows, N);
  std::vector<double> r = m.b.a, sv(static_cast<std::size_t>(kmin)), vt(static_cast<std::size_t>(kmin * N)),
                      small(static_cast<std::size_t>(kmin * rows));
  if (LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', static_cast<lapack_int>(N), static_cast<lapack_int>(rows),
                     r.data(), static_cast<lapack_int>(N), sv.data(), vt.data(), static_cast<lapack_int>(N),
                     small.data(), static_cast<lapack_int>(kmin)) != 0)
    throw std::runtime_error("observation: the SVD of B did not converge");
  const double tolerance =
      sv.empty() ? 0.0
                 : sv[0] * static_cast<double>(std::max(rows, N)) * std::numeric_limits<double>::epsilon();
  std::int64_t rank = 0;
  while (rank < kmin && sv[static_cast<std::size_t>(rank)] > tolerance) ++rank;
  // Y = V_r^T C (rank x N); X = Y^T Y, needed only on each set's entries.
  Matrix v(rank, N);
  std::copy(vt.begin(), vt.begin() + rank * N, v.a.begin());
  const Matrix y = multiply(v, m.c);
  std::vector<double> out;
  for (const auto& victim : m.victims) {
    double best = 0.0;
    for (const auto& set : victim) {
      double sum = 0.0;
      for (std::int64_t s : set)
        for (std::int64_t t : set) {
          double x = 0.0;
          for (std::int64_t k = 0; k < rank; ++k) x += y(k, s) * y(k, t);
          sum += std::abs(x);
        }
      best = std::max(best, sum);
    }
    out.push_back(std::sqrt(best));
  }
  return out;
}

EpsilonConversion parse_conversion(std::string_view text) {
  if (text == "gdp") return EpsilonConversion::gdp;
  if (text == "rdp") return EpsilonConversion::rdp;
  if (text == "rdp-classic") return EpsilonConversion::rdp_classic;
  throw InvalidParameter("conversion",
                         "conversion: expected gdp, rdp or rdp-classic, got '" + std::string(text) + "'");
}

std::string to_string(EpsilonConversion c) {
  switch (c) {
    case EpsilonConversion::gdp:
      return "gdp";
    case EpsilonConversion::rdp:
      return "rdp";
    case EpsilonConversion::rdp_classic:
      return "rdp-classic";
  }
  return "?";
}

double epsilon_of_sensitivity(double sens, double sigma, double delta, EpsilonConversion c) {
  if (std::isinf(sens)) return sens;
  if (sens == 0.0) return 0.0;
  const double mu = sens / sigma;
  switch (c) {
    case EpsilonConversion::gdp:
      return dp::gdp_epsilon(mu, delta);
    case EpsilonConversion::rdp: {
      dp::RdpCurve curve;
      curve.orders = dp::default_rdp_orders();
      for (double alpha : curve.orders) curve.epsilons.push_back(dp::gdp_rdp(alpha, mu));
      return dp::rdp_curve_to_epsilon(curve, delta).value;
    }
    case EpsilonConversion::rdp_classic:
      return dp::linear_rdp_to_epsilon(mu * mu / 2, delta).epsilon;
  }
  return sens;
}

}  // namespace netdp::mf
