#pragma once
// Internal to the walk simulator's driver (docs/walk_sim.md): what a run reads, what it produces, and the
// per-observer fold that both backends share (src/simulation/walk_sim.cpp on the CPU,
// src/simulation/walk_sim_observers.cpp for the CUDA accounting).
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "common/walk_sim_math.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "simulation/walk_sim_accounting.hpp"
#include "simulation/walk_sim_statistics.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::walk_detail {

/// Cycle lengths whose C4 terms the host tabulates for the CUDA accounting (72 bytes each).
inline constexpr std::int64_t kDeviceCycleTable = std::int64_t{1} << 20;

// Everything a run reads.
struct Context {
  Context(const WalkModel& m, const WalkSimParams& params, const DistanceCounts* d = nullptr)
      : model(m), p(params), distances(d) {}
  const WalkModel& model;
  const WalkSimParams& p;
  const DistanceCounts* distances = nullptr;
  std::int64_t time_cap = 0, visit_cap = 0;
  double nv = std::numeric_limits<double>::infinity();  // CB1 N_v (complete graph)
  const CycleEpsilons* eps = nullptr;
  bool utility = false;
  double sigma_loc = 0;
  std::vector<double> values;  // synthetic x_v in (0, 1)
  std::size_t distance_rows = 0;
};

struct RunStats {
  LossStats network, local;
  std::vector<LossStats> by_distance;
  std::vector<double> observer, node_local;
  UtilityRun utility;
  double noise = 0;
  std::vector<node_t> path;
};

/// Sizes a finished run's per-observer arrays and distance rows.
void start_accounting(const Context& ctx, RunStats& out);

/// A corrected pair (u, v) with u farther than one hop from v: only the reference bookkeeping's initial
/// receiver, node 0, on a graph where it is not a neighbour of v (CPU only). distance 0: none.
struct DistantPair {
  std::int64_t distance = 0;
  double loss = 0;
};

/// One observer v of a finished run into its RunStats (docs/math.md §4.1.3: C4 per ordered pair, C2 for the
/// LDP baseline with delta' = delta): k cycles, the loss shared by the u != v without a correction, the
/// losses of the corrected pairs at hop distance 1 (a cycle's boundary participants are neighbours of v) and
/// the distant one, if any. Both backends end here, so the statistics come from one piece of code.
void account_observer(const Context& ctx, RunStats& out, node_t v, double k, double shared,
                      const kernels::walk::PairLosses& pairs, const DistantPair& distant = {});

/// The plain runs on CUDA device `device` (kernels/cuda/walk_sim_cuda.cu), batch after batch: the visit
/// tallies are filled.
kernels::WalkSimCudaRun plain_cuda_runs(const Context& ctx, int device, kernels::WalkVisitTallies& tallies,
                                        const WalkSimProgress& progress);

/// The accounted runs on CUDA device `device`: `merge` receives every run's RunStats in run order; the
/// visit tallies and the quantile sketch's bins are filled.
kernels::WalkSimCudaRun accounted_cuda_runs(const Context& ctx, int device,
                                            kernels::WalkVisitTallies& tallies, kernels::WalkSketchBins& bins,
                                            const std::function<void(RunStats&)>& merge,
                                            const WalkSimProgress& progress);

}  // namespace netdp::walk_detail
