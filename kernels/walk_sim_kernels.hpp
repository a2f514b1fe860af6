#pragma once
// Backend entry points of the Monte Carlo walk engine (docs/walk_sim.md "CPU and CUDA twins", "CUDA"):
// the CPU twin (kernels/cpu/walk_sim_cpu.cpp) and the CUDA twin (kernels/cuda/walk_sim_*.cu) of each engine
// run the same bodies of kernels/common/walk_sim_*.hpp on plain views, so for the same seed they give the
// same bytes (tests/backend/test_walk_sim_twins.cpp). Internal: called by src/simulation/walk_sim*.cpp and
// the backend tests only. The walks are the same everywhere (same Philox words, same per-step maths of
// common/walk_sim_math.hpp, docs/design.md principle 2); only integer tallies leave a backend.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_layout.hpp"
#include "common/walk_sim_math.hpp"
#include "common/walk_sim_stepping.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

/// A walk's transition tables as plain views (WalkModel's arrays, src/simulation/walk_sim_model.cpp): the CSR
/// rows of uniform, lazy-uniform and weighted walks, the cumulative thresholds of weighted ones; nothing for
/// the complete graph and the directed ring.
struct WalkTables {
  WalkKind kind = WalkKind::complete;
  node_t n = 0;
  std::span<const offset_t> offsets;
  std::span<const node_t> targets;
  std::span<const std::uint64_t> thresholds;
};

/// What the engines read of a simulation's parameters (WalkSimParams).
struct WalkRunSpec {
  std::uint64_t seed = 0;
  std::int64_t steps = 1, runs = 1;  // T positions per walk, R walks
  std::int64_t batch_runs = 0;       // walks per launch; 0: as many as the device share holds
  bool per_walk_start = false;       // the host gives each batch's start nodes (uniform, stationary starts)
  node_t start_node = 0;             // otherwise every walk starts here
  double eps0 = 0, delta = 0;        // accounted walks: LDP level of a contribution, delta of C4
};

/// Integer visit statistics of plain walks summed over runs (the fields of WalkSimResult they fill).
struct WalkVisitTallies {
  std::vector<std::int64_t> visits, returns, return_time_sum, hits, hitting_time_sum;  // per node
  std::vector<std::int64_t> return_counts, hitting_counts;  // index min(time, time_cap + 1), size cap + 2
  std::map<std::int64_t, std::int64_t> visit_counts;        // visits of a node in a run -> (node, run) pairs
  std::int64_t above_nv = 0;                                // (node, run) pairs with visits >= nv
};

// ---- CPU twin (kernels/cpu/walk_sim_cpu.cpp) ----

/// The most positions of one walk (T < 2^32): the visit tables keep 32-bit times. validate refuses more
/// (docs/walk_sim.md "Parameters").
inline constexpr std::int64_t kWalkMaxSteps = (std::int64_t{1} << 32) - 1;

/// Plain walks on the CPU with their visit statistics: the CUDA twin's body walk::VisitStatsBody (compact
/// visit table, common/walk_sim_visit_stats.hpp) run on OpenMP threads, one walk per thread at a time, as
/// walk_sim_cuda runs it. Each thread owns its visit table, block bins and tallies (plain additions,
/// TallyView::exclusive); finish sums them. The tallies are the CUDA twin's, byte for byte, for any thread
/// count and batch size. The tables' views must outlive the engine.
class WalkPlainCpuEngine {
 public:
  WalkPlainCpuEngine(const WalkTables& tables, const WalkRunSpec& spec, int threads, std::int64_t time_cap,
                     std::int64_t visit_cap, double nv);
  ~WalkPlainCpuEngine();
  WalkPlainCpuEngine(const WalkPlainCpuEngine&) = delete;
  WalkPlainCpuEngine& operator=(const WalkPlainCpuEngine&) = delete;

  /// Walks runs first .. first + count - 1 from `starts` (count nodes when spec.per_walk_start, else empty).
  /// `progress(positions)` every 2^20 or so positions of a thread and at its end, one call at a time, from
  /// any thread; once it answers false the walks not started are skipped (the driver then checks for the
  /// stop it was asked).
  void run_batch(std::int64_t first, std::int64_t count, std::span<const node_t> starts,
                 const std::function<bool(std::int64_t)>& progress = {});
  /// After the last batch: every thread's tallies summed into `tallies` (sized here when empty).
  void finish(WalkVisitTallies& tallies) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The path p_0 .. p_{T-1} of run `run` from `start` into `path` (T = path.size() positions): the one step
/// loop (walk::walk_steps) with a visitor that records (sample_walk, --save-paths).
void walk_path_cpu(const WalkTables& tables, std::uint64_t seed, std::int64_t run, node_t start,
                   std::span<node_t> path);

/// Bytes per node of one walk in flight of WalkInterleavedCpuEngine (its lanes' cells), for the driver's
/// plan.
inline constexpr std::int64_t kWalkLaneBytesPerNode = 16;

/// The CPU twin's fast path for plain CSR walks (uniform, lazy-uniform, weighted; T < 2^31): each thread
/// advances `lanes` walks together, position by position, with prefetches so that their cache misses overlap
/// (docs/walk_sim.md "Interleaved CPU walks"): the one step loop (walk::walk_steps) with `lanes` lanes and
/// prefetches, so its paths and tallies are WalkPlainCpuEngine's and the CUDA twin's, byte for byte. The
/// tables' views must outlive the engine.
class WalkInterleavedCpuEngine {
 public:
  /// `huge_page_rows`: copy the rows into memory advised for 2 MiB pages (the random gathers are then TLB
  /// hits), with the thresholds' high words.
  WalkInterleavedCpuEngine(const WalkTables& tables, const WalkRunSpec& spec, int threads,
                           std::int64_t time_cap, std::int64_t visit_cap, double nv, bool huge_page_rows);
  ~WalkInterleavedCpuEngine();
  WalkInterleavedCpuEngine(const WalkInterleavedCpuEngine&) = delete;
  WalkInterleavedCpuEngine& operator=(const WalkInterleavedCpuEngine&) = delete;

  /// Runs first .. first + count - 1 in groups of `lanes` consecutive runs, one group per thread at a time
  /// (kWalkLaneBytesPerNode n bytes per lane); starts and progress as WalkPlainCpuEngine::run_batch.
  void run_batch(std::int64_t first, std::int64_t count, std::int64_t lanes, std::span<const node_t> starts,
                 const std::function<bool(std::int64_t)>& progress = {});
  void finish(WalkVisitTallies& tallies) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct WalkAccountingInputs;
struct WalkAccountedBatch;
struct WalkSketchBins;

/// Accounted walks on the CPU: the CUDA twin's bodies (walk::AccountedWalkBody, after walk::CycleLengthBody
/// for the histogram mechanism; a stable sort of the walk's records by key; walk::PairLossBody;
/// walk::ObserverLossBody) run per walk on OpenMP threads, each walk a batch of one on its thread's own node
/// state and records, the quantile sketch's bins in a map per thread. Its interface is the CUDA twin's
/// (WalkAccountedCudaEngine) but for the progress callback; the outputs are the same bytes
/// (tests/backend/test_walk_sim_twins.cpp). Beyond the CUDA twin it runs the reference bookkeeping
/// (WalkAccountingInputs::reference, node0_far) and histogram cycles beyond the table (beyond). The views of
/// `tables` and `in` must outlive the engine.
class WalkAccountedCpuEngine {
 public:
  WalkAccountedCpuEngine(const WalkTables& tables, const WalkRunSpec& spec, int threads,
                         std::int64_t time_cap, std::int64_t visit_cap, double nv,
                         const WalkAccountingInputs& in);
  ~WalkAccountedCpuEngine();
  WalkAccountedCpuEngine(const WalkAccountedCpuEngine&) = delete;
  WalkAccountedCpuEngine& operator=(const WalkAccountedCpuEngine&) = delete;

  /// As WalkAccountedCudaEngine::missing_cycle_lengths (a first pass over the walks; histogram only).
  std::vector<std::int64_t> missing_cycle_lengths(std::int64_t first, std::int64_t count,
                                                  std::span<const node_t> starts);
  void set_cycle_terms(std::span<const std::int64_t> lengths, std::span<const walk::CycleTerms> terms);
  /// Runs first .. first + count - 1 (any count); the outputs stay valid until the next call. Progress as
  /// WalkPlainCpuEngine::run_batch.
  WalkAccountedBatch run_batch(std::int64_t first, std::int64_t count, std::span<const node_t> starts,
                               const std::function<bool(std::int64_t)>& progress = {});
  /// After the last batch: the visit tallies (sized here when empty) and the sketch's bins.
  void finish(WalkVisitTallies& tallies, WalkSketchBins& bins) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- CUDA twin (kernels/cuda/walk_sim_cuda.cu; kernels/stubs/ in builds without CUDA) ----

struct WalkSimCudaRun {
  std::int64_t batch_runs = 0, batches = 0, device_bytes = 0;
};

/// Plain walks on a CUDA device with their visit statistics, one walk per thread at a time (compact per-walk
/// visit tables, block-level tallies: docs/cuda_backend.md "Walk engine for throughput"): the device state of
/// one batch size, allocated once. The host driver (src/simulation/walk_sim.cpp) owns the loop over the
/// batches; nothing here calls back into it.
class WalkPlainCudaEngine {
 public:
  virtual ~WalkPlainCudaEngine() = default;
  virtual WalkSimCudaRun plan() const = 0;
  /// Walks runs first .. first + count - 1 (count <= plan().batch_runs, in run order) from `starts` (count
  /// nodes when per_walk_start, else empty); their visit counts above visit_cap go to
  /// `tallies.visit_counts` and `tallies.above_nv`.
  virtual void run_batch(std::int64_t first, std::int64_t count, std::span<const node_t> starts,
                         WalkVisitTallies& tallies) = 0;
  /// After the last batch: the per-node tallies and histograms of every batch, into `tallies`.
  virtual void finish(WalkVisitTallies& tallies) = 0;
};

/// spec.runs plain walks on CUDA device `device`. Histogram caps time_cap and visit_cap and the bound nv are
/// the CPU driver's. InsufficientMemory when one walk's per-node state does not fit. The tables' views must
/// outlive the engine.
std::unique_ptr<WalkPlainCudaEngine> walk_sim_cuda(const WalkTables& tables, const WalkRunSpec& spec,
                                                   int device, std::int64_t time_cap, std::int64_t visit_cap,
                                                   double nv);

/// Plain walks with no per-node state (docs/cuda_backend.md "Walk engine for throughput"): several walks per
/// thread, every counter in registers; per walk its end node, the visits of its start and its first return
/// (walk::WalkStepSummary), and with count_visits the per-node visit totals (the visits-only mode).
class WalkStepCudaEngine {
 public:
  virtual ~WalkStepCudaEngine() = default;
  virtual WalkSimCudaRun plan() const = 0;
  /// Walks runs first .. first + count - 1 (count <= plan().batch_runs) from `starts` as in the plain
  /// engine; their summaries in run order, valid until the next call.
  virtual std::span<const walk::WalkStepSummary> run_batch(std::int64_t first, std::int64_t count,
                                                           std::span<const node_t> starts) = 0;
  /// After the last batch: visits of each node summed over every batch (empty without count_visits).
  virtual std::vector<std::int64_t> visits() = 0;
};

/// spec.runs plain walks on CUDA device `device` in the stepping mode. The tables' views must outlive the
/// engine.
std::unique_ptr<WalkStepCudaEngine> walk_steps_cuda(const WalkTables& tables, const WalkRunSpec& spec,
                                                    int device, bool count_visits);

/// The CUDA accounting's inputs made on the host (docs/walk_sim.md "CUDA (accounted walks)").
struct WalkAccountingInputs {
  /// Cycle lengths m = 1 .. table_lengths have their terms in a table made on the host (the CPU's
  /// CycleEpsilons), entry m - 1. Gaussian: `table` holds every length up front, and beyond it the device
  /// uses gaussian_cycle_terms; histogram (SH3 levels cost up to ~10 ms each): `table` is empty, the engine
  /// names the lengths each batch needs (missing_cycle_lengths) and the host supplies them
  /// (set_cycle_terms); T - 1 <= table_lengths.
  std::int64_t table_lengths = 0;
  std::span<const walk::CycleTerms> table;
  bool gaussian = true;
  bool known = true;  // view known (boundary corrections) or hidden
  double eps0 = 0, delta = 0;
  bool utility = false;  // private summation: values and noise at every position (docs/math.md §4.1)
  double sigma_loc = 0;  // noise std of one contribution
  std::span<const double> values;  // x_v
  double log_base = 0;             // quantile sketch bins: floor(ln x / log_base)
  // CPU twin only (the CUDA twin refuses them):
  bool reference = false;  // WalkBookkeeping::reference: receivers start at node 0, read before the send
  std::span<const std::uint8_t> node0_far;       // reference: per v, 1 where node 0 is no neighbour (its pair
                                                 // apart in WalkAccountedBatch::node0); empty: none
  const walk::HostCycleTerms* beyond = nullptr;  // terms of lengths beyond table_lengths (histogram)
};

/// What the accounting of runs first .. first + count - 1 gives the host, run-major (index k n + v for run
/// first + k and observer v), in the form of the CPU's RunAccountant::finish: k_v cycles, the loss shared by
/// every u without a correction, and the corrected pairs' losses; and each run's utility.
struct WalkAccountedBatch {
  std::int64_t first = 0, count = 0;
  std::span<const std::int64_t> cycles;
  std::span<const double> shared;
  std::span<const walk::PairLosses> pairs;
  std::span<const double> truth, noise;  // per run: sum of the T values, of the noise
  std::span<const std::int64_t> noises;  // per run: noisy contributions
  std::span<const double> node0;  // with node0_far: the loss of pair (0, v) kept apart (-1: none); else empty
};

/// The quantile sketch's bins filled on the device: integer weights of bins first_bin, first_bin + 1, ...
/// and of x <= 0.
struct WalkSketchBins {
  std::int64_t first_bin = 0;
  std::vector<std::uint64_t> counts;
  std::uint64_t zero = 0;
};

/// Accounted walks on a CUDA device: per batch the walks and visit tallies of the plain engine, per walk the
/// per-observer sums of the c = 0 cycle terms and the boundary-correction records; then a radix sort of the
/// records by (walk, v, u) (stable: time order within a pair, as the CPU), the C4 loss of every corrected
/// pair, and per observer its shared loss and corrected pairs, returned to the host driver, which owns the
/// loop over the batches (run order) and folds them.
class WalkAccountedCudaEngine {
 public:
  virtual ~WalkAccountedCudaEngine() = default;
  virtual WalkSimCudaRun plan() const = 0;
  /// Histogram mechanism: the cycle lengths of runs first .. first + count - 1 that the table lacks (a first
  /// pass over the batch's walks), each named once over the whole simulation; the host computes their terms
  /// and gives them to set_cycle_terms before run_batch. Always empty for the Gaussian mechanism.
  virtual std::vector<std::int64_t> missing_cycle_lengths(std::int64_t first, std::int64_t count,
                                                          std::span<const node_t> starts) = 0;
  /// terms[i]: the terms of cycle length lengths[i].
  virtual void set_cycle_terms(std::span<const std::int64_t> lengths,
                               std::span<const walk::CycleTerms> terms) = 0;
  /// Runs first .. first + count - 1 (count <= plan().batch_runs) from `starts` as in the plain engine;
  /// visit counts above visit_cap go to `tallies`. The batch's outputs stay valid until the next call.
  virtual WalkAccountedBatch run_batch(std::int64_t first, std::int64_t count, std::span<const node_t> starts,
                                       WalkVisitTallies& tallies) = 0;
  /// After the last batch: the per-node tallies and histograms, and the quantile sketch's bins.
  virtual void finish(WalkVisitTallies& tallies, WalkSketchBins& bins) = 0;
};

/// spec.runs accounted walks on CUDA device `device` (the plain engine's caps and bound). InsufficientMemory
/// when one walk does not fit. The views of `tables` and `in` must outlive the engine.
std::unique_ptr<WalkAccountedCudaEngine> walk_sim_accounted_cuda(const WalkTables& tables,
                                                                 const WalkRunSpec& spec, int device,
                                                                 std::int64_t time_cap,
                                                                 std::int64_t visit_cap, double nv,
                                                                 const WalkAccountingInputs& in);

}  // namespace netdp::kernels
