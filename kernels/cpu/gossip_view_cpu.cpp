// CPU backend of the exact gossip accountant (docs/math.md §6.9): one observer per OpenMP thread, its view's
// basis built by block Krylov steps with two passes of block classical Gram-Schmidt (single-threaded BLAS,
// so an observer's bits never depend on the thread count or on which thread ran it).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <vector>

#include <cblas.h>

#include "common/csr_product.hpp"
#include "cpu/serial_blas.hpp"
#include "gossip_view_kernels.hpp"

namespace netdp::kernels {

double gossip_view_floor(const GossipViewProblem& p) {
  // Block Gram-Schmidt with reorthogonalisation is backward stable: the basis is the exact basis of the view
  // for a gossip matrix within a few u sqrt(n r) of W (u = 2^-53, r the basis size; rounding errors of the
  // n-term inner products add up like a random walk). A residual below that, relative to its candidate, is
  // zero for such a matrix and cannot be told from zero by the computation (docs/math.md §6.9 "Numerics").
  std::int64_t rank = 1;
  for (std::int64_t v = 0; v < p.n; ++v) rank = std::max(rank, gossip_view_max_rank(p, v));
  return gossip_view_floor_of(p.n, rank);
}

double gossip_view_floor_of(std::int64_t n, std::int64_t max_rank) {
  return 8.0 * std::sqrt(double(n) * double(std::max<std::int64_t>(1, max_rank))) * (DBL_EPSILON / 2);
}

std::int64_t gossip_view_max_rank(const GossipViewProblem& p, std::int64_t v) {
  const std::int64_t degree = p.g_offsets[v + 1] - p.g_offsets[v];
  return std::min<std::int64_t>(p.n, degree * p.steps + (p.knows_noise ? 1 : 0));
}

std::int64_t gossip_view_thread_bytes(const GossipViewProblem& p, std::int64_t v) {
  const std::int64_t rank = gossip_view_max_rank(p, v);
  const std::int64_t width = std::max<std::int64_t>(1, p.g_offsets[v + 1] - p.g_offsets[v]);
  return 8 * (p.n * rank + p.n * width + rank * width + width);
}

namespace {

/// The basis of one observer's view, grown block by block (column-major, column j at q + j * n).
class ViewBasis {
 public:
  ViewBasis(const GossipViewProblem& p, double floor, std::int64_t max_rank, std::int64_t width)
      : p_(p), n_(p.n), floor_(floor) {
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

  /// y = W x (one implementation of the sparse product, common/csr_product.hpp).
  void multiply(const double* x, double* y) const {
    for (std::int64_t row = 0; row < n_; ++row)
      csr_row_product(p_.w_offsets, p_.w_columns, p_.w_values, row, x, 1, y);
  }

  /// Makes the first m candidates orthogonal to the basis and to each other, appends those whose residual
  /// is above the floor (normalised) and returns how many it appended. `local` > 0: the candidates are W
  /// times the last block, so (W symmetric) in exact arithmetic they are orthogonal to every column but the
  /// last `local` ones (block Lanczos); a first pass against those, then a full pass, and another one for a
  /// candidate the full pass still shortened by more than half, keep them orthogonal to the whole basis.
  /// local = 0: two full passes.
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

  const GossipViewProblem& p_;
  std::int64_t n_;
  double floor_;
  std::vector<double> q_, c_, h_, norm0_, norm1_;
  std::int64_t capacity_ = 0, rank_ = 0;
  std::int32_t dropped_ = 0, below_floor_ = 0;
  double smallest_ = 0;
};

/// The basis of span{W^t e_w : w in start, t_start <= t < t_start + steps} + span{e_k : k in known}: the
/// start nodes' unit vectors moved t_start steps, then steps - 1 Krylov blocks, then the known unit vectors.
ViewBasis span_basis(const GossipViewProblem& p, double floor, std::span<const std::int32_t> start,
                     std::span<const std::int32_t> known, std::int64_t max_rank,
                     const std::int32_t* dims = nullptr) {
  const std::int64_t n = p.n, degree = static_cast<std::int64_t>(start.size());
  const auto width = std::max<std::int64_t>({1, degree, static_cast<std::int64_t>(known.size())});
  ViewBasis basis(p, floor, max_rank, width);
  std::vector<double> scratch(static_cast<std::size_t>(p.t_start > 0 ? n : 0));
  for (std::int64_t j = 0; j < degree; ++j) {
    double* c = basis.candidate(j);
    std::fill(c, c + n, 0.0);
    c[start[static_cast<std::size_t>(j)]] = 1.0;
    for (int t = 0; t < p.t_start; ++t) {
      basis.multiply(c, scratch.data());
      std::copy(scratch.begin(), scratch.end(), c);
    }
  }
  // With dims: block k adds exactly dims[k] directions, the known unit vectors dims[steps].
  auto accept = [&](std::int64_t m, std::int64_t local, int k) {
    return dims ? basis.accept_exactly(m, local, dims[k]) : basis.accept(m, local);
  };
  std::int64_t added = accept(degree, 0, 0), previous = 0;
  for (int k = 1; k < p.steps && added > 0; ++k) {
    const std::int64_t from = basis.rank() - added;
    for (std::int64_t j = 0; j < added; ++j) basis.multiply(basis.column(from + j), basis.candidate(j));
    const std::int64_t last_two = added + previous;  // W Q_k lies in span(Q_{k-1}, Q_k, Q_{k+1})
    previous = added;
    added = accept(added, last_two, k);
  }
  if (!known.empty()) {
    for (std::size_t j = 0; j < known.size(); ++j) {
      double* c = basis.candidate(static_cast<std::int64_t>(j));
      std::fill(c, c + n, 0.0);
      c[known[j]] = 1.0;
    }
    accept(static_cast<std::int64_t>(known.size()), 0, p.steps);
  }
  return basis;
}

/// Builds observer v's basis (docs/math.md §6.9): its neighbours as the start nodes, e_v known when v knows
/// its noise.
ViewBasis observer_basis(const GossipViewProblem& p, double floor, std::int64_t v) {
  const std::int64_t first = p.g_offsets[v], degree = p.g_offsets[v + 1] - first;
  const auto self = static_cast<std::int32_t>(v);
  return span_basis(p, floor, std::span<const std::int32_t>(p.g_adjacency + first, std::size_t(degree)),
                    std::span<const std::int32_t>(&self, p.knows_noise ? 1 : 0), gossip_view_max_rank(p, v));
}

/// ||P_v e_u||^2 = sum_j Q[u, j]^2, clipped to [0, 1] (rounding must not raise it past the LDP level).
double clip_projection(double x) {
  return std::min(1.0, std::max(0.0, x));
}

/// row[u] = ||P e_u||^2 for every u, clipped.
void squared_projections(const ViewBasis& basis, std::int64_t n, double* row) {
  std::fill(row, row + n, 0.0);
  for (std::int64_t j = 0; j < basis.rank(); ++j) {
    const double* q = basis.column(j);
    for (std::int64_t u = 0; u < n; ++u) row[u] += q[u] * q[u];
  }
  for (std::int64_t u = 0; u < n; ++u) row[u] = clip_projection(row[u]);
}

}  // namespace

void gossip_view_cpu(const GossipViewProblem& p, std::int64_t first, std::int64_t count, std::int64_t source,
                     std::span<double> projections, std::span<GossipViewObserver> observers,
                     const std::function<bool(std::int64_t)>& done) {
  use_single_threaded_blas();
  const std::int64_t n = p.n;
  const double floor = gossip_view_floor(p);
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> finished{0};
  std::mutex report;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < count; ++i) {
    if (stop.load(std::memory_order_relaxed)) continue;
    const ViewBasis basis = observer_basis(p, floor, first + i);
    if (source >= 0) {
      double sum = 0;
      for (std::int64_t j = 0; j < basis.rank(); ++j)
        sum += basis.column(j)[source] * basis.column(j)[source];
      projections[static_cast<std::size_t>(i)] = clip_projection(sum);
    } else {
      squared_projections(basis, n, projections.data() + i * n);
    }
    observers[static_cast<std::size_t>(i)] = basis.report();
    const std::int64_t k = finished.fetch_add(1) + 1;
    if (done && (k % 16 == 0 || k == count)) {
      std::lock_guard<std::mutex> lock(report);
      if (!done(k)) stop = true;
    }
  }
}

void gossip_view_spans_cpu(const GossipViewProblem& p, double floor, std::int64_t count,
                           const std::int64_t* start_offsets, const std::int32_t* start_nodes,
                           const std::int64_t* known_offsets, const std::int32_t* known_nodes,
                           const std::int32_t* dims, std::span<double> projections,
                           std::span<GossipViewObserver> observers) {
  use_single_threaded_blas();
  const std::int64_t n = p.n;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::span<const std::int32_t> start(start_nodes + start_offsets[i],
                                              std::size_t(start_offsets[i + 1] - start_offsets[i]));
    const std::span<const std::int32_t> known(known_nodes + known_offsets[i],
                                              std::size_t(known_offsets[i + 1] - known_offsets[i]));
    const std::int64_t max_rank =
        std::min<std::int64_t>(n, std::int64_t(start.size()) * p.steps + std::int64_t(known.size()));
    const ViewBasis basis =
        span_basis(p, floor, start, known, max_rank, dims ? dims + i * (p.steps + 1) : nullptr);
    squared_projections(basis, n, projections.data() + i * n);
    observers[static_cast<std::size_t>(i)] = basis.report();
  }
}

}  // namespace netdp::kernels
