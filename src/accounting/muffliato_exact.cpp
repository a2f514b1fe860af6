// Exact accountant of linear Muffliato-GD runs (docs/math.md §6.5 "Exact accounting of linear runs"): the
// noise coefficients of every node's state (n x nT) are propagated through the T rounds once per batch of
// observers, and each observer's basis (kernels/cpu/view_basis.hpp, the §6.9 Gram-Schmidt and floor) is fed
// the rows of the messages it receives.
#include "netdp/accounting/muffliato_exact.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include "accounting/gossip_view.hpp"
#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "cpu/view_basis.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/ground/serial_blas.hpp"

namespace netdp {
namespace {

using Index = std::int64_t;

/// out = W x on the first `cols` columns (row-major n x stride); the other columns are left alone.
void csr_rows(const CsrMatrix& w, const double* x, double* out, Index stride, Index cols) {
#pragma omp parallel for schedule(static)
  for (node_t i = 0; i < w.n; ++i) {
    double* o = out + i * stride;
    std::fill(o, o + cols, 0.0);
    for (auto k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      const double a = w.values[k];
      const double* r = x + Index(w.columns[k]) * stride;
      for (Index c = 0; c < cols; ++c) o[c] += a * r[c];
    }
  }
}

/// ||P c_u||^2 = ||sum_t q_{u,t}||^2 (same shift), or min(T, sum_{s,t} |q_{u,s} . q_{u,t}|), for every u
/// (source < 0) or the source only; q_{u,t} = row t n + u of the basis (column-major, N rows).
void write_shares(const kernels::ViewBasis& basis, node_t n, int rounds, bool same_shift, node_t source,
                  node_t observer, double* out) {
  const Index r = basis.rank();
  std::vector<double> q(static_cast<std::size_t>(rounds * r));
  for (node_t u = source < 0 ? 0 : source; u < (source < 0 ? n : source + 1); ++u) {
    double* target = out + (source < 0 ? u : 0);
    if (u == observer) {
      *target = 0;
      continue;
    }
    for (int t = 0; t < rounds; ++t)
      for (Index j = 0; j < r; ++j) q[std::size_t(t * r + j)] = basis.column(j)[Index(t) * n + u];
    double share = 0;
    if (same_shift) {
      for (Index j = 0; j < r; ++j) {
        double sum = 0;
        for (int t = 0; t < rounds; ++t) sum += q[std::size_t(t * r + j)];
        share += sum * sum;
      }
    } else {
      for (int s = 0; s < rounds; ++s)
        for (int t = 0; t < rounds; ++t) {
          double dot = 0;
          for (Index j = 0; j < r; ++j) dot += q[std::size_t(s * r + j)] * q[std::size_t(t * r + j)];
          share += std::abs(dot);
        }
    }
    *target = std::clamp(share, 0.0, double(rounds));  // Q is orthonormal to rounding: ||P c||^2 <= ||c||^2
  }
}

}  // namespace

MuffliatoExactResult muffliato_exact_shares(const GossipSchedule& s, std::span<const double> gammas,
                                            const MuffliatoExactParams& p) {
  const auto started = std::chrono::steady_clock::now();
  if (p.rounds < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(p.rounds));
  if (p.gossip_steps < 1)
    throw InvalidParameter("gossip-rounds",
                           "gossip-rounds must be >= 1, got " + std::to_string(p.gossip_steps));
  if (s.randomized())
    throw InvalidParameter("schedule", "the exact Muffliato-GD accountant needs synchronous rounds");
  if (!s.constant && s.steps < p.rounds)
    throw InvalidParameter("schedule", "the schedule has " + std::to_string(s.steps) +
                                           " rounds, fewer than " + std::to_string(p.rounds));
  if (gammas.size() != 1 && gammas.size() < std::size_t(p.rounds))
    throw InvalidParameter("gamma", "one Chebyshev gamma, or one per round, is needed");
  const node_t n = s.n;
  if (p.source && (*p.source < 0 || *p.source >= n))
    throw InvalidParameter("source", "source must be in [0, n), got " + std::to_string(*p.source));
  kernels::use_single_threaded_blas();
  const int T = p.rounds, K = p.gossip_steps;
  const Index N = Index(n) * T;  // noise entries: column t n + w is node w's noise at round t

  // Most rows v can receive, its widest block, the floor of §6.9 on vectors of length N.
  std::vector<Index> max_rank(static_cast<std::size_t>(n), 0), width(static_cast<std::size_t>(n), 1);
  for (int t = 0; t < T; ++t)
    for (node_t v = 0; v < n; ++v) {
      const Index d = s.round(t).graph.degree(v);
      max_rank[v] += Index(K) * d;
      width[v] = std::max(width[v], d);
    }
  Index r_max = 1;
  for (auto& r : max_rank) r_max = std::max(r_max, r = std::min(r, N));
  const double floor = kernels::gossip_view_floor_of(N, r_max);

  std::vector<node_t> observers;
  for (node_t v = 0; v < n; ++v)
    if (!p.source || v != *p.source) observers.push_back(v);
  auto bytes_of = [&](node_t v) {
    const double r = double(std::max<Index>(max_rank[v], 1)), b = double(width[v]);
    return 8.0 * (double(N) * (r + b) + r * b + 2 * b);
  };
  const double fixed = 8.0 * 3 * double(n) * double(N) + 8.0 * (p.source ? double(n) : double(n) * double(n));
  const double budget =
      p.memory_limit > 0 ? double(p.memory_limit) : double(available_memory_bytes()) * 4.0 / 5.0;
  double one = 0;
  for (node_t v : observers) one = std::max(one, bytes_of(v));
  if (fixed + one > budget)
    throw InsufficientMemory("muffliato-gd exact accounting: n = " + std::to_string(n) + ", T = " +
                             std::to_string(T) + " needs " + format_double((fixed + one) / double(1 << 30)) +
                             " GiB (the n x nT noise coefficients and one observer's basis), but only " +
                             format_double(budget / double(1 << 30)) + " GiB is available");

  MuffliatoExactResult result;
  result.n = n;
  result.bound = !p.same_shift;
  const node_t source = p.source.value_or(-1);
  result.share.assign(p.source ? std::size_t(n) : std::size_t(n) * std::size_t(n), 0.0);
  std::vector<kernels::GossipViewObserver> report(observers.size());
  std::vector<double> buffers(static_cast<std::size_t>(3 * Index(n) * N));
  double largest = 0;
  int batches = 0;
  for (std::size_t first = 0; first < observers.size(); ++batches) {
    // The next batch: as many observers as the budget holds (at least one).
    std::size_t last = first;
    double held = 0;
    while (last < observers.size() && (last == first || fixed + held + bytes_of(observers[last]) <= budget))
      held += bytes_of(observers[last++]);
    largest = std::max(largest, held);
    const Index count = Index(last - first);
    std::vector<std::unique_ptr<kernels::ViewBasis>> bases(static_cast<std::size_t>(count));
    for (Index i = 0; i < count; ++i) {
      const node_t v = observers[first + std::size_t(i)];
      bases[std::size_t(i)] =
          std::make_unique<kernels::ViewBasis>(N, floor, std::max<Index>(max_rank[v], 1), width[v]);
    }
    double* state = buffers.data();  // theta^t's coefficients; theta^0 = 0
    std::fill(buffers.begin(), buffers.end(), 0.0);
    for (int t = 0; t < T; ++t) {
      const GossipRound& round = s.round(t);
      const double gamma = gammas[gammas.size() == 1 ? 0 : std::size_t(t)];
      const Index cols = Index(t + 1) * n;  // later rounds' noise has not entered yet
      // theta_hat = a theta + z_t (in units of nu s; the data shift nu d enters where z_u does).
      for (node_t w = 0; w < n; ++w) {
        double* row = state + Index(w) * N;
        for (Index c = 0; c < cols; ++c) row[c] *= p.state_factor;
        row[Index(t) * n + w] += 1.0;
      }
      double *prev = nullptr, *cur = state, *next = nullptr;
      for (double* b : {buffers.data(), buffers.data() + n * N, buffers.data() + 2 * n * N})
        if (b != state) (next ? prev : next) = b;
      for (int k = 0; k < K; ++k) {
        // Messages x^k_w of the neighbours (increasing ids), v's own noise removed when it knows it.
#pragma omp parallel for schedule(dynamic, 1)
        for (Index i = 0; i < count; ++i) {
          const node_t v = observers[first + std::size_t(i)];
          kernels::ViewBasis& basis = *bases[std::size_t(i)];
          Index j = 0;
          for (node_t w : round.graph.neighbors(v)) {
            double* c = basis.candidate(j++);
            std::copy(cur + Index(w) * N, cur + Index(w) * N + N, c);
            if (p.knows_noise)
              for (int r = 0; r < T; ++r) c[Index(r) * n + v] = 0.0;
          }
          if (j > 0) basis.accept(j);
        }
        // x^1 = W x^0, x^{k+1} = gamma W x^k + (1 - gamma) x^{k-1} (docs/math.md §2.4).
        csr_rows(round.w, cur, next, N, cols);
        if (k > 0)
          for (Index e = 0; e < Index(n); ++e) {
            double* nx = next + e * N;
            const double* pv = prev + e * N;
            for (Index c = 0; c < cols; ++c) nx[c] = gamma * nx[c] + (1.0 - gamma) * pv[c];
          }
        double* free = prev;
        prev = cur, cur = next, next = free;
      }
      state = cur;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (Index i = 0; i < count; ++i) {
      const node_t v = observers[first + std::size_t(i)];
      if (p.source) {
        write_shares(*bases[std::size_t(i)], n, T, p.same_shift, source, v, result.share.data() + v);
      } else {  // column v of the n x n matrix share[u * n + v]
        std::vector<double> column(static_cast<std::size_t>(n));
        write_shares(*bases[std::size_t(i)], n, T, p.same_shift, -1, v, column.data());
        for (node_t u = 0; u < n; ++u) result.share[std::size_t(u) * n + v] = column[u];
      }
      report[first + std::size_t(i)] = bases[std::size_t(i)]->report();
    }
    first = last;
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
  }

  GossipLossRun& run = result.run;
  run.accounting = p.same_shift ? "exact" : "bound";
  run.device = "cpu (" + std::to_string(omp_get_max_threads()) + " threads)";
  run.propagation = "explicit-rows";
  run.passes = batches;
  run.memory_estimate = static_cast<std::int64_t>(fixed + largest);
  run.view_floor = floor;
  add_view_report(run, report);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace netdp
