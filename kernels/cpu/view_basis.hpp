#pragma once
// The orthonormal basis of one observer's view (docs/math.md §6.9 "Computation", "Numerics"), shared by the
// fixed-W engine (block Krylov steps, gossip_view_cpu.cpp) and the time-varying one (explicit rows of the
// products W_{0:t}, gossip_view_sequence_cpu.cpp). Internal to the CPU backend; single-threaded BLAS.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cblas.h>

#include "gossip_view_kernels.hpp"

namespace netdp::kernels {

/// The basis of one observer's view, grown block by block (column-major, column j at q + j * n).
class ViewBasis {
 public:
  ViewBasis(std::int64_t n, double floor, std::int64_t max_rank, std::int64_t width) : n_(n), floor_(floor) {
    q_.resize(static_cast<std::size_t>(n_ * max_rank));
    c_.resize(static_cast<std::size_t>(n_ * width));
    h_.resize(static_cast<std::size_t>(max_rank * width));
    norm0_.resize(static_cast<std::size_t>(width));
    norm1_.resize(static_cast<std::size_t>(width));
    capacity_ = max_rank;
  }

  double* candidate(std::int64_t j) { return c_.data() + j * n_; }
  const double* column(std::int64_t j) const { return q_.data() + j * n_; }
  std::int64_t rank() const { return rank_; }
  GossipViewObserver report() const {
    return {static_cast<std::int32_t>(rank_), dropped_, smallest_, below_floor_};
  }

  /// Makes the first m candidates orthogonal to the basis and to each other, appends those whose residual
  /// is above the floor (normalised) and returns how many it appended. `local` > 0: the candidates are W
  /// times the last block, so (W symmetric) in exact arithmetic they are orthogonal to every column but the
  /// last `local` ones (block Lanczos); a first pass against those, then a full pass, and another one for a
  /// candidate the full pass still shortened by more than half, keep them orthogonal to the whole basis.
  /// local = 0 (explicit candidates, e.g. the rows of a time-varying schedule): two full passes.
  std::int64_t accept(std::int64_t m, std::int64_t local = 0) {
    const std::int64_t old_rank = rank_;
    block_passes(m, local);
    for (std::int64_t j = 0; j < m; ++j) {
      double* c = candidate(j);
      if (rank_ == n_ || !(norm0_[j] > 0)) {  // the view already spans everything, or nothing to add
        ++dropped_;
        continue;
      }
      double before = old_rank > 0 ? norm1_[j] : norm0_[j];
      double after = cblas_dnrm2(int(n_), c, 1);
      // Against the columns appended from this block (two passes), then again against everything while a
      // pass removes more than half of what is left ("twice is enough" holds only in that case).
      if (rank_ > old_rank) {
        before = after;
        for (int pass = 0; pass < 2; ++pass) project_column(old_rank, rank_, c);
        after = cblas_dnrm2(int(n_), c, 1);
      }
      for (int extra = 0; extra < 3 && after < 0.5 * before && after > floor_ * norm0_[j]; ++extra) {
        project_column(0, rank_, c);
        before = after;
        after = cblas_dnrm2(int(n_), c, 1);
      }
      const double relative = after / norm0_[j];
      if (!(relative > floor_) || rank_ >= capacity_) {
        ++dropped_;
        continue;
      }
      smallest_ = rank_ == 0 ? relative : std::min(smallest_, relative);
      double* target = q_.data() + rank_ * n_;
      for (std::int64_t i = 0; i < n_; ++i) target[i] = c[i] / after;
      ++rank_;
    }
    return rank_ - old_rank;
  }

  /// Like accept, for a block whose dimension `keep` is known exactly (the reconstruction attack's exact
  /// rank, docs/math.md §7.2): after the same block passes, appends exactly `keep` candidates, each time the
  /// one with the largest residual relative to its norm (made orthogonal to the whole basis again, twice),
  /// the others made orthogonal to it. A kept residual below the floor is counted in below_floor.
  std::int64_t accept_exactly(std::int64_t m, std::int64_t local, std::int64_t keep) {
    const std::int64_t old_rank = rank_;
    block_passes(m, local);
    std::vector<std::uint8_t> taken(static_cast<std::size_t>(m), 0);
    for (std::int64_t k = 0; k < keep && rank_ < capacity_; ++k) {
      std::int64_t best = -1;
      double best_relative = -1;
      for (std::int64_t j = 0; j < m; ++j) {
        if (taken[static_cast<std::size_t>(j)] || !(norm0_[j] > 0)) continue;
        const double relative = cblas_dnrm2(int(n_), candidate(j), 1) / norm0_[j];
        if (relative > best_relative) best = j, best_relative = relative;
      }
      if (best < 0) break;
      taken[static_cast<std::size_t>(best)] = 1;
      double* c = candidate(best);
      for (int pass = 0; pass < 2; ++pass) project_column(0, rank_, c);
      const double after = cblas_dnrm2(int(n_), c, 1), relative = after / norm0_[best];
      if (!(after > 0)) break;
      below_floor_ += !(relative > floor_);
      smallest_ = rank_ == 0 ? relative : std::min(smallest_, relative);
      double* target = q_.data() + rank_ * n_;
      for (std::int64_t i = 0; i < n_; ++i) target[i] = c[i] / after;
      ++rank_;
      for (std::int64_t j = 0; j < m; ++j)
        if (!taken[static_cast<std::size_t>(j)]) project_column(rank_ - 1, rank_, candidate(j));
    }
    dropped_ += static_cast<std::int32_t>(m - (rank_ - old_rank));
    return rank_ - old_rank;
  }

 private:
  /// norm0_ = the candidates' norms; then, against the basis: with `local` > 0 a pass against its last
  /// `local` columns, norm1_ = the norms after it, and a full pass; local = 0: two full passes (norm1_
  /// between them).
  void block_passes(std::int64_t m, std::int64_t local) {
    for (std::int64_t j = 0; j < m; ++j) norm0_[j] = cblas_dnrm2(int(n_), candidate(j), 1);
    const std::int64_t old_rank = rank_;
    if (old_rank > 0) {
      if (local > 0)
        project_block(old_rank - std::min(local, old_rank), old_rank, m);
      else
        project_block(0, old_rank, m);
      for (std::int64_t j = 0; j < m; ++j) norm1_[j] = cblas_dnrm2(int(n_), candidate(j), 1);
      project_block(0, old_rank, m);
    }
  }

  /// C[:, :m] -= Q[:, from:to] (Q[:, from:to]^T C[:, :m]).
  void project_block(std::int64_t from, std::int64_t to, std::int64_t m) {
    const int k = int(to - from);
    const double* q = q_.data() + from * n_;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, int(m), int(n_), 1.0, q, int(n_), c_.data(),
                int(n_), 0.0, h_.data(), k);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(n_), int(m), k, -1.0, q, int(n_), h_.data(), k,
                1.0, c_.data(), int(n_));
  }
  /// c -= Q[:, from:to] (Q[:, from:to]^T c).
  void project_column(std::int64_t from, std::int64_t to, double* c) {
    if (to <= from) return;
    const double* q = q_.data() + from * n_;
    cblas_dgemv(CblasColMajor, CblasTrans, int(n_), int(to - from), 1.0, q, int(n_), c, 1, 0.0, h_.data(), 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, int(n_), int(to - from), -1.0, q, int(n_), h_.data(), 1, 1.0, c,
                1);
  }

  std::int64_t n_;
  double floor_;
  std::vector<double> q_, c_, h_, norm0_, norm1_;
  std::int64_t capacity_ = 0, rank_ = 0;
  std::int32_t dropped_ = 0, below_floor_ = 0;
  double smallest_ = 0;
};

/// ||P_v e_u||^2 = sum_j Q[u, j]^2, clipped to [0, 1] (rounding must not raise it past the LDP level).
inline double clip_projection(double x) {
  return std::min(1.0, std::max(0.0, x));
}

/// row[u] = ||P e_u||^2 for every u, clipped.
inline void squared_projections(const ViewBasis& basis, std::int64_t n, double* row) {
  std::fill(row, row + n, 0.0);
  for (std::int64_t j = 0; j < basis.rank(); ++j) {
    const double* q = basis.column(j);
    for (std::int64_t u = 0; u < n; ++u) row[u] += q[u] * q[u];
  }
  for (std::int64_t u = 0; u < n; ++u) row[u] = clip_projection(row[u]);
}

/// The observer's entries: with source = u >= 0 only ||P e_u||^2 into out[0], otherwise the whole row.
inline void write_projections(const ViewBasis& basis, std::int64_t n, std::int64_t source, double* out) {
  if (source < 0) return squared_projections(basis, n, out);
  double sum = 0;
  for (std::int64_t j = 0; j < basis.rank(); ++j) sum += basis.column(j)[source] * basis.column(j)[source];
  out[0] = clip_projection(sum);
}

}  // namespace netdp::kernels
