#pragma once
// Internal: the exact gossip accountant's driver (docs/math.md §6.9), called by gossip_loss() when
// p.accounting is exact.
#include <functional>
#include <span>

#include "gossip_view_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"

namespace netdp {

/// The exact accountant's problem for graph g and gossip matrix w (symmetric, stochastic): the views of
/// `steps` messages per neighbour from W^t_start on, e_v added when the observer knows its noise. The one
/// place the library's Graph and CsrMatrix become the backend's plain views (the attack's privacy side too).
kernels::GossipViewProblem gossip_view_problem(const Graph& g, const CsrMatrix& w, int t_start, int steps,
                                               bool knows_noise);

/// The exact pairwise Renyi loss ldp * ||P_v e_u||^2 into `sink` (rows by source u, like the theorem's) and,
/// when `mu_sink` is given, mu_uv = (Delta / sigma) ||P_v e_u|| into it in the same order. cuda_device < 0:
/// the production CPU engine; otherwise the CUDA twin on that device (docs/cuda_backend.md "The exact gossip
/// accountant: twins").
GossipLossRun gossip_loss_exact(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                LossRowSink& sink, const std::function<void(double)>& progress,
                                LossRowSink* mu_sink, int cuda_device = -1);

/// Adds what the observers' bases kept to the run's view report (rank min, max and mean, drops, smallest
/// residual kept), the mean over every observer added so far.
void add_view_report(GossipLossRun& run, std::span<const kernels::GossipViewObserver> observers);

}  // namespace netdp
