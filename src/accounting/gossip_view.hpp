#pragma once
// Internal: the exact gossip accountant's driver (docs/math.md §6.9), called by gossip_loss() when
// p.accounting is exact.
#include <functional>
#include <span>

#include "gossip_view_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"

namespace netdp {

/// The exact pairwise Renyi loss ldp * ||P_v e_u||^2 into `sink` (rows by source u, like the theorem's) and,
/// when `mu_sink` is given, mu_uv = (Delta / sigma) ||P_v e_u|| into it in the same order.
GossipLossRun gossip_loss_exact(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                LossRowSink& sink, const std::function<void(double)>& progress,
                                LossRowSink* mu_sink);

/// Adds what the observers' bases kept to the run's view report (rank min, max and mean, drops, smallest
/// residual kept), the mean over every observer added so far.
void add_view_report(GossipLossRun& run, std::span<const kernels::GossipViewObserver> observers);

}  // namespace netdp
