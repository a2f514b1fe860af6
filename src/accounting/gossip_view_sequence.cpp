// Driver of the exact accountant on a gossip schedule (docs/math.md §6.9): observer batches that fit the
// memory, the CPU kernel (kernels/gossip_loss_sequence_kernels.hpp, sequence_view_cpu), then the loss rows.
#include "accounting/gossip_view_sequence.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/format.hpp"

namespace netdp {
namespace {

struct Batch {
  node_t first = 0, count = 0;
};

/// Consecutive observers whose bases fit `room` bytes together (at least one each).
std::vector<Batch> plan_batches(const GossipSchedule& s, std::span<const std::int64_t> messages, bool knows,
                                double room) {
  std::vector<Batch> batches;
  for (node_t v = 0; v < s.n;) {
    Batch b{v, 0};
    while (v < s.n &&
           (b.count == 0 || kernels::sequence_view_bytes(s, messages, knows, b.first, b.count + 1) <= room))
      ++b.count, ++v;
    batches.push_back(b);
  }
  return batches;
}

void add_observers(GossipLossRun& run, std::span<const kernels::GossipViewObserver> observers) {
  for (const auto& o : observers) {
    run.view_rank_min = run.view_observers == 0 ? o.rank : std::min<std::int64_t>(run.view_rank_min, o.rank);
    run.view_rank_max = std::max<std::int64_t>(run.view_rank_max, o.rank);
    run.view_rank_mean += o.rank;
    run.view_dropped += o.dropped;
    if (o.rank > 0)
      run.view_smallest_kept =
          run.view_smallest_kept == 0 ? o.smallest_kept : std::min(run.view_smallest_kept, o.smallest_kept);
    ++run.view_observers;
  }
  if (run.view_observers > 0) run.view_rank_mean /= double(run.view_observers);
}

}  // namespace

GossipLossRun gossip_loss_sequence_exact(const GossipSchedule& s, const GossipLossParams& p,
                                         LossRowSink& sink) {
  const auto started = std::chrono::steady_clock::now();
  const node_t n = s.n;
  const bool knows = p.observer_knows == ObserverKnowledge::input_and_noise, randomized = s.randomized();
  const std::vector<std::int64_t> messages = kernels::sequence_messages(s, p.t_start);
  std::int64_t max_rank = 1;
  for (node_t v = 0; v < n; ++v)
    max_rank = std::max(max_rank, kernels::sequence_view_max_rank(n, messages[v], knows));
  const double floor = kernels::gossip_view_floor(n, max_rank);

  // Memory: the products, the projections (n x n, or n with a source), an output tile, then the bases.
  const std::int64_t tile =
      std::min<std::int64_t>(p.source ? 1 : n, std::max<std::int64_t>(1, (64 << 20) / (8 * std::int64_t(n))));
  const double fixed = kernels::sequence_state_bytes(n, 0, !randomized) +
                       8.0 * (p.source ? double(n) : double(n) * double(n)) + 8.0 * double(tile) * double(n);
  const double budget =
      p.memory_limit > 0 ? double(p.memory_limit) : double(available_memory_bytes()) * 4.0 / 5.0;
  const double one = kernels::sequence_view_bytes(s, messages, knows, 0, 1);
  if (fixed + one > budget)
    throw InsufficientMemory(
        "gossip-loss-sequence (exact): n = " + std::to_string(n) + " needs " +
        format_double((fixed + one) / double(1 << 30)) +
        " GiB (the dense n x n products, the projections and one observer's basis), but only " +
        format_double(budget / double(1 << 30)) + " GiB is available");
  const std::vector<Batch> batches = plan_batches(s, messages, knows, budget - fixed);

  kernels::SequenceState st(n, 0, 0, !randomized);
  const node_t source = p.source.value_or(-1);
  std::vector<double> projections(static_cast<std::size_t>(p.source ? n : std::int64_t(n) * n));
  std::vector<kernels::GossipViewObserver> report(static_cast<std::size_t>(n));
  for (const Batch& b : batches) {
    const std::size_t offset =
        static_cast<std::size_t>(b.first) * (p.source ? 1 : static_cast<std::size_t>(n));
    kernels::sequence_view_cpu(s, p.t_start, messages, knows, floor, b.first, b.count, source, st,
                               std::span(projections).subspan(offset),
                               std::span(report).subspan(static_cast<std::size_t>(b.first), b.count));
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
  }

  const double ldp = gossip_ldp_loss(p);
  const node_t first = p.source.value_or(0), rows = p.source ? 1 : n;
  std::vector<double> out(static_cast<std::size_t>(tile * n));
  for (node_t start = first; start < first + rows; start += static_cast<node_t>(tile)) {
    const node_t here = static_cast<node_t>(std::min<std::int64_t>(tile, first + rows - start));
    for (node_t j = 0; j < here; ++j) {
      const node_t u = start + j;
      for (node_t v = 0; v < n; ++v)
        out[static_cast<std::size_t>(j) * n + v] =
            v == u ? 0.0 : ldp * projections[p.source ? std::size_t(v) : std::size_t(v) * n + u];
    }
    sink.consume(start, here, std::span<const double>(out.data(), static_cast<std::size_t>(here) * n));
  }

  GossipLossRun run;
  run.accounting = "exact";
  run.device = "cpu (" + std::to_string(omp_get_max_threads()) + " threads)";
  if (p.device.kind == DeviceKind::cuda) run.device_note = "the time-varying accountant runs on the CPU only";
  run.propagation = randomized ? "explicit-rows-randomized" : "explicit-rows";
  run.passes = static_cast<int>(batches.size());
  run.tile_sources = tile;
  run.tiles = (rows + tile - 1) / tile;
  run.memory_estimate = static_cast<std::int64_t>(
      fixed + kernels::sequence_view_bytes(s, messages, knows, batches.front().first, batches.front().count));
  run.view_floor = floor;
  add_observers(run, report);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return run;
}

}  // namespace netdp
