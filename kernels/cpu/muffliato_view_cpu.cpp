// CPU engine of the exact accountant of linear Muffliato-GD runs (docs/math.md §6.5 "Exact accounting of
// linear runs"): the noise coefficients of every node's state (n x nT) are propagated through the T rounds
// once per batch of observers, and each observer's basis (view_basis.hpp, the §6.9 Gram-Schmidt and floor) is
// fed the rows of the messages it receives.
#include <algorithm>
#include <cmath>
#include <memory>

#include "common/csr_host.hpp"
#include "common/for_each.hpp"
#include "common/memory_plan.hpp"
#include "common/muffliato_view_bodies.hpp"
#include "cpu/view_basis.hpp"
#include "muffliato_view_kernels.hpp"

namespace netdp::kernels {
namespace {

using Index = std::int64_t;

/// ||P c_u||^2 = ||sum_t q_{u,t}||^2 (same shift), or min(T, sum_{s,t} |q_{u,s} . q_{u,t}|), for every u
/// (source < 0) or the source only; q_{u,t} = row t n + u of the basis (column-major, N rows).
void write_shares(const ViewBasis& basis, node_t n, int rounds, bool same_shift, node_t source,
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

/// The observers a single source reaches (docs/math.md §6.5 "Computation"): `holds` marks the nodes whose
/// state has a nonzero coefficient on one of u's entries, following the nonzero pattern: u's entry enters its
/// own state every round, and each gossip step spreads `holds` over W_t's pattern (x^{k+1} combines W_t x^k
/// and x^{k-1}, whose supports grow). v is reached when a neighbour that holds sends it a message. The
/// others' rows have zeros in u's columns, so ||P_v c_u||^2 = 0 (and the SGD bound, from Q's rows (t, u), is
/// 0 too).
std::vector<node_t> reached_observers(const MuffliatoViewProblem& p, node_t u) {
  const node_t n = p.schedule.n;
  std::vector<char> holds(static_cast<std::size_t>(n), 0), seen(static_cast<std::size_t>(n), 0), next;
  for (int t = 0; t < p.rounds; ++t) {
    const RoundView round = p.schedule.round(t);
    holds[std::size_t(u)] = 1;
    for (int k = 0; k < p.gossip_steps; ++k) {
      for (node_t v = 0; v < n; ++v)
        for (node_t w : round.graph.neighbors(v))
          if (holds[std::size_t(w)]) seen[std::size_t(v)] = 1;
      next = holds;
      for (node_t i = 0; i < n; ++i)
        for (offset_t e = round.w.offsets[i]; e < round.w.offsets[i + 1]; ++e)
          if (holds[std::size_t(round.w.columns[e])] && round.w.values[e] != 0) next[std::size_t(i)] = 1;
      holds.swap(next);
    }
  }
  std::vector<node_t> observers;
  for (node_t v = 0; v < n; ++v)
    if (v != u && seen[std::size_t(v)]) observers.push_back(v);
  return observers;
}

}  // namespace

MuffliatoViewPlan muffliato_view_plan(const MuffliatoViewProblem& p) {
  const node_t n = p.schedule.n;
  const int T = p.rounds, K = p.gossip_steps;
  const Index N = Index(n) * T;  // noise entries: column t n + w is node w's noise at round t
  MuffliatoViewPlan plan;
  plan.max_rank.assign(static_cast<std::size_t>(n), 0);
  plan.width.assign(static_cast<std::size_t>(n), 1);
  for (int t = 0; t < T; ++t) {
    const GraphView graph = p.schedule.round(t).graph;
    for (node_t v = 0; v < n; ++v) {
      const Index d = graph.degree(v);
      plan.max_rank[v] += Index(K) * d;
      plan.width[v] = std::max(plan.width[v], d);
    }
  }
  Index r_max = 1;
  for (auto& r : plan.max_rank) r_max = std::max(r_max, r = std::min(r, N));
  plan.floor = gossip_view_floor_of(N, r_max);
  plan.observer_bytes.resize(static_cast<std::size_t>(n));
  for (node_t v = 0; v < n; ++v) {
    const double r = double(std::max<Index>(plan.max_rank[v], 1)), b = double(plan.width[v]);
    plan.observer_bytes[v] = 8.0 * (double(N) * (r + b) + r * b + 2 * b);
  }
  plan.fixed = 8.0 * 3 * double(n) * double(N) + 8.0 * (p.source >= 0 ? double(n) : double(n) * double(n));
  if (p.source >= 0) {
    plan.observers = reached_observers(p, node_t(p.source));
  } else {
    plan.observers.resize(static_cast<std::size_t>(n));
    for (node_t v = 0; v < n; ++v) plan.observers[std::size_t(v)] = v;
  }
  return plan;
}

MuffliatoViewRun muffliato_view_cpu(const MuffliatoViewProblem& p, const MuffliatoViewPlan& plan,
                                    double budget, std::span<double> share,
                                    std::span<GossipViewObserver> reports,
                                    const std::function<bool(std::int64_t)>& done) {
  use_single_threaded_blas();
  const node_t n = p.schedule.n;
  const int T = p.rounds, K = p.gossip_steps;
  const Index N = Index(n) * T;
  const std::vector<node_t>& observers = plan.observers;  // the others' shares stay 0
  std::vector<double> buffers(static_cast<std::size_t>(3 * Index(n) * N));
  // Batches of consecutive observers, as many as the budget holds (at least one).
  std::vector<double> basis_bytes(observers.size());
  for (std::size_t i = 0; i < observers.size(); ++i) basis_bytes[i] = plan.observer_bytes[observers[i]];
  const memory_plan::ConsecutiveBatches batches =
      memory_plan::plan_consecutive_batches(basis_bytes, budget - plan.fixed);
  MuffliatoViewRun run;
  for (std::size_t first = 0; run.batches < Index(batches.counts.size()); ++run.batches) {
    const Index count = batches.counts[std::size_t(run.batches)];
    const std::size_t last = first + std::size_t(count);
    run.bytes = std::max(run.bytes, plan.fixed + batches.bytes[std::size_t(run.batches)]);
    std::vector<std::unique_ptr<ViewBasis>> bases(static_cast<std::size_t>(count));
    for (Index i = 0; i < count; ++i) {
      const node_t v = observers[first + std::size_t(i)];
      bases[std::size_t(i)] =
          std::make_unique<ViewBasis>(N, plan.floor, std::max<Index>(plan.max_rank[v], 1), plan.width[v]);
    }
    double* state = buffers.data();  // theta^t's coefficients; theta^0 = 0
    std::fill(buffers.begin(), buffers.end(), 0.0);
    for (int t = 0; t < T; ++t) {
      const RoundView round = p.schedule.round(t);
      const double gamma = p.gammas[p.gammas.size() == 1 ? 0 : std::size_t(t)];
      const Index cols = Index(t + 1) * n;  // later rounds' noise has not entered yet (zero columns)
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
          ViewBasis& basis = *bases[std::size_t(i)];
          Index j = 0;
          for (node_t w : round.graph.neighbors(v)) {
            double* c = basis.candidate(j++);
            std::copy(cur + Index(w) * N, cur + Index(w) * N + N, c);
            if (p.knows_noise)
              for (int r = 0; r < T; ++r) c[Index(r) * n + v] = 0.0;
          }
          if (j > 0) basis.accept(j);
        }
        // x^1 = W x^0, x^{k+1} = gamma W x^k + (1 - gamma) x^{k-1} (docs/math.md §2.4); the zero columns
        // of the rounds to come stay zero.
        csr_multiply(round.w, cur, next, N, true);
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
      if (p.source >= 0) {
        write_shares(*bases[std::size_t(i)], n, T, p.same_shift, node_t(p.source), v, share.data() + v);
      } else {  // column v of the n x n matrix share[u * n + v]
        std::vector<double> column(static_cast<std::size_t>(n));
        write_shares(*bases[std::size_t(i)], n, T, p.same_shift, -1, v, column.data());
        for (node_t u = 0; u < n; ++u) share[std::size_t(u) * n + v] = column[u];
      }
      reports[std::size_t(v)] = bases[std::size_t(i)]->report();
    }
    first = last;
    if (done && !done(Index(first))) break;
  }
  return run;
}

MuffliatoViewArrays muffliato_view_arrays(const MuffliatoViewProblem& p, const MuffliatoViewPlan& plan,
                                          std::vector<RoundView>& rounds,
                                          std::vector<std::int64_t>& capacities) {
  MuffliatoViewArrays a;
  rounds.clear();
  for (int t = 0; t < p.rounds; ++t) rounds.push_back(p.schedule.round(t));
  a.schedule.n = p.schedule.n;
  a.schedule.steps = p.rounds;
  a.schedule.rounds = rounds.data();
  a.gammas = p.gammas.data();
  a.gamma_count = static_cast<int>(p.gammas.size());
  a.gossip_steps = p.gossip_steps;
  a.state_factor = p.state_factor;
  a.knows_noise = p.knows_noise;
  a.same_shift = p.same_shift;
  a.source = p.source;
  capacities.clear();
  for (node_t v : plan.observers) {
    capacities.push_back(std::max<Index>(plan.max_rank[v], 1));
    a.width_capacity = std::max(a.width_capacity, plan.width[v]);
  }
  a.observers = plan.observers.data();
  a.count = static_cast<std::int64_t>(plan.observers.size());
  a.capacities = capacities.data();
  a.floor = plan.floor;
  return a;
}

void muffliato_view_twin_cpu(const MuffliatoViewArrays& p, double* share, GossipViewObserver* reports) {
  const Index n = p.schedule.n, N = n * p.schedule.steps, count = p.count;
  const int T = p.schedule.steps, K = p.gossip_steps;
  Index rank_capacity = 1;
  for (Index i = 0; i < count; ++i) rank_capacity = std::max(rank_capacity, p.capacities[i]);
  std::vector<double> workspace(
      static_cast<std::size_t>(count * gossip_view::slot_doubles(N, rank_capacity, p.width_capacity)));
  std::vector<gossip_view::BasisState> states(static_cast<std::size_t>(count));
  const gossip_view::SequenceBases bases{
      N,     p.observers, p.capacities,  p.floor,          workspace.data(),
      count, false,       rank_capacity, p.width_capacity, states.data()};
  std::vector<double> buffers(static_cast<std::size_t>(3 * n * N), 0.0);
  double* state = buffers.data();  // theta^t's coefficients; theta^0 = 0
  for (int t = 0; t < T; ++t) {
    const RoundView& round = p.schedule.rounds[t];
    const double gamma = p.gammas[p.gamma_count == 1 ? 0 : t];
    const Index cols = Index(t + 1) * n;  // later rounds' noise has not entered yet (zero columns)
    host_for_each(n * cols, muffliato_view::InjectNoiseBody{state, n, N, cols, t, p.state_factor});
    double *prev = nullptr, *cur = state, *next = nullptr;
    for (double* b : {buffers.data(), buffers.data() + n * N, buffers.data() + 2 * n * N})
      if (b != state) (next ? prev : next) = b;
    const sequence::CsrArrays graph{round.graph.offsets.data(), round.graph.adjacency.data(), nullptr};
    const sequence::CsrArrays w{round.w.offsets.data(), round.w.columns.data(), round.w.values.data()};
    for (int k = 0; k < K; ++k) {
      host_for_each(count, muffliato_view::MessagesBody{bases, graph, cur, n, T, p.knows_noise});
      host_for_each(n, sequence::ProductBody{w, cur, next, N});
      if (k > 0) host_for_each(n * cols, muffliato_view::ChebyshevBody{next, prev, N, cols, gamma});
      double* free = prev;
      prev = cur, cur = next, next = free;
    }
    state = cur;
  }
  host_for_each(count, muffliato_view::SharesBody{bases, n, p.source, T, p.same_shift, share, reports});
}

}  // namespace netdp::kernels
