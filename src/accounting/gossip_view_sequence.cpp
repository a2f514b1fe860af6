// Driver of the exact accountant on a gossip schedule (docs/math.md §6.9): observer batches that fit the
// memory, the CPU kernel (kernels/gossip_loss_sequence_kernels.hpp, sequence_view_cpu), then the loss rows.
#include "accounting/gossip_view_sequence.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "accounting/gossip_view.hpp"
#include "common/memory_plan.hpp"
#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {
namespace {

namespace memory_plan = kernels::memory_plan;

/// A constant schedule with a symmetric doubly-stochastic W is the fixed-W problem: its messages W^t e_w span
/// a block Krylov space, which the fixed-W engine builds without forming the powers (better conditioned than
/// the explicit rows past a few steps, docs/gossip_loss_sequence.md "Numerics").
bool fixed_krylov_problem(const GossipSchedule& s, const GossipLossParams& p) {
  if (!s.constant || s.steps <= p.t_start) return false;
  try {
    validate_gossip_matrix(s.rounds.front().w, s.rounds.front().graph);
  } catch (const InvalidInput&) {
    return false;  // row-stochastic only: explicit rows
  }
  return true;
}

}  // namespace

kernels::SequenceProblem sequence_problem(const GossipSchedule& s, kernels::SequenceKind kind,
                                          std::vector<RoundView>& rounds) {
  rounds.clear();
  if (!s.randomized())
    for (int t = 0; t < s.steps; ++t) rounds.push_back({s.round(t).w, s.round(t).graph});
  return {
      .kind = kind, .n = s.n, .steps = s.steps, .rounds = rounds.data(), .activations = s.activations.data()};
}

ResolvedDevice sequence_device(const GossipSchedule& s, const DeviceSpec& spec) {
  ResolvedDevice device = resolve_device(spec);
  if (s.randomized() && spec.kind == DeviceKind::automatic && device.kind == DeviceKind::cuda) {
    device = resolve_device(DeviceSpec{DeviceKind::cpu});
    device.note = "auto: randomized gossip runs on the CPU (one edge per tick: docs/cuda_backend.md)";
  }
  return device;
}

GossipLossRun gossip_loss_sequence_exact(const GossipSchedule& s, const GossipLossParams& p,
                                         LossRowSink& sink) {
  if (fixed_krylov_problem(s, p)) {  // T + t_start rounds = gossip_loss with T steps from t_start
    GossipLossParams fixed = p;
    fixed.steps = s.steps - p.t_start;
    return gossip_loss(s.rounds.front().graph, s.rounds.front().w, fixed, sink);
  }
  const auto started = std::chrono::steady_clock::now();
  const node_t n = s.n;
  const bool knows = p.observer_knows == ObserverKnowledge::input_and_noise, randomized = s.randomized();
  const std::vector<std::int64_t> messages = kernels::sequence_messages(s, p.t_start);
  std::int64_t max_rank = 1;
  for (node_t v = 0; v < n; ++v)
    max_rank = std::max(max_rank, kernels::sequence_view_max_rank(n, messages[v], knows));
  const double floor = kernels::gossip_view_floor_of(n, max_rank);

  // Memory: the products, the projections (n x n, or n with a source), an output tile, then the bases.
  const std::int64_t tile = memory_plan::output_tile(p.source ? 1 : n, n);
  const double fixed = kernels::sequence_state_bytes(n, 0, !randomized) +
                       8.0 * (p.source ? double(n) : double(n) * double(n)) + 8.0 * double(tile) * double(n);
  const double budget = double(memory_plan::host_budget(available_memory_bytes(), p.memory_limit));
  // Observers: all of them, or with a source those whose view can hold x_u (the others' loss is exactly 0).
  std::vector<node_t> observers;
  if (p.source) {
    observers = kernels::sequence_observers_reaching(s, p.t_start, *p.source);
  } else {
    observers.resize(static_cast<std::size_t>(n));
    for (node_t v = 0; v < n; ++v) observers[v] = v;
  }
  const std::vector<double> bytes = kernels::sequence_view_bytes(s, p.t_start, messages, knows, observers);
  const double one = bytes.empty() ? 0.0 : *std::max_element(bytes.begin(), bytes.end());
  if (fixed + one > budget)
    throw InsufficientMemory(
        "gossip-loss-sequence (exact): n = " + std::to_string(n) + " needs " +
        format_double((fixed + one) / double(1 << 30)) +
        " GiB (the dense n x n products, the projections and one observer's basis), but only " +
        format_double(budget / double(1 << 30)) + " GiB is available");
  const memory_plan::ConsecutiveBatches batches =
      memory_plan::plan_consecutive_batches(bytes, budget - fixed);

  // projections[i * n + u] (all sources) or projections[i] (one) for v = observers[i].
  const node_t source = p.source.value_or(-1);
  const std::size_t stride = p.source ? 1 : static_cast<std::size_t>(n);
  std::vector<double> projections(observers.size() * stride);
  std::vector<kernels::GossipViewObserver> report(observers.size());
  const ResolvedDevice device = sequence_device(s, p.device);
  std::int64_t memory_estimate = 0, passes = 0;
  if (device.kind == DeviceKind::cuda) {  // the CUDA twin plans its own batches (docs/cuda_backend.md)
    std::vector<RoundView> rounds;
    kernels::SequenceViewProblem problem;
    problem.schedule = sequence_problem(
        s, randomized ? kernels::SequenceKind::randomized : kernels::SequenceKind::synchronous, rounds);
    problem.schedule.t_start = p.t_start;
    problem.knows_noise = knows;
    problem.floor = floor;
    problem.source = source;
    const kernels::SequenceViewShape shape =
        kernels::sequence_view_shape(s, p.t_start, messages, knows, observers);
    problem.observers = observers.data();
    problem.count = static_cast<std::int64_t>(observers.size());
    problem.capacities = shape.capacities.data();
    problem.width_capacity = shape.width_capacity;
    const kernels::CudaSequenceViewRun cuda = kernels::gossip_view_sequence_cuda(
        problem, device.index, p.memory_limit, projections.data(), report.data());
    memory_estimate = cuda.device_bytes;
    passes = cuda.batches;
  } else {
    kernels::SequenceState st(n, 0, 0, !randomized);
    for (std::size_t done = 0; const std::int64_t count : batches.counts) {
      const std::span<const node_t> batch =
          std::span<const node_t>(observers).subspan(done, std::size_t(count));
      kernels::sequence_view_cpu(s, p.t_start, messages, knows, floor, batch, source, st,
                                 std::span(projections).subspan(done * stride, batch.size() * stride),
                                 std::span(report).subspan(done, batch.size()));
      done += batch.size();
      throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
    }
    passes = static_cast<std::int64_t>(batches.counts.size());
    memory_estimate = static_cast<std::int64_t>(fixed + batches.largest_bytes);
  }

  const double ldp = gossip_ldp_loss(p);
  const node_t first = p.source.value_or(0), rows = p.source ? 1 : n;
  std::vector<double> out(static_cast<std::size_t>(tile * n), 0.0);
  if (p.source) {  // one row: v's value at its place in the list, 0 elsewhere (and at v = u)
    for (std::size_t i = 0; i < observers.size(); ++i) out[observers[i]] = ldp * projections[i];
    sink.consume(first, 1, std::span<const double>(out.data(), static_cast<std::size_t>(n)));
  } else {  // observers[v] = v
    for (node_t start = 0; start < n; start += static_cast<node_t>(tile)) {
      const node_t here = static_cast<node_t>(std::min<std::int64_t>(tile, n - start));
      for (node_t j = 0; j < here; ++j) {
        const node_t u = start + j;
        for (node_t v = 0; v < n; ++v)
          out[static_cast<std::size_t>(j) * n + v] = v == u ? 0.0 : ldp * projections[std::size_t(v) * n + u];
      }
      sink.consume(start, here, std::span<const double>(out.data(), static_cast<std::size_t>(here) * n));
    }
  }

  GossipLossRun run;
  run.accounting = "exact";
  run.device = device.name;
  run.device_note = device.note;
  run.propagation = randomized ? "explicit-rows-randomized" : "explicit-rows";
  run.passes = static_cast<int>(passes);
  run.tile_sources = tile;
  run.tiles = (rows + tile - 1) / tile;
  run.memory_estimate = memory_estimate;
  run.view_floor = floor;
  add_view_report(run, report);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return run;
}

}  // namespace netdp
