#pragma once
// Internal to the walk simulator's driver (docs/walk_sim.md): what a run reads, what it produces, and the
// per-observer fold that both backends share (src/simulation/walk_sim.cpp on the CPU,
// src/simulation/walk_sim_observers.cpp for the CUDA accounting).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
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

/// How many plain walks each thread advances together for a batch of `batch` runs on `threads` threads
/// (kernels::WalkInterleavedCpuEngine): 1 (one walk at a time) unless the walk is a CSR walk without
/// accounting and T < 2^31; else p.walks_in_flight (0: kMaxWalksInFlight), at most ceil(batch / threads) and
/// what fits kLaneBytes.
std::int64_t walks_in_flight(const Context& ctx, std::int64_t batch, int threads);
inline constexpr std::int64_t kMaxWalksInFlight = 32;
inline constexpr double kLaneBytes = double(std::int64_t{1} << 28);  // per thread

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

/// The walk model and parameters as both twins take them (plain views, kernels/walk_sim_kernels.hpp).
kernels::WalkTables walk_tables(const WalkModel& m);
kernels::WalkRunSpec run_spec(const WalkSimParams& p);

/// The start nodes of runs first .. first + count - 1 in `starts` when they differ by run (walk_start), else
/// none.
std::span<const node_t> batch_starts(const Context& ctx, std::int64_t first, std::int64_t count,
                                     std::vector<node_t>& starts);

/// The terms of cycle lengths beyond the twins' table from CycleEpsilons (the CPU twin's histogram cycles
/// past 2^20).
struct CycleTermsBeyond final : kernels::walk::HostCycleTerms {
  const CycleEpsilons* eps = nullptr;
  kernels::walk::CycleTerms terms(std::int64_t m) const override;
};

/// What both accounting twins take (kernels::WalkAccountingInputs) with the Gaussian table, the reference
/// bookkeeping's far node-0 flags and the terms beyond the table that it views (not movable once filled).
struct AccountingInputs {
  kernels::WalkAccountingInputs in;
  std::vector<kernels::walk::CycleTerms> gaussian_table;
  std::vector<std::uint8_t> node0_far;
  CycleTermsBeyond beyond;
};
void accounting_inputs(const Context& ctx, AccountingInputs& out);

/// The C4 terms of the cycle lengths `lengths` (CycleEpsilons, the CPU's memo), for a twin's table.
std::vector<kernels::walk::CycleTerms> cycle_terms(const Context& ctx, std::span<const std::int64_t> lengths);

/// An accounted batch of a twin folded into one RunStats per run (account_observer, the utility).
void fold_accounted_batch(const Context& ctx, const kernels::WalkAccountedBatch& b,
                          std::vector<RunStats>& stats);

/// The plain runs on CUDA device `device` (kernels/cuda/walk_sim_cuda.cu), batch after batch: the visit
/// tallies are filled.
kernels::WalkSimCudaRun plain_cuda_runs(const Context& ctx, int device, kernels::WalkVisitTallies& tallies,
                                        const WalkSimProgress& progress);

/// Plain runs with statistics visits on CUDA device `device`: the stepping engine (walk_steps_cuda, per-node
/// visit totals and nothing else per node) fills `tallies.visits`.
kernels::WalkSimCudaRun stepping_cuda_runs(const Context& ctx, int device, kernels::WalkVisitTallies& tallies,
                                           const WalkSimProgress& progress);

/// The accounted runs on CUDA device `device`: `merge` receives every run's RunStats in run order; the
/// visit tallies and the quantile sketch's bins are filled.
kernels::WalkSimCudaRun accounted_cuda_runs(const Context& ctx, int device,
                                            kernels::WalkVisitTallies& tallies, kernels::WalkSketchBins& bins,
                                            const std::function<void(RunStats&)>& merge,
                                            const WalkSimProgress& progress);

}  // namespace netdp::walk_detail
