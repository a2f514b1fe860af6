// Exact accountant of linear Muffliato-GD runs (docs/math.md §6.5 "Exact accounting of linear runs"): the
// checks, the memory budget and the report; the CPU backend's engine (kernels/cpu/muffliato_view_cpu.cpp), or
// its CUDA twin on a device, propagates the noise coefficients and builds each observer's basis.
#include "netdp/accounting/muffliato_exact.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "accounting/gossip_view.hpp"
#include "common/memory_plan.hpp"
#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "muffliato_view_kernels.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp {

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
  const kernels::MuffliatoViewProblem problem{s,
                                              gammas,
                                              p.rounds,
                                              p.gossip_steps,
                                              p.state_factor,
                                              p.knows_noise,
                                              p.same_shift,
                                              p.source ? std::int64_t(*p.source) : -1};
  const kernels::MuffliatoViewPlan plan = kernels::muffliato_view_plan(problem);
  const double budget = double(kernels::memory_plan::host_budget(available_memory_bytes(), p.memory_limit));
  double one = 0;  // the observers whose basis is built (with a source, those it reaches)
  for (node_t v : plan.observers) one = std::max(one, plan.observer_bytes[v]);
  if (plan.fixed + one > budget)
    throw InsufficientMemory("muffliato-gd exact accounting: n = " + std::to_string(n) +
                             ", T = " + std::to_string(p.rounds) + " needs " +
                             format_double((plan.fixed + one) / double(1 << 30)) +
                             " GiB (the n x nT noise coefficients and one observer's basis), but only " +
                             format_double(budget / double(1 << 30)) + " GiB is available");

  MuffliatoExactResult result;
  result.n = n;
  result.bound = !p.same_shift;
  result.share.assign(p.source ? std::size_t(n) : std::size_t(n) * std::size_t(n), 0.0);
  std::vector<kernels::GossipViewObserver> reports(static_cast<std::size_t>(n));
  const ResolvedDevice device = resolve_device(p.device);
  std::int64_t passes = 0, bytes = 0;
  if (device.kind == DeviceKind::cuda) {  // the CUDA twin sizes its own batches from the device's memory
    std::vector<RoundView> rounds;
    std::vector<std::int64_t> capacities;
    const kernels::MuffliatoViewArrays arrays =
        kernels::muffliato_view_arrays(problem, plan, rounds, capacities);
    const kernels::CudaMuffliatoViewRun cuda = kernels::muffliato_view_cuda(
        arrays, device.index, p.memory_limit, result.share.data(), reports.data());
    passes = cuda.batches;
    bytes = cuda.device_bytes;
  } else {
    const kernels::MuffliatoViewRun engine = kernels::muffliato_view_cpu(
        problem, plan, budget, result.share, reports, [](std::int64_t) { return !stop_requested(); });
    passes = engine.batches;
    bytes = static_cast<std::int64_t>(engine.bytes);
  }
  throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
  if (p.source) {  // the bases built: the observers the source reaches (the others' shares are exact zeros)
    std::vector<kernels::GossipViewObserver> built;
    for (node_t v : plan.observers) built.push_back(reports[std::size_t(v)]);
    reports.swap(built);
  }

  GossipLossRun& run = result.run;
  run.accounting = p.same_shift ? "exact" : "bound";
  run.device = device.name;
  run.device_note = device.note;
  run.propagation = "explicit-rows";
  run.passes = static_cast<int>(passes);
  run.memory_estimate = bytes;
  run.view_floor = plan.floor;
  add_view_report(run, reports);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace netdp
