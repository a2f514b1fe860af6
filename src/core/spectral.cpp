#include "netdp/core/spectral.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>

#include "netdp/ground/serial_blas.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp {
namespace {

constexpr node_t kDenseLimit = 1024;      // spectral_summary uses dense LAPACK up to this n
constexpr int kMaxLanczosSteps = 3000;    // beyond min(n - 1, this) Lanczos gives up
constexpr double kRitzTolerance = 1e-10;  // |beta_k s_{k,i}| below this for both extreme Ritz values
constexpr double kSymmetryTolerance = 1e-9;

// The eigenvalue routines read one triangle only; a non-symmetric W would silently give wrong numbers.
void require_symmetric(const CsrMatrix& w, const char* who) {
  if (w.offsets.size() != static_cast<std::size_t>(w.n) + 1)
    throw InvalidInput(std::string(who) + ": CSR offsets must have n + 1 entries");
  for (node_t i = 0; i < w.n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      const node_t j = w.columns[k];
      if (!(std::abs(w.values[k] - w.at(j, i)) <= kSymmetryTolerance))
        throw InvalidInput(std::string(who) + " needs a symmetric W, but entry (" + std::to_string(i) + ", " +
                           std::to_string(j) + ") differs from its transpose");
    }
}

// y = W x; rows in parallel for large n.
void multiply(const CsrMatrix& w, const double* x, double* y) {
  csr_multiply(w, x, y, 1, w.n >= 4096);
}

// Deterministic start vector (splitmix64 of the index): no structure that could hide an eigenvector.
double start_entry(std::uint64_t i) {
  std::uint64_t z = i * 0x9e3779b97f4a7c15ULL + 0x6a09e667f3bcc909ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53 - 0.5;
}

// v -= Q Q^T v twice over the first `columns` basis vectors (classical Gram-Schmidt, "twice is enough");
// returns the total coefficient on the last column.
double orthogonalise(const std::vector<double>& basis, int columns, std::size_t n, double* v, double* h) {
  double last = 0;
  for (int pass = 0; pass < 2; ++pass) {
    cblas_dgemv(CblasColMajor, CblasTrans, int(n), columns, 1.0, basis.data(), int(n), v, 1, 0.0, h, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, int(n), columns, -1.0, basis.data(), int(n), h, 1, 1.0, v, 1);
    last += h[columns - 1];
  }
  return last;
}

struct RitzPair {
  double value = 0, last_component = 0;
};

// The index-th (1-based, ascending) eigenpair of the symmetric tridiagonal matrix (alpha, beta); only the
// last component of its eigenvector is kept, as the residual estimate needs nothing else.
RitzPair tridiagonal_eigenpair(const std::vector<double>& alpha, const std::vector<double>& beta, int index) {
  const int m = static_cast<int>(alpha.size());
  std::vector<double> d(alpha), e(beta), values(m), vector(m);
  e.resize(std::max(m, 1));
  std::vector<lapack_int> support(2);
  lapack_int found = 0;
  lapack_int info =
      LAPACKE_dstevr(LAPACK_COL_MAJOR, 'V', 'I', m, d.data(), e.data(), 0.0, 0.0, index, index,
                     2 * LAPACKE_dlamch('S'), &found, values.data(), vector.data(), m, support.data());
  if (info != 0 || found != 1)
    throw std::runtime_error("Lanczos: LAPACKE_dstevr failed (info " + std::to_string(info) + ")");
  return {values[0], vector[m - 1]};
}

// Lanczos with full re-orthogonalisation in the complement of the all-ones vector: 1/sqrt(n) is column 0 of
// the basis and every new vector is orthogonalised against it, so the eigenvalue 1 of W (eigenvector 1,
// docs/math.md §0.2) never enters the Krylov space and the largest Ritz value converges to lambda_2.
SpectralSummary lanczos(const CsrMatrix& w, const std::function<void(double)>& progress) {
  kernels::use_single_threaded_blas();
  const std::size_t n = static_cast<std::size_t>(w.n);
  const int max_steps = std::min(w.n - 1, kMaxLanczosSteps);
  std::vector<double> basis(2 * n, 1.0 / std::sqrt(double(n)));  // grows by one column per step
  std::vector<double> v(n), h(max_steps + 2);
  double* q = basis.data() + n;
  for (std::size_t i = 0; i < n; ++i) q[i] = start_entry(i);
  orthogonalise(basis, 1, n, q, h.data());
  cblas_dscal(int(n), 1.0 / cblas_dnrm2(int(n), q, 1), q, 1);

  std::vector<double> alpha, beta;
  for (int k = 0; k < max_steps; ++k) {
    multiply(w, basis.data() + (k + 1) * n, v.data());
    alpha.push_back(orthogonalise(basis, k + 2, n, v.data(), h.data()));
    const double b = cblas_dnrm2(int(n), v.data(), 1);
    if (!std::isfinite(b)) throw InvalidInput("spectral_summary: W has entries that are not finite");
    // Residual of a Ritz pair (theta, y) is ||W y - theta y|| = |beta_k s_{k,i}| (s: eigenvector of T_k).
    const int m = static_cast<int>(alpha.size());
    const RitzPair top = tridiagonal_eigenpair(alpha, beta, m),
                   bottom = tridiagonal_eigenpair(alpha, beta, 1);
    const bool converged = std::abs(b * top.last_component) <= kRitzTolerance &&
                           std::abs(b * bottom.last_component) <= kRitzTolerance;
    // After n - 1 steps the Krylov space is the whole complement of 1, and the Ritz values are eigenvalues.
    if (converged || m == w.n - 1) return {top.value, bottom.value, "lanczos"};
    beta.push_back(b);
    if (progress) progress(double(k + 1) / double(max_steps));
    basis.resize(basis.size() + n);
    cblas_daxpy(int(n), 1.0 / b, v.data(), 1, basis.data() + (k + 2) * n, 1);
  }
  throw std::runtime_error("Lanczos did not converge in " + std::to_string(max_steps) + " steps (n = " +
                           std::to_string(w.n) + "); the spectral gap may be too small to resolve");
}

}  // namespace

GapDefinition parse_gap_definition(std::string_view text) {
  if (text == "second") return GapDefinition::second;
  if (text == "abs") return GapDefinition::absolute;
  throw InvalidInput("unknown gap definition '" + std::string(text) + "' (valid: second, abs)");
}

std::string to_string(GapDefinition g) {
  return g == GapDefinition::second ? "second" : "abs";
}

// docs/math.md §2.3: "second" is the code's 1 - lambda_2; "abs" is Def 2.10, min over lambda != 1 of 1 -
// |lambda|, whose minimiser is lambda_2 or lambda_min.
double SpectralSummary::gap(GapDefinition d) const {
  if (d == GapDefinition::second) return 1.0 - lambda_2;
  return std::min(1.0 - lambda_2, 1.0 - std::abs(lambda_min));
}

std::vector<double> eigenvalues(const CsrMatrix& w) {
  require_symmetric(w, "eigenvalues");
  if (w.n == 0) return {};
  std::vector<double> dense = to_dense(w), values(static_cast<std::size_t>(w.n));
  kernels::use_single_threaded_blas();
  lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', w.n, dense.data(), w.n, values.data());
  if (info != 0)
    throw std::runtime_error("eigenvalues: LAPACKE_dsyevd failed (info " + std::to_string(info) + ")");
  return values;  // ascending
}

// A circulant W (w_ij depends on (j - i) mod n only: rings, complete and exponential graphs under any
// weighting that treats all nodes alike) has the eigenvalues lambda_k = sum_d c_d cos(2 pi k d / n),
// k = 0..n-1, c_d = w_{0,d} (the discrete Fourier transform of its first row). Exact in O(n nnz(row 0)),
// where Lanczos stalls on the tiny gaps of long rings (ring:n=10000: 1 - lambda_2 ~ 1.3e-7). lambda_k is
// formed as sum_d c_d - sum_d c_d 2 sin^2(pi k d / n), exact to the last digits of lambda. nullopt: not
// circulant.
namespace {

std::optional<SpectralSummary> circulant_spectrum(const CsrMatrix& w) {
  const std::int64_t n = w.n;
  std::vector<double> coefficient(static_cast<std::size_t>(n), 0.0);
  std::vector<std::int64_t> offsets;
  for (offset_t k = w.offsets[0]; k < w.offsets[1]; ++k) {
    coefficient[static_cast<std::size_t>(w.columns[k])] = w.values[k];
    offsets.push_back(w.columns[k]);
  }
  for (node_t i = 1; i < w.n; ++i) {
    if (w.offsets[i + 1] - w.offsets[i] != w.offsets[1] - w.offsets[0]) return std::nullopt;
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      const double c = coefficient[static_cast<std::size_t>((w.columns[k] - i + n) % n)];
      if (!(std::abs(w.values[k] - c) <= 1e-14 * std::max(1.0, std::abs(c))) || c == 0.0) return std::nullopt;
    }
  }
  double highest = -std::numeric_limits<double>::infinity(), lowest = -highest;
  for (std::int64_t k = 1; k < n; ++k) {  // k = 0 is the all-ones eigenvector's 1
    double one_minus = 0, total = 0;
    for (std::int64_t d : offsets) {
      const double s = std::sin(std::numbers::pi * double((k * d) % n) / double(n));
      one_minus += coefficient[static_cast<std::size_t>(d)] * 2 * s * s;
      total += coefficient[static_cast<std::size_t>(d)];
    }
    const double lambda = total - one_minus;
    highest = std::max(highest, lambda);
    lowest = std::min(lowest, lambda);
  }
  return SpectralSummary{highest, std::min(lowest, 1.0), "circulant"};
}

}  // namespace

SpectralSummary spectral_summary(const CsrMatrix& w, const std::function<void(double)>& progress) {
  if (w.n == 0) throw InvalidInput("spectral_summary: W is empty (n = 0)");
  if (w.n == 1) return {0.0, 0.0, "dense"};  // no eigenvalue besides 1: report 0, i.e. gap 1, as for W = J/n
  if (w.n <= kDenseLimit) {
    std::vector<double> values = eigenvalues(w);
    return {values[values.size() - 2], values.front(), "dense"};
  }
  require_symmetric(w, "spectral_summary");
  if (auto closed_form = circulant_spectrum(w)) return *closed_form;
  return lanczos(w, progress);
}

// docs/math.md §2.4 writes gamma = 2 (1 - sqrt(x)) / (1 - g/2)^2 with x = g (1 - g/4). Since 1 - x = (1 -
// g/2)^2, this is 2 / (1 + sqrt(x)): the same number without the 0/0 at g = 2. On 0 < g <= 2 (every gap a
// symmetric stochastic W can have; g > 1 only with the "second" definition when lambda_2 < 0) gamma falls
// from 2 to 1.
double chebyshev_gamma(double gap) {
  if (!(gap > 0.0 && gap <= 2.0))
    throw InvalidInput("Chebyshev gamma needs a spectral gap in (0, 2], got " + format_double(gap));
  return 2.0 / (1.0 + std::sqrt(gap * (1.0 - gap / 4.0)));
}

// docs/math.md §2.3, reference-code rule (initial spread 0.25, dimension 1):
// T = ceil((1/sqrt(gap)) ln((n/sigma^2) max(0.25, sigma^2))), at least 1.
int muffliato_stopping_time(node_t n, double sigma, double gap) {
  if (n < 1) throw InvalidInput("Muffliato stopping time needs n >= 1, got " + std::to_string(n));
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InvalidInput("Muffliato stopping time needs sigma > 0, got " + format_double(sigma));
  if (!(gap > 1e-15) || !std::isfinite(gap))
    throw InvalidInput(
        "spectral gap " + format_double(gap) +
        " is zero: the graph looks disconnected, so the stopping time (steps auto) is undefined");
  const double variance = sigma * sigma;
  const double t = std::ceil(std::log(double(n) / variance * std::max(0.25, variance)) / std::sqrt(gap));
  if (!(t <= double(std::numeric_limits<int>::max())))
    throw InvalidInput("Muffliato stopping time is too large (" + format_double(t) + " steps)");
  return std::max(1, static_cast<int>(t));
}

int random_walk_horizon(node_t n, double sigma, double gap) {
  if (n < 1) throw InvalidInput("random-walk horizon needs n >= 1, got " + std::to_string(n));
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InvalidInput("random-walk horizon needs sigma > 0, got " + format_double(sigma));
  if (!(gap > 1e-15) || !std::isfinite(gap))
    throw InvalidInput("spectral gap " + format_double(gap) +
                       " is zero: the graph looks disconnected, so the horizon (steps auto) is undefined");
  const double variance = sigma * sigma;
  // int() of the reference code truncates towards zero.
  const double t = std::floor(20.0 * std::ceil(std::log(double(n)) / gap) * (0.25 + variance) / variance);
  if (!(t <= double(std::numeric_limits<int>::max())))
    throw InvalidInput("random-walk horizon is too large (" + format_double(t) + " steps)");
  return std::max(1, static_cast<int>(t));
}

}  // namespace netdp
