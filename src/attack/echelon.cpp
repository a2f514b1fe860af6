#include "netdp/attack/echelon.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "netdp/ground/serial_blas.hpp"

namespace netdp::attack {

namespace {
// Each thread keeps the storage of its last basis: batched attacks build thousands of them, and fresh
// allocations cost page faults.
std::vector<std::uint64_t>& spare_storage() {
  thread_local std::vector<std::uint64_t> spare;
  return spare;
}
}  // namespace

ModularEchelon::ModularEchelon(const ModularField& field, int columns) : f_(field), n_(columns) {
  basis_.swap(spare_storage());
  basis_.clear();
}

ModularEchelon::~ModularEchelon() {
  if (basis_.capacity() > spare_storage().capacity()) basis_.swap(spare_storage());
}

std::size_t ModularEchelon::eliminate(std::uint64_t* r) const {
  const std::size_t n = static_cast<std::size_t>(n_);
  // Basis row i is zero at the pivots of rows 0..i-1, so eliminating in insertion order never brings back a
  // pivot entry already cleared.
  for (std::size_t i = 0; i < pivots_.size(); ++i) {
    const std::uint64_t factor = r[pivots_[i]];
    if (factor == 0) continue;
    const std::uint64_t* b = basis_.data() + i * n;
    // A basis row is zero before its pivot (its first non-zero when it was stored).
    for (std::size_t k = static_cast<std::size_t>(pivots_[i]); k < n; ++k)
      r[k] = f_.sub_mul(r[k], factor, b[k]);
  }
  std::size_t p = 0;
  while (p < n && r[p] == 0) ++p;
  return p;
}

bool ModularEchelon::in_span(std::span<std::uint64_t> row) const {
  return eliminate(row.data()) == static_cast<std::size_t>(n_);
}

bool ModularEchelon::insert(std::span<std::uint64_t> row) {
  const std::size_t n = static_cast<std::size_t>(n_);
  std::uint64_t* r = row.data();
  const std::size_t p = eliminate(r);
  if (p == n) return false;
  const std::uint64_t scale = f_.inverse(r[p]);
  for (std::size_t k = p; k < n; ++k) r[k] = f_.mul(r[k], scale);
  basis_.insert(basis_.end(), r, r + n);
  pivots_.push_back(static_cast<int>(p));
  return true;
}

void ModularEchelon::reduce() {
  const std::size_t n = static_cast<std::size_t>(n_);
  // Rows after i are already zero at every other pivot, so subtracting them from row i clears row i's
  // entries at their pivots without touching anything else. lead[i]: no non-zero of row i before it.
  std::vector<int> lead = pivots_;
  for (std::size_t i = pivots_.size(); i-- > 0;) {
    std::uint64_t* r = basis_.data() + i * n;
    for (std::size_t j = i + 1; j < pivots_.size(); ++j) {
      const std::uint64_t factor = r[pivots_[j]];
      if (factor == 0) continue;
      const std::uint64_t* b = basis_.data() + j * n;
      for (std::size_t k = static_cast<std::size_t>(lead[j]); k < n; ++k)
        r[k] = f_.sub_mul(r[k], factor, b[k]);
      lead[i] = std::min(lead[i], lead[j]);
    }
  }
}

std::span<const std::uint64_t> ModularEchelon::row(int i) const {
  return {basis_.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(n_),
          static_cast<std::size_t>(n_)};
}

int ModularEchelon::support_size(int i) const {
  const auto r = row(i);
  return static_cast<int>(std::count_if(r.begin(), r.end(), [](std::uint64_t x) { return x != 0; }));
}

FloatRref float_rref(std::vector<double> a, int rows, int columns) {
  constexpr double kPivotTolerance = 1e-8, kZeroTolerance = 1e-6, kOneHotTolerance = 1e-8;
  const std::size_t n = static_cast<std::size_t>(columns);
  auto at = [&](int i, int j) -> double& {
    return a[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)];
  };
  FloatRref out;
  int lead = 0;
  for (int j = 0; j < columns && lead < rows; ++j) {
    int best = lead;
    for (int i = lead + 1; i < rows; ++i)
      if (std::abs(at(i, j)) > std::abs(at(best, j))) best = i;
    if (std::abs(at(best, j)) <= kPivotTolerance) continue;
    if (best != lead) std::swap_ranges(&at(best, 0), &at(best, 0) + n, &at(lead, 0));
    const double scale = 1.0 / at(lead, j);
    for (int k = 0; k < columns; ++k) at(lead, k) *= scale;
    for (int i = 0; i < rows; ++i) {
      if (i == lead) continue;
      const double factor = at(i, j);
      if (factor == 0) continue;
      for (int k = 0; k < columns; ++k) at(i, k) -= factor * at(lead, k);
    }
    out.pivots.push_back(j);
    ++lead;
  }
  out.rank = lead;
  for (double& x : a)
    if (std::abs(x) < kZeroTolerance) x = 0;
  out.one_hot.assign(n, 0);
  for (int i = 0; i < rows; ++i) {
    int count = 0, where = -1;
    for (int k = 0; k < columns; ++k)
      if (std::abs(at(i, k)) > kOneHotTolerance) ++count, where = k;
    if (count == 1) out.one_hot[static_cast<std::size_t>(where)] = 1;
  }
  return out;
}

int svd_rank(std::vector<double> a, int rows, int columns) {
  if (rows == 0 || columns == 0) return 0;
  kernels::use_single_threaded_blas();  // the same bits for any OpenBLAS thread count (netdp/ground/serial_blas.hpp)
  std::vector<double> s(static_cast<std::size_t>(std::min(rows, columns)));
  const lapack_int info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'N', rows, columns, a.data(), columns, s.data(),
                                         nullptr, std::max(1, rows), nullptr, std::max(1, columns));
  if (info != 0) throw std::runtime_error("attack: dgesdd failed (info " + std::to_string(info) + ")");
  const double tolerance = s.front() * std::max(rows, columns) * std::numeric_limits<double>::epsilon();
  return static_cast<int>(std::count_if(s.begin(), s.end(), [&](double x) { return x > tolerance; }));
}

std::vector<double> least_squares(std::vector<double> a, int rows, int columns, std::vector<double> y) {
  kernels::use_single_threaded_blas();
  const int ldb = std::max(rows, columns);
  y.resize(static_cast<std::size_t>(ldb), 0.0);
  std::vector<double> s(static_cast<std::size_t>(std::max(1, std::min(rows, columns))));
  lapack_int rank = 0;
  const lapack_int info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, rows, columns, 1, a.data(), columns, y.data(), 1,
                                         s.data(), -1.0, &rank);
  if (info != 0) throw std::runtime_error("attack: dgelsd failed (info " + std::to_string(info) + ")");
  y.resize(static_cast<std::size_t>(columns));
  return y;
}

}  // namespace netdp::attack
