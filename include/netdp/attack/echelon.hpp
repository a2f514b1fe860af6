#pragma once
// Row echelon forms of knowledge matrices (docs/math.md §7.2): an exact one over Z/pZ, built row by row
// (each new row reduced against the basis so far, so a caller may stop once the rank reaches n), and the
// floating-point Gauss-Jordan elimination with the reference code's tolerances, plus the SVD rank.
#include <cstdint>
#include <span>
#include <vector>

#include "netdp/attack/modular_field.hpp"

namespace netdp::attack {

/// An echelon basis of the rows inserted so far, over Z/pZ. Each basis row is normalised to 1 at its pivot
/// and zero at the pivots of the rows inserted before it; reduce() makes it the reduced row echelon form.
class ModularEchelon {
 public:
  ModularEchelon(const ModularField& field, int columns);
  ~ModularEchelon();
  ModularEchelon(const ModularEchelon&) = delete;
  ModularEchelon& operator=(const ModularEchelon&) = delete;
  /// Reduces `row` (Montgomery form, modified in place) against the basis; stores it when it is independent.
  /// Returns true when the rank grew.
  bool insert(std::span<std::uint64_t> row);
  /// Whether `row` (Montgomery form, modified in place) lies in the span of the basis; stores nothing.
  bool in_span(std::span<std::uint64_t> row) const;
  int rank() const { return static_cast<int>(pivots_.size()); }
  int columns() const { return n_; }
  bool full() const { return rank() == n_; }
  /// Back-substitution: every basis row becomes zero at every other row's pivot (the RREF, up to row order).
  void reduce();
  int pivot(int i) const { return pivots_[static_cast<std::size_t>(i)]; }
  std::span<const std::uint64_t> row(int i) const;
  /// Number of non-zeros of basis row i.
  int support_size(int i) const;

 private:
  std::size_t eliminate(std::uint64_t* row) const;  // reduces row; returns its first non-zero (n: none)
  const ModularField& f_;
  int n_;
  std::vector<std::uint64_t> basis_;  // rank x n, row-major
  std::vector<int> pivots_;
};

/// The floating-point reduction of the reference code (docs/math.md §7.2 Numerics): Gauss-Jordan with partial
/// pivoting, a pivot candidate skipped when |q| <= 1e-8, entries below 1e-6 set to 0 at the end, a row
/// "one-hot" when exactly one entry exceeds 1e-8 in absolute value.
struct FloatRref {
  int rank = 0;
  std::vector<int> pivots;            // the pivot column of each non-zero row
  std::vector<std::uint8_t> one_hot;  // per column: some row is one-hot in it
};
FloatRref float_rref(std::vector<double> matrix, int rows, int columns);

/// The numerical rank of a rows x columns matrix by SVD with NumPy's default tolerance
/// s_max * max(rows, columns) * eps.
int svd_rank(std::vector<double> matrix, int rows, int columns);

/// The minimum-norm least-squares solution of K x = y (LAPACK dgelsd, rcond = machine precision).
std::vector<double> least_squares(std::vector<double> matrix, int rows, int columns, std::vector<double> y);

}  // namespace netdp::attack
