#pragma once
// The orthonormal basis of one observer's view (docs/math.md §6.9 "Computation", "Numerics"), shared by the
// fixed-W engine (block Krylov steps, gossip_view_cpu.cpp) and the time-varying one (explicit rows of the
// products W_{0:t}, gossip_view_sequence_cpu.cpp). Internal to the CPU backend; single-threaded BLAS.
#include <cstdint>
#include <vector>

#include "gossip_view_kernels.hpp"

namespace netdp::kernels {

/// Grown block by block (column-major, column j at q + j * n): candidates are written to candidate(j), then
/// accept() makes them orthogonal to the basis and to each other and appends those above the floor.
class ViewBasis {
 public:
  /// At most max_rank columns of length n, blocks of at most `width` candidates; `floor` relative.
  ViewBasis(std::int64_t n, double floor, std::int64_t max_rank, std::int64_t width);

  double* candidate(std::int64_t j) { return c_.data() + j * n_; }
  const double* column(std::int64_t j) const { return q_.data() + j * n_; }
  std::int64_t rank() const { return rank_; }
  GossipViewObserver report() const { return {static_cast<std::int32_t>(rank_), dropped_, smallest_}; }

  /// Makes the first m candidates orthogonal to the basis and to each other, appends those whose residual
  /// is above the floor (normalised) and returns how many it appended. `local` > 0: the candidates are W
  /// times the last block, so (W symmetric) in exact arithmetic they are orthogonal to every column but the
  /// last `local` ones (block Lanczos); a first pass against those, then a full pass, and another one for a
  /// candidate the full pass still shortened by more than half, keep them orthogonal to the whole basis.
  /// local = 0 (explicit candidates): two full passes.
  std::int64_t accept(std::int64_t m, std::int64_t local = 0);

  /// ||P e_u||^2 = sum_j Q[u, j]^2 for every u into row[0 .. n), clipped to [0, 1].
  void projections(double* row) const;
  /// The same for one u.
  double projection(std::int64_t u) const;

 private:
  /// C[:, :m] -= Q[:, from:to] (Q[:, from:to]^T C[:, :m]).
  void project_block(std::int64_t from, std::int64_t to, std::int64_t m);
  /// c -= Q[:, from:to] (Q[:, from:to]^T c).
  void project_column(std::int64_t from, std::int64_t to, double* c);

  std::int64_t n_;
  double floor_;
  std::vector<double> q_, c_, h_, norm0_, norm1_;
  std::int64_t capacity_ = 0, rank_ = 0;
  std::int32_t dropped_ = 0;
  double smallest_ = 0;
};

}  // namespace netdp::kernels
