#pragma once
// Backend entry point of the Monte Carlo walk engine for plain walks (docs/walk_sim.md "CUDA"). Internal:
// called by src/walk_sim.cpp and the backend tests only. The walks are the CPU's (same Philox words, same
// per-step maths of common/walk_sim_math.hpp, DESIGN principle 2); only integer tallies leave the device, so
// the statistics are exactly the CPU's.
#include <cstdint>
#include <map>
#include <vector>

#include "netdp/walk_sim.hpp"

namespace netdp::kernels {

/// Integer visit statistics of plain walks summed over runs (the fields of WalkSimResult they fill).
struct WalkVisitTallies {
  std::vector<std::int64_t> visits, returns, return_time_sum, hits, hitting_time_sum;  // per node
  std::vector<std::int64_t> return_counts, hitting_counts;  // index min(time, time_cap + 1), size cap + 2
  std::map<std::int64_t, std::int64_t> visit_counts;        // visits of a node in a run -> (node, run) pairs
  std::int64_t above_nv = 0;                                // (node, run) pairs with visits >= nv
};

// ---- CUDA (kernels/cuda/walk_sim_cuda.cu; only in builds with NETDP_HAVE_CUDA) ----

struct WalkSimCudaRun {
  std::int64_t batch_runs = 0, batches = 0, device_bytes = 0;
};

/// Runs p.runs plain walks (p.accounting and p.save_paths false) on CUDA device `device`, one thread per
/// walk, p.batch_runs walks per launch (0: as many as half the free device memory holds). Histogram caps
/// time_cap and visit_cap and the bound nv are the CPU driver's. InsufficientMemory when one walk's per-node
/// state does not fit. `progress` gets the fraction of runs done after every batch.
WalkSimCudaRun walk_sim_cuda(const WalkModel& model, const WalkSimParams& p, int device,
                             std::int64_t time_cap, std::int64_t visit_cap, double nv, WalkVisitTallies& out,
                             const WalkSimProgress& progress);

}  // namespace netdp::kernels
