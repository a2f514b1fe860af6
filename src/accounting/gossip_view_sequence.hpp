#pragma once
// Exact accounting on a gossip schedule (docs/math.md §6.9): gossip_loss_sequence's default. Internal.
#include <vector>

#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/gossip_schedule.hpp"
#include "netdp/core/loss_rows.hpp"

namespace netdp {

/// f(u, v) = (alpha Delta^2 / (2 sigma^2)) ||P_v e_u||^2, P_v the projection onto the span of the rows of
/// W_{0:t} that v receives (t = t_start .. T-1), plus e_v with ObserverKnowledge::input_and_noise; f(u, u) =
/// 0. s and p already validated. Observers go in batches that fit p.memory_limit (each batch propagates the
/// products once); InsufficientMemory when one observer's basis and the product do not fit.
GossipLossRun gossip_loss_sequence_exact(const GossipSchedule& s, const GossipLossParams& p,
                                         LossRowSink& sink);

/// The schedule as the CUDA twins' plain arrays (kernels/gossip_loss_sequence_kernels.hpp); `rounds` receives
/// the round views the problem points to.
kernels::SequenceProblem sequence_problem(const GossipSchedule& s, kernels::SequenceKind kind,
                                          std::vector<RoundView>& rounds);

/// Where a time-varying accountant runs: `spec`, except that auto keeps randomized schedules on the CPU (one
/// edge per tick: O(n) work per launch, docs/cuda_backend.md "Gossip-loss-sequence twins").
ResolvedDevice sequence_device(const GossipSchedule& s, const DeviceSpec& spec);

}  // namespace netdp
