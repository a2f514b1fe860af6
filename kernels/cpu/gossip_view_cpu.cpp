// CPU backend of the exact gossip accountant (docs/math.md §6.9): one observer per OpenMP thread, its view's
// basis built by block Krylov steps with two passes of block classical Gram-Schmidt (single-threaded BLAS,
// so an observer's bits never depend on the thread count or on which thread ran it), on W restricted to the
// observer's ball when that is under half the graph (view_ball.hpp, docs/math.md §6.9 "Computation").
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <vector>

#include <cblas.h>

#include "common/csr_product.hpp"
#include "common/gossip_view_bodies.hpp"
#include "cpu/view_ball.hpp"
#include "cpu/view_basis.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/ground/serial_blas.hpp"

namespace netdp::kernels {

namespace {

/// r_max: the largest basis any observer can need.
std::int64_t largest_max_rank(const GossipViewProblem& p) {
  std::int64_t rank = 1;
  for (std::int64_t v = 0; v < p.n; ++v) rank = std::max(rank, gossip_view_max_rank(p, v));
  return rank;
}

/// Balls of at least half the graph keep the dense n-vectors: little is saved, and the small and well-mixed
/// cases keep their bits.
std::int64_t ball_limit(const GossipViewProblem& p) {
  return p.use_balls ? (p.n + 1) / 2 : 0;
}

}  // namespace

double gossip_view_floor(const GossipViewProblem& p) {
  // Block Gram-Schmidt with reorthogonalisation is backward stable: the basis is the exact basis of the view
  // for a gossip matrix within a few u sqrt(n r) of W (u = 2^-53, r the basis size; rounding errors of the
  // n-term inner products add up like a random walk). A residual below that, relative to its candidate, is
  // zero for such a matrix and cannot be told from zero by the computation (docs/math.md §6.9 "Numerics").
  return gossip_view_floor_of(p.n, largest_max_rank(p));
}

// The floor and the capacity are the common body's (common/gossip_view_bodies.hpp), so both engines and both
// twins use the same numbers.
double gossip_view_floor_of(std::int64_t n, std::int64_t max_rank) {
  return gossip_view::floor_of(n, max_rank);
}

std::int64_t gossip_view_max_rank(const GossipViewProblem& p, std::int64_t v) {
  return gossip_view::max_rank(p.n, p.g_offsets[v + 1] - p.g_offsets[v], p.steps, p.knows_noise);
}

std::int64_t gossip_view_thread_bytes(const GossipViewProblem& p, std::span<const std::int32_t> observers) {
  // ViewBasis holds Q (m x rank), the candidates (m x width), the coefficients and two norms per candidate,
  // m = n on the dense path, the ball's size on a ball (plus the ball's W, its labels and the local row).
  auto basis_bytes = [&](std::int64_t m, std::int64_t v) {
    const std::int64_t rank = std::min(m, gossip_view_max_rank(p, v));
    const std::int64_t width = std::max<std::int64_t>(1, p.g_offsets[v + 1] - p.g_offsets[v]);
    return 8 * (m * rank + m * width + rank * width + 2 * width + (p.t_start > 0 ? m : 0));
  };
  ViewBallFinder finder(p.use_balls ? p.n : 0);
  ViewBall ball;
  std::int64_t most = 0;
  for (std::int32_t v : observers) {
    std::int64_t bytes = basis_bytes(p.n, v);
    if (finder.find(p, v, ball_limit(p), ball))
      bytes = basis_bytes(ball.size(), v) + ball.bytes() + finder.bytes() + 8 * ball.size();
    most = std::max(most, bytes);
  }
  return most;
}

namespace {

/// y = W x (one implementation of the sparse product, common/csr_product.hpp).
void multiply(const GossipViewProblem& p, const double* x, double* y) {
  for (std::int64_t row = 0; row < p.n; ++row)
    csr_row_product(p.w_offsets, p.w_columns, p.w_values, row, x, 1, y);
}

/// The basis of span{W^t e_w : w in start, t_start <= t < t_start + steps} + span{e_k : k in known}: the
/// start nodes' unit vectors moved t_start steps, then steps - 1 Krylov blocks, then the known unit vectors.
ViewBasis span_basis(const GossipViewProblem& p, double floor, std::span<const std::int32_t> start,
                     std::span<const std::int32_t> known, std::int64_t max_rank,
                     const std::int32_t* dims = nullptr) {
  const std::int64_t n = p.n, degree = static_cast<std::int64_t>(start.size());
  const auto width = std::max<std::int64_t>({1, degree, static_cast<std::int64_t>(known.size())});
  ViewBasis basis(n, floor, max_rank, width);
  std::vector<double> scratch(static_cast<std::size_t>(p.t_start > 0 ? n : 0));
  for (std::int64_t j = 0; j < degree; ++j) {
    double* c = basis.candidate(j);
    std::fill(c, c + n, 0.0);
    c[start[static_cast<std::size_t>(j)]] = 1.0;
    for (int t = 0; t < p.t_start; ++t) {
      multiply(p, c, scratch.data());
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
    for (std::int64_t j = 0; j < added; ++j) multiply(p, basis.column(from + j), basis.candidate(j));
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

/// Observer v's entries (write_projections' layout) and report. On its ball (view_ball.hpp) the basis is
/// built on the local problem, with the floor of inner products of the ball's length (docs/math.md §6.9
/// "Numerics"); entries outside the ball are 0.
GossipViewObserver observer_entries(const GossipViewProblem& p, std::int64_t max_rank, std::int64_t v,
                                    std::int64_t source, ViewBallFinder& finder, ViewBall& ball,
                                    std::vector<double>& local_row, double* out) {
  if (!finder.find(p, v, ball_limit(p), ball)) {
    const ViewBasis basis = observer_basis(p, gossip_view_floor_of(p.n, max_rank), v);
    write_projections(basis, p.n, source, out);
    return basis.report();
  }
  GossipViewProblem local = p;
  local.n = ball.size();
  local.w_offsets = ball.offsets.data();
  local.w_columns = ball.columns.data();
  local.w_values = ball.values.data();
  const ViewBasis basis = span_basis(local, gossip_view_floor_of(local.n, max_rank), ball.start,
                                     std::span<const std::int32_t>(&ball.observer, p.knows_noise ? 1 : 0),
                                     std::min(local.n, gossip_view_max_rank(p, v)));
  if (source >= 0) {
    const std::int64_t u = ball.local(source);
    if (u < 0)
      out[0] = 0.0;
    else
      write_projections(basis, local.n, u, out);
  } else {
    local_row.resize(static_cast<std::size_t>(local.n));
    squared_projections(basis, local.n, local_row.data());
    std::fill(out, out + p.n, 0.0);
    for (std::int64_t k = 0; k < local.n; ++k) out[ball.nodes[static_cast<std::size_t>(k)]] = local_row[k];
  }
  return basis.report();
}

/// Observers observer(0 .. count - 1), one per thread (gossip_view_cpu's contract).
template <class Observer>
void observers_cpu(const GossipViewProblem& p, std::int64_t count, Observer observer, std::int64_t source,
                   std::span<double> projections, std::span<GossipViewObserver> reports,
                   const std::function<bool(std::int64_t)>& done) {
  use_single_threaded_blas();
  const std::int64_t n = p.n, max_rank = largest_max_rank(p);
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> finished{0};
  std::mutex report;
#pragma omp parallel
  {
    ViewBallFinder finder(p.use_balls ? n : 0);
    ViewBall ball;
    std::vector<double> local_row;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) {
      if (stop.load(std::memory_order_relaxed)) continue;
      reports[static_cast<std::size_t>(i)] =
          observer_entries(p, max_rank, observer(i), source, finder, ball, local_row,
                           projections.data() + (source >= 0 ? i : i * n));
      const std::int64_t k = finished.fetch_add(1) + 1;
      if (done && (k % 16 == 0 || k == count)) {
        std::lock_guard<std::mutex> lock(report);
        if (!done(k)) stop = true;
      }
    }
  }
}

}  // namespace

void gossip_view_cpu(const GossipViewProblem& p, std::int64_t first, std::int64_t count, std::int64_t source,
                     std::span<double> projections, std::span<GossipViewObserver> observers,
                     const std::function<bool(std::int64_t)>& done) {
  observers_cpu(
      p, count, [first](std::int64_t i) { return first + i; }, source, projections, observers, done);
}

void gossip_view_listed_cpu(const GossipViewProblem& p, std::span<const std::int32_t> observers,
                            std::int64_t source, std::span<double> projections,
                            std::span<GossipViewObserver> reports,
                            const std::function<bool(std::int64_t)>& done) {
  observers_cpu(
      p, static_cast<std::int64_t>(observers.size()),
      [observers](std::int64_t i) { return std::int64_t(observers[static_cast<std::size_t>(i)]); }, source,
      projections, reports, done);
}

void gossip_view_twin_cpu(const GossipViewProblem& p, std::span<const std::int32_t> observers,
                          std::int64_t source, std::span<double> projections,
                          std::span<GossipViewObserver> reports,
                          const std::function<bool(std::int64_t)>& done) {
  const std::int64_t n = p.n, count = static_cast<std::int64_t>(observers.size());
  // One slot per thread, sized for the largest observer listed (the body lays its slot out with these).
  std::int64_t rank_capacity = 1, width_capacity = 1;
  for (std::int32_t v : observers) {
    rank_capacity = std::max(rank_capacity, gossip_view_max_rank(p, v));
    width_capacity = std::max(width_capacity, p.g_offsets[v + 1] - p.g_offsets[v]);
  }
  gossip_view::ObserverBody body =
      gossip_view::observer_body(p, gossip_view_floor(p), source, rank_capacity, width_capacity);
  body.slots = 1;
  body.interleaved = false;
  const std::size_t slot =
      static_cast<std::size_t>(gossip_view::slot_doubles(n, rank_capacity, width_capacity));
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> finished{0};
  std::mutex report;
#pragma omp parallel
  {
    std::vector<double> workspace(count > 0 ? slot : 0);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) {
      if (stop.load(std::memory_order_relaxed)) continue;
      // The body's item 0 is observer i: its slot is this thread's workspace, its outputs observer i's.
      gossip_view::ObserverBody one = body;
      one.observers = observers.data() + i;
      one.workspace = workspace.data();
      one.projections = projections.data() + (source >= 0 ? i : i * n);
      one.reports = reports.data() + i;
      one(0);
      const std::int64_t k = finished.fetch_add(1) + 1;
      if (done && (k % 16 == 0 || k == count)) {
        std::lock_guard<std::mutex> lock(report);
        if (!done(k)) stop = true;
      }
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
