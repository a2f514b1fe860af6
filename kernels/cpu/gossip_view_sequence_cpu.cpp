// CPU backend of the exact accountant on a gossip schedule (docs/math.md §6.9, time-varying schedules): the
// messages are rows of the products W_{0:t}, not a Krylov space, so P = W_{0:t} is propagated once and every
// observer's basis (kernels/cpu/view_basis.hpp) is fed, round by round, with the rows it receives.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "common/for_each.hpp"
#include "common/gossip_view_sequence_bodies.hpp"
#include "cpu/view_basis.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/ground/serial_blas.hpp"

namespace netdp::kernels {
namespace {

std::size_t row_offset(node_t row, node_t n) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(n);
}

/// The largest number of rows v receives in one round (the candidate block of its basis).
std::int64_t block_width(const ScheduleView& s, int t_start, node_t v) {
  std::int64_t width = 1;
  if (!s.randomized())
    for (int t = std::max(t_start, 0); t < s.steps; ++t)
      width = std::max<std::int64_t>(width, s.round(t).graph.degree(v));
  return width;
}

/// Appends row w of P as the next candidate of `basis`.
void stage_row(const SequenceState& st, node_t w, ViewBasis& basis, std::int64_t j) {
  const double* row = st.product.data() + row_offset(w, st.n);
  std::copy(row, row + st.n, basis.candidate(j));
}

}  // namespace

std::vector<std::int64_t> sequence_messages(const ScheduleView& s, int t_start) {
  std::vector<std::int64_t> count(static_cast<std::size_t>(s.n), 0);
  for (int t = std::max(t_start, 0); t < s.steps; ++t) {
    if (s.randomized()) {
      const auto [v, w] = s.activations[static_cast<std::size_t>(t)];
      if (v != w) ++count[v], ++count[w];
    } else {
      GraphView g = s.round(t).graph;
      for (node_t v = 0; v < s.n; ++v) count[v] += g.degree(v);
    }
  }
  return count;
}

std::int64_t sequence_view_max_rank(node_t n, std::int64_t messages, bool knows_noise) {
  return std::min<std::int64_t>(n, messages + (knows_noise ? 1 : 0));
}

std::vector<node_t> sequence_observers_reaching(const ScheduleView& s, int t_start, node_t u) {
  // reach[w]: row w of W_{0:t} has a structural non-zero at u (W_t's pattern, its diagonal included).
  std::vector<char> reach(static_cast<std::size_t>(s.n), 0), next(reach.size()), seen(reach.size(), 0);
  reach[u] = 1;
  for (int t = 0; t < s.steps; ++t) {
    if (s.randomized()) {
      const auto [v, w] = s.activations[static_cast<std::size_t>(t)];
      if (v == w) continue;
      if (t >= t_start) seen[v] |= reach[w], seen[w] |= reach[v];
      reach[v] = reach[w] = reach[v] | reach[w];
      continue;
    }
    const RoundView& round = s.round(t);
    if (t >= t_start)
      for (node_t v = 0; v < s.n; ++v)
        for (node_t w : round.graph.neighbors(v)) seen[v] |= reach[w];
    for (node_t w = 0; w < s.n; ++w) {
      next[w] = 0;
      for (auto k = round.w.offsets[w]; k < round.w.offsets[w + 1]; ++k)
        if (round.w.values[k] != 0.0 && reach[round.w.columns[k]]) next[w] = 1;
    }
    reach.swap(next);
  }
  std::vector<node_t> observers;
  for (node_t v = 0; v < s.n; ++v)
    if (v != u && seen[v]) observers.push_back(v);
  return observers;
}

std::vector<double> sequence_view_bytes(const ScheduleView& s, int t_start,
                                        std::span<const std::int64_t> messages, bool knows_noise,
                                        std::span<const node_t> observers) {
  std::vector<double> bytes;
  bytes.reserve(observers.size());
  for (node_t v : observers) {
    const double rank = double(sequence_view_max_rank(s.n, messages[v], knows_noise));
    const double width = double(block_width(s, t_start, v));
    bytes.push_back(8.0 * (double(s.n) * (rank + width) + rank * width + 2 * width));
  }
  return bytes;
}

void sequence_view_cpu(const ScheduleView& s, int t_start, std::span<const std::int64_t> messages,
                       bool knows_noise, double floor, std::span<const node_t> batch, node_t source,
                       SequenceState& st, std::span<double> projections,
                       std::span<GossipViewObserver> observers) {
  use_single_threaded_blas();
  const node_t n = s.n, count = static_cast<node_t>(batch.size());
  std::vector<std::unique_ptr<ViewBasis>> bases(batch.size());
  std::vector<std::int64_t> index(static_cast<std::size_t>(n), -1);  // observer -> its place in the batch
  for (node_t i = 0; i < count; ++i) {
    index[batch[i]] = i;
    bases[i] =
        std::make_unique<ViewBasis>(n, floor, sequence_view_max_rank(n, messages[batch[i]], knows_noise),
                                    block_width(s, t_start, batch[i]));
  }
  st.reset_identity();
  for (int t = 0; t < s.steps; ++t) {
    if (s.randomized()) {
      // Tick t: v receives row w of W_{0:t} and w row v, the values before the averaging (docs/math.md §6.3).
      const auto [v, w] = s.activations[static_cast<std::size_t>(t)];
      if (v == w) continue;
      if (t >= t_start)
        for (const auto& [observer, sender] : {std::pair{v, w}, std::pair{w, v}})
          if (index[observer] >= 0) {
            ViewBasis& basis = *bases[index[observer]];
            stage_row(st, sender, basis, 0);
            basis.accept(1);
          }
      average_rows(st, v, w);
      continue;
    }
    const RoundView& round = s.round(t);
    if (t >= t_start && round.graph.num_edges() > 0) {
#pragma omp parallel for schedule(dynamic, 1)
      for (node_t i = 0; i < count; ++i) {
        ViewBasis& basis = *bases[i];
        std::int64_t j = 0;
        for (node_t w : round.graph.neighbors(batch[i])) stage_row(st, w, basis, j++);  // increasing ids
        if (j > 0) basis.accept(j);
      }
    }
    if (t + 1 < s.steps) left_multiply(round.w, st);  // W_{0:T} itself is never sent
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (node_t i = 0; i < count; ++i) {
    ViewBasis& basis = *bases[i];
    if (knows_noise) {
      double* c = basis.candidate(0);
      std::fill(c, c + n, 0.0);
      c[batch[i]] = 1.0;
      basis.accept(1);
    }
    write_projections(basis, n, source,
                      projections.data() + (source >= 0 ? static_cast<std::size_t>(i) : row_offset(i, n)));
    observers[static_cast<std::size_t>(i)] = basis.report();
  }
}

SequenceViewShape sequence_view_shape(const ScheduleView& s, int t_start,
                                      std::span<const std::int64_t> messages, bool knows_noise,
                                      std::span<const node_t> batch) {
  SequenceViewShape shape;
  for (node_t v : batch) {
    shape.capacities.push_back(sequence_view_max_rank(s.n, messages[v], knows_noise));
    shape.width_capacity = std::max(shape.width_capacity, block_width(s, t_start, v));
  }
  return shape;
}

void sequence_view_twin_cpu(const SequenceViewProblem& p, double* projections, GossipViewObserver* reports) {
  const SequenceProblem& s = p.schedule;
  const bool randomized = s.kind == SequenceKind::randomized;
  const std::int64_t n = s.n, count = p.count;
  std::int64_t rank_capacity = 1;
  for (std::int64_t i = 0; i < count; ++i) rank_capacity = std::max(rank_capacity, p.capacities[i]);
  std::vector<double> workspace(
      static_cast<std::size_t>(count * gossip_view::slot_doubles(n, rank_capacity, p.width_capacity)));
  std::vector<gossip_view::BasisState> states(static_cast<std::size_t>(count));
  const gossip_view::SequenceBases bases{
      n,     p.observers, p.capacities,  p.floor,          workspace.data(),
      count, false,       rank_capacity, p.width_capacity, states.data()};
  SequenceState st(s.n, 0, 0, !randomized);
  std::vector<std::int64_t> index(static_cast<std::size_t>(n), -1);  // observer -> its place in the batch
  for (std::int64_t i = 0; i < count; ++i) index[p.observers[i]] = i;
  for (int t = 0; t < s.steps; ++t) {
    if (randomized) {
      const auto [v, w] = s.activations[t];
      if (v == w) continue;
      if (t >= s.t_start) {
        const gossip_view::TickMessagesBody tick{bases, index.data(), st.product.data(), v, w};
        tick(0);
        tick(1);
      }
      average_rows(st, v, w);
      continue;
    }
    const RoundView& round = s.rounds[t];
    if (t >= s.t_start && round.graph.num_edges() > 0)
      host_for_each(
          count,
          gossip_view::RoundMessagesBody{
              bases, {round.graph.offsets.data(), round.graph.adjacency.data(), nullptr}, st.product.data()});
    if (t + 1 < s.steps) left_multiply(round.w, st);  // W_{0:T} itself is never sent
  }
  host_for_each(count, gossip_view::FinishViewsBody{bases, p.knows_noise, p.source, projections, reports});
}

}  // namespace netdp::kernels
