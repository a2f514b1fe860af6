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
#include "cpu/view_basis.hpp"
#include "gossip_view_kernels.hpp"

namespace netdp::kernels {

double gossip_view_floor(const GossipViewProblem& p) {
  // Block Gram-Schmidt with reorthogonalisation is backward stable: the basis is the exact basis of the view
  // for a gossip matrix within a few u sqrt(n r) of W (u = 2^-53, r the basis size; rounding errors of the
  // n-term inner products add up like a random walk). A residual below that, relative to its candidate, is
  // zero for such a matrix and cannot be told from zero by the computation (docs/math.md §6.9 "Numerics").
  std::int64_t rank = 1;
  for (std::int64_t v = 0; v < p.n; ++v) rank = std::max(rank, gossip_view_max_rank(p, v));
  return gossip_view_floor(p.n, rank);
}

double gossip_view_floor(std::int64_t n, std::int64_t max_rank) {
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

/// ||P_v e_u||^2 = sum_j Q[u, j]^2, clipped to [0, 1] (rounding must not raise it past the LDP level).
double clip_projection(double x) {
  return std::min(1.0, std::max(0.0, x));
}

}  // namespace

ViewBasis::ViewBasis(std::int64_t n, double floor, std::int64_t max_rank, std::int64_t width)
    : n_(n), floor_(floor) {
  q_.resize(static_cast<std::size_t>(n_ * max_rank));
  c_.resize(static_cast<std::size_t>(n_ * width));
  h_.resize(static_cast<std::size_t>(max_rank * width));
  norm0_.resize(static_cast<std::size_t>(width));
  norm1_.resize(static_cast<std::size_t>(width));
  capacity_ = max_rank;
}

std::int64_t ViewBasis::accept(std::int64_t m, std::int64_t local) {
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

void ViewBasis::project_block(std::int64_t from, std::int64_t to, std::int64_t m) {
  const int k = int(to - from);
  const double* q = q_.data() + from * n_;
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, int(m), int(n_), 1.0, q, int(n_), c_.data(),
              int(n_), 0.0, h_.data(), k);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(n_), int(m), k, -1.0, q, int(n_), h_.data(), k,
              1.0, c_.data(), int(n_));
}

void ViewBasis::project_column(std::int64_t from, std::int64_t to, double* c) {
  if (to <= from) return;
  const double* q = q_.data() + from * n_;
  cblas_dgemv(CblasColMajor, CblasTrans, int(n_), int(to - from), 1.0, q, int(n_), c, 1, 0.0, h_.data(), 1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, int(n_), int(to - from), -1.0, q, int(n_), h_.data(), 1, 1.0, c,
              1);
}

void ViewBasis::projections(double* row) const {
  std::fill(row, row + n_, 0.0);
  for (std::int64_t j = 0; j < rank_; ++j) {
    const double* q = column(j);
    for (std::int64_t u = 0; u < n_; ++u) row[u] += q[u] * q[u];
  }
  for (std::int64_t u = 0; u < n_; ++u) row[u] = clip_projection(row[u]);
}

double ViewBasis::projection(std::int64_t u) const {
  double sum = 0;
  for (std::int64_t j = 0; j < rank_; ++j) sum += column(j)[u] * column(j)[u];
  return clip_projection(sum);
}

namespace {

/// y = W x (one implementation of the sparse product, common/csr_product.hpp).
void multiply(const GossipViewProblem& p, const double* x, double* y) {
  for (std::int64_t row = 0; row < p.n; ++row)
    csr_row_product(p.w_offsets, p.w_columns, p.w_values, row, x, 1, y);
}

/// Builds observer v's basis (docs/math.md §6.9): the neighbours' unit vectors moved t_start steps, then
/// steps - 1 Krylov blocks, then e_v when v knows its noise.
ViewBasis observer_basis(const GossipViewProblem& p, double floor, std::int64_t v) {
  const std::int64_t n = p.n, first = p.g_offsets[v], degree = p.g_offsets[v + 1] - first;
  ViewBasis basis(n, floor, gossip_view_max_rank(p, v), std::max<std::int64_t>(1, degree));
  std::vector<double> scratch(static_cast<std::size_t>(p.t_start > 0 ? n : 0));
  for (std::int64_t j = 0; j < degree; ++j) {
    double* c = basis.candidate(j);
    std::fill(c, c + n, 0.0);
    c[p.g_adjacency[first + j]] = 1.0;
    for (int t = 0; t < p.t_start; ++t) {
      multiply(p, c, scratch.data());
      std::copy(scratch.begin(), scratch.end(), c);
    }
  }
  std::int64_t added = basis.accept(degree), previous = 0;
  for (int k = 1; k < p.steps && added > 0; ++k) {
    const std::int64_t from = basis.rank() - added;
    for (std::int64_t j = 0; j < added; ++j) multiply(p, basis.column(from + j), basis.candidate(j));
    const std::int64_t last_two = added + previous;  // W Q_k lies in span(Q_{k-1}, Q_k, Q_{k+1})
    previous = added;
    added = basis.accept(added, last_two);
  }
  if (p.knows_noise) {
    double* c = basis.candidate(0);
    std::fill(c, c + n, 0.0);
    c[v] = 1.0;
    basis.accept(1);
  }
  return basis;
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
    if (source >= 0)
      projections[static_cast<std::size_t>(i)] = basis.projection(source);
    else
      basis.projections(projections.data() + i * n);
    observers[static_cast<std::size_t>(i)] = basis.report();
    const std::int64_t k = finished.fetch_add(1) + 1;
    if (done && (k % 16 == 0 || k == count)) {
      std::lock_guard<std::mutex> lock(report);
      if (!done(k)) stop = true;
    }
  }
}

}  // namespace netdp::kernels
