// The Monte Carlo walk driver (docs/walk_sim.md): runs in batches, threads over the runs of a batch, merges
// the per-run floating-point results in run order (so nothing depends on threads or batches) and the integer
// tallies per thread (order-free).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "common/memory_plan.hpp"
#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/dp/concentration.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "simulation/walk_sim_accounting.hpp"
#include "simulation/walk_sim_run.hpp"
#include "simulation/walk_sim_samplers.hpp"
#include "simulation/walk_sim_statistics.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp {

namespace {

using walk_detail::Context;
using walk_detail::CycleEpsilons;
using walk_detail::PairLoss;
using walk_detail::QuantileSketch;
using walk_detail::RunAccountant;
using walk_detail::RunStats;

constexpr std::int64_t kTimeCap = std::int64_t{1} << 16;     // return / hitting histogram bins
constexpr std::int64_t kVisitCap = std::int64_t{1} << 20;    // dense visit-count bins
constexpr std::int64_t kBatchBytes = std::int64_t{1} << 28;  // host state of one batch's runs

// Feeds account_path's given path to the reference accountant (RunAccountant: the accounting of one path
// by its definition, docs/math.md §4.1.3). walk_sim's walks run in the CPU and CUDA twins
// (kernels/walk_sim_kernels.hpp), never here.
template <bool kKnown>
struct PathAccountant {
  const CycleEpsilons& eps;
  RunAccountant& accountant;
  std::vector<std::int64_t> last;  // position of v's last visit (-1: none yet)

  void feed(std::span<const node_t> path) {
    last[path[0]] = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
      const auto t = static_cast<std::int64_t>(i);
      const node_t v = path[i];
      // The visit at t closes v's cycle of m = t - (previous visit, or 0) positions.
      accountant.cycle<kKnown>(v, last[v] >= 0 ? t - last[v] : t, path[i - 1], eps);
      last[v] = t;
    }
  }
};

std::vector<double> node_values(const WalkSimParams& p, node_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (node_t v = 0; v < n; ++v)
    x[v] = PhiloxStream(p.seed, walk_subsequence(WalkStream::values, 0), 2 * static_cast<std::uint64_t>(v))
               .next_uniform_double();
  return x;
}

// Runs per batch: as many as fit 2^28 bytes of host state (memory_plan::plan_batch, balanced over the
// batches), at least one per thread.
std::int64_t auto_batch(const WalkSimParams& p, node_t n, std::size_t distance_rows, int threads) {
  double bytes = 256;
  if (p.accounting) bytes += 16.0 * n + 48.0 * double(distance_rows);
  if (p.save_paths) bytes += 4.0 * double(p.steps);
  const std::int64_t runs = std::max<std::int64_t>(p.runs, 1);
  const kernels::memory_plan::BatchPlan plan = kernels::memory_plan::plan_batch(
      runs, 0, static_cast<std::int64_t>(std::ceil(bytes)), {kBatchBytes, false}, 0);
  return std::min(runs, std::max<std::int64_t>(plan.fits ? plan.batch : 1, threads));
}

void fill_histogram(TimeHistogram& h, const std::vector<std::int64_t>& counts, std::int64_t total,
                    std::int64_t sum) {
  const std::size_t cap = counts.size() - 2;
  std::size_t last = 0;
  for (std::size_t t = 1; t <= cap; ++t)
    if (counts[t] > 0) last = t;
  h.counts.assign(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  h.overflow = counts[cap + 1];
  h.total = total;
  h.sum = sum;
  std::int64_t binned = 0;
  for (std::size_t t = 1; t <= cap; ++t) binned += std::int64_t(t) * counts[t];
  h.overflow_sum = sum - binned;
}

}  // namespace

std::int64_t walk_detail::walks_in_flight(const Context& ctx, std::int64_t batch, int threads) {
  const WalkSimParams& p = ctx.p;
  const WalkKind kind = ctx.model.kind;
  const bool csr = kind == WalkKind::uniform || kind == WalkKind::lazy_uniform || kind == WalkKind::weighted;
  if (p.accounting || !csr || p.steps > std::numeric_limits<std::int32_t>::max()) return 1;
  const std::int64_t wanted = p.walks_in_flight > 0 ? p.walks_in_flight : kMaxWalksInFlight;
  const std::int64_t per_thread = (batch + threads - 1) / std::max(threads, 1);
  // The lanes whose cells fit kLaneBytes per thread (memory_plan::plan_batch over a thread's walks).
  const kernels::memory_plan::BatchPlan plan = kernels::memory_plan::plan_batch(
      std::min(wanted, per_thread), 0, kernels::kWalkLaneBytesPerNode * std::int64_t{ctx.model.n},
      {static_cast<std::int64_t>(kLaneBytes), false}, 0);
  return plan.fits ? plan.batch : 1;
}

node_t walk_start(const WalkModel& m, const WalkSimParams& p, std::int64_t run) {
  if (p.start.kind == StartKind::node) return p.start.node;
  PhiloxStream s(p.seed, walk_subsequence(WalkStream::start, static_cast<std::uint64_t>(run)));
  if (p.start.kind == StartKind::uniform || m.stationary.empty())
    return static_cast<node_t>(s.next_below(static_cast<std::uint32_t>(m.n)));
  if (m.kind == WalkKind::uniform || m.kind == WalkKind::lazy_uniform) {
    // pi_v = d_v / 2m: a uniform adjacency entry, then its row.
    const auto entry = static_cast<offset_t>(walk_detail::next_below_64(s, std::uint64_t(m.offsets.back())));
    return static_cast<node_t>(std::upper_bound(m.offsets.begin(), m.offsets.end(), entry) -
                               m.offsets.begin() - 1);
  }
  return static_cast<node_t>(
      kernels::walk::weighted_pick(m.stationary_thresholds.data(), 0, m.n, walk_detail::next_u64(s)));
}

std::vector<node_t> sample_walk(const WalkModel& model, const WalkSimParams& params, std::int64_t run) {
  WalkSimParams p = params;  // only the walk's parameters matter here
  p.accounting = p.save_paths = false;
  p.device = {DeviceKind::cpu, 0};
  validate(p, model.n);
  std::vector<node_t> path(static_cast<std::size_t>(p.steps));
  kernels::walk_path_cpu(walk_detail::walk_tables(model), p.seed, run, walk_start(model, p, run), path);
  return path;
}

PathAccounting account_path(std::span<const node_t> path, node_t n, const WalkSimParams& params) {
  WalkSimParams p = params;
  p.steps = std::max<std::int64_t>(1, std::int64_t(path.size()));
  p.accounting = true;
  p.save_paths = false;
  p.device = {DeviceKind::cpu, 0};
  p.start = {StartKind::node, path.empty() ? 0 : path[0]};
  validate(p, n);
  if (path.empty()) throw InvalidInput("account_path: the path is empty");
  for (node_t v : path)
    if (v < 0 || v >= n) throw InvalidInput("account_path: node " + std::to_string(v) + " outside [0, n)");
  const CycleEpsilons eps(n, p);
  RunAccountant accountant;
  accountant.reset(n, p.bookkeeping);
  std::vector<std::int64_t> last(static_cast<std::size_t>(n), -1);
  if (p.view == WalkView::known)
    PathAccountant<true>{eps, accountant, std::move(last)}.feed(path);
  else
    PathAccountant<false>{eps, accountant, std::move(last)}.feed(path);
  PathAccounting r;
  r.n = n;
  r.loss.assign(std::size_t(n) * std::size_t(n), 0.0);
  r.cycles.assign(static_cast<std::size_t>(n), 0);
  r.local.assign(static_cast<std::size_t>(n), 0.0);
  accountant.finish(eps, p.delta, [&](node_t v, double k, double shared, std::span<const PairLoss> pairs) {
    for (node_t u = 0; u < n; ++u)
      if (u != v) r.loss[std::size_t(u) * n + v] = shared;
    for (const PairLoss& pl : pairs) r.loss[std::size_t(pl.u) * n + v] = pl.loss;
    r.cycles[v] = static_cast<std::int64_t>(k);
    r.local[v] = dp::advanced_composition(p.eps0, p.delta, k, p.delta).epsilon;
  });
  return r;
}

WalkSimResult walk_sim(const WalkModel& model, const WalkSimParams& p, const DistanceCounts* distances,
                       const WalkSimProgress& progress) {
  validate(p, model.n);
  const node_t n = model.n;
  if (distances && distances->offsets.size() != static_cast<std::size_t>(n) + 1)
    throw InvalidInput("walk_sim: the distance table does not match the graph's " + std::to_string(n) +
                       " nodes");
  if (distances && p.accounting && p.bookkeeping == WalkBookkeeping::reference &&
      distances->from_node0.size() != static_cast<std::size_t>(n))
    throw InvalidInput(
        "walk_sim: the reference bookkeeping needs the distance table's hop distances from node 0 "
        "(distance_counts fills them)");
  const auto started = std::chrono::steady_clock::now();
  WalkSimResult r;
  r.n = n;
  r.steps = p.steps;
  r.runs = p.runs;
  // Walks run where the device spec says (auto: CUDA when a device answers); saved paths, the reference
  // bookkeeping and histograms with cycles longer than the device's table are CPU only (validate rejects
  // them with device cuda).
  const bool reference = p.accounting && p.bookkeeping == WalkBookkeeping::reference;
  const bool gpu_capable = !p.save_paths && !reference &&
                           (!p.accounting || p.mechanism == WalkMechanism::gaussian ||
                            p.steps - 1 <= walk_detail::kDeviceCycleTable);
  const ResolvedDevice device = resolve_device(gpu_capable ? p.device : DeviceSpec{DeviceKind::cpu, 0});
  r.device = device.name;
  r.device_note = device.note;
  if (!gpu_capable && p.device.kind == DeviceKind::automatic)
    r.device_note = p.save_paths ? "auto: save-paths runs on the CPU only"
                    : reference  ? "auto: bookkeeping reference runs on the CPU only"
                                 : "auto: the histogram mechanism with T - 1 > 2^20 runs on the CPU only";

  Context ctx(model, p, distances);
  ctx.time_cap = std::min<std::int64_t>(p.steps, kTimeCap);
  ctx.visit_cap = std::min<std::int64_t>(p.steps, kVisitCap);
  if (model.kind == WalkKind::complete)
    ctx.nv = dp::chernoff_visit_bound(double(p.steps), double(n), p.delta);
  std::unique_ptr<CycleEpsilons> eps;
  if (p.accounting) {
    eps = std::make_unique<CycleEpsilons>(n, p);
    (void)eps->at(1);  // surfaces a bad parameter here rather than inside a thread
    ctx.eps = eps.get();
    ctx.utility = p.mechanism == WalkMechanism::gaussian;
    if (ctx.utility) {
      ctx.sigma_loc = dp::gaussian_sigma_classic(p.eps0, p.delta, 1.0);
      ctx.values = node_values(p, n);
    }
    // Hop distances: the complete graph has every pair at distance 1 (row 1); CSR walks need the table.
    if (model.kind == WalkKind::complete) {
      ctx.distances = nullptr;
      ctx.distance_rows = 2;
    } else if (distances) {
      std::size_t rows = 2;
      for (node_t v = 0; v < n; ++v)
        rows = std::max<std::size_t>(rows, std::size_t(distances->offsets[v + 1] - distances->offsets[v]));
      ctx.distance_rows = rows;
    }
  }
  r.sigma_loc = ctx.sigma_loc;

  const int threads = std::max(1, omp_get_max_threads());
  r.threads = threads;
  r.batch_runs =
      p.batch_runs > 0 ? std::min(p.batch_runs, p.runs) : auto_batch(p, n, ctx.distance_rows, threads);
  std::vector<double> observer_sum(p.accounting ? n : 0, 0.0), local_sum(p.accounting ? n : 0, 0.0);
  r.by_distance.assign(ctx.distance_rows, LossStats{});
  const double total_positions = double(p.steps) * double(p.runs);
  std::atomic<std::int64_t> done{0};
  std::mutex reporting;
  auto tick = [&](std::int64_t k) {
    const std::int64_t now = done.fetch_add(k) + k;
    if (progress && reporting.try_lock()) {  // one thread at a time; the others skip this report
      progress(double(now) / total_positions);
      reporting.unlock();
    }
  };

  // Per-run floating-point results are folded in run order, whatever the backend.
  const auto merge = [&](RunStats& s) {
    r.network.merge(s.network);
    r.local.merge(s.local);
    for (std::size_t d = 0; d < s.by_distance.size(); ++d) r.by_distance[d].merge(s.by_distance[d]);
    for (std::size_t v = 0; v < s.observer.size(); ++v) {
      observer_sum[v] += s.observer[v];
      local_sum[v] += s.node_local[v];
    }
    if (ctx.utility) r.utility.push_back(s.utility);
    if (p.save_paths) r.paths.push_back(std::move(s.path));
  };

  kernels::WalkVisitTallies tallies;
  kernels::WalkSketchBins device_bins;
  // Plain walks with statistics visits take the stepping engine (no per-node state per walk), every other
  // plain run the statistics engine (docs/cuda_backend.md "Walk engine for throughput").
  const bool visits_only = p.statistics == WalkStatistics::visits;
  r.engine = device.kind == DeviceKind::cpu ? "cpu"
             : p.accounting                 ? "cuda accounted"
             : visits_only                  ? "cuda stepping"
                                            : "cuda statistics";
  if (device.kind == DeviceKind::cuda) {
    const kernels::WalkSimCudaRun cuda =
        p.accounting
            ? walk_detail::accounted_cuda_runs(ctx, device.index, tallies, device_bins, merge, progress)
        : visits_only ? walk_detail::stepping_cuda_runs(ctx, device.index, tallies, progress)
                      : walk_detail::plain_cuda_runs(ctx, device.index, tallies, progress);
    r.threads = 1;
    r.batch_runs = cuda.batch_runs;
    r.batches = cuda.batches;
  }
  // Plain walks one at a time run on the CPU twin (kernels/cpu/walk_sim_cpu.cpp: the CUDA twin's bodies),
  // made at its first batch.
  std::unique_ptr<kernels::WalkPlainCpuEngine> plain_cpu;
  // Plain CSR walks, several per thread: the CPU twin's fast path (kernels/cpu/walk_sim_cpu_interleaved.cpp),
  // made at its first batch. Its rows are copied into huge pages (the random gathers are then TLB hits) only
  // while the copy takes at most a quarter of the memory available, else read in place.
  std::unique_ptr<kernels::WalkInterleavedCpuEngine> interleaved_cpu;
  const double row_bytes =
      double(model.offsets.size() * sizeof(offset_t) + model.targets.size() * sizeof(node_t) +
             model.thresholds.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t)));  // + high words
  const kernels::WalkTables tables = walk_detail::walk_tables(model);
  std::vector<node_t> starts;
  // Accounted walks run on the CPU twin (the CUDA twin's bodies), the reference bookkeeping and histogram
  // cycles beyond the host's table included, which have no CUDA twin.
  std::unique_ptr<kernels::WalkAccountedCpuEngine> accounted_cpu;
  walk_detail::AccountingInputs accounting;
  if (device.kind == DeviceKind::cpu && p.accounting) {
    walk_detail::accounting_inputs(ctx, accounting);
    accounted_cpu = std::make_unique<kernels::WalkAccountedCpuEngine>(
        tables, walk_detail::run_spec(p), threads, ctx.time_cap, ctx.visit_cap, ctx.nv, accounting.in);
  }
  // Per call of the accounted twin: the runs whose per-observer outputs (56 n bytes each) fit 64 MiB.
  const std::int64_t accounted_chunk =
      std::max<std::int64_t>(threads, (std::int64_t{1} << 26) / (56 * std::int64_t{n}));
  const auto keep_going = [&](std::int64_t positions) {
    tick(positions);
    return !stop_requested();
  };
  const auto record_paths = [&](std::int64_t first, std::vector<RunStats>& batch) {
    // --save-paths (R T <= 1e6): the same walks again, recorded position by position.
    for (std::size_t k = 0; p.save_paths && k < batch.size(); ++k) {
      const std::int64_t run = first + std::int64_t(k);
      std::vector<node_t>& path = batch[k].path;
      path.resize(static_cast<std::size_t>(p.steps));
      kernels::walk_path_cpu(tables, p.seed, run, walk_start(model, p, run), path);
    }
  };
  for (std::int64_t first = 0; device.kind == DeviceKind::cpu && first < p.runs; first += r.batch_runs) {
    const std::int64_t count = std::min(r.batch_runs, p.runs - first);
    std::vector<RunStats> batch(static_cast<std::size_t>(count));
    const std::int64_t lanes = walk_detail::walks_in_flight(ctx, count, threads);
    r.walks_in_flight = std::max(r.walks_in_flight, lanes);
    if (!p.accounting && lanes == 1) {
      if (!plain_cpu)
        plain_cpu = std::make_unique<kernels::WalkPlainCpuEngine>(tables, walk_detail::run_spec(p), threads,
                                                                  ctx.time_cap, ctx.visit_cap, ctx.nv);
      plain_cpu->run_batch(first, count, walk_detail::batch_starts(ctx, first, count, starts), keep_going);
      throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
      record_paths(first, batch);
      for (RunStats& s : batch) merge(s);
      ++r.batches;
      continue;
    }
    if (!p.accounting) {  // lanes > 1
      if (!interleaved_cpu)
        interleaved_cpu = std::make_unique<kernels::WalkInterleavedCpuEngine>(
            tables, walk_detail::run_spec(p), threads, ctx.time_cap, ctx.visit_cap, ctx.nv,
            row_bytes <= double(available_memory_bytes()) / 4);
      interleaved_cpu->run_batch(first, count, lanes, walk_detail::batch_starts(ctx, first, count, starts),
                                 keep_going);
      throw_if_stopped();
      record_paths(first, batch);
      for (RunStats& s : batch) merge(s);
      ++r.batches;
      continue;
    }
    std::vector<RunStats> part;
    for (std::int64_t sub = 0; sub < count; sub += accounted_chunk) {
      const std::int64_t c = std::min(accounted_chunk, count - sub);
      const std::span<const node_t> chunk_starts = walk_detail::batch_starts(ctx, first + sub, c, starts);
      const std::vector<std::int64_t> missing =
          accounted_cpu->missing_cycle_lengths(first + sub, c, chunk_starts);
      if (!missing.empty()) accounted_cpu->set_cycle_terms(missing, walk_detail::cycle_terms(ctx, missing));
      walk_detail::fold_accounted_batch(
          ctx, accounted_cpu->run_batch(first + sub, c, chunk_starts, keep_going), part);
      throw_if_stopped();
      std::move(part.begin(), part.end(), batch.begin() + static_cast<std::ptrdiff_t>(sub));
    }
    record_paths(first, batch);
    for (RunStats& s : batch) merge(s);  // run order: nothing depends on threads or batches
    ++r.batches;
  }
  if (progress) progress(1.0);

  // Integer tallies: order-free (the CUDA path filled `tallies` itself).
  QuantileSketch sketch;
  if (device.kind == DeviceKind::cpu) {
    if (plain_cpu) plain_cpu->finish(tallies);  // sizes the tallies
    if (interleaved_cpu) interleaved_cpu->finish(tallies);
    if (accounted_cpu) accounted_cpu->finish(tallies, device_bins);
    if (tallies.visits.empty()) {
      tallies.visits.assign(static_cast<std::size_t>(n), 0);
      tallies.returns = tallies.return_time_sum = tallies.hits = tallies.hitting_time_sum = tallies.visits;
      tallies.return_counts.assign(static_cast<std::size_t>(ctx.time_cap) + 2, 0);
      tallies.hitting_counts = tallies.return_counts;
    }
  }
  r.visits = std::move(tallies.visits);
  const auto time_it = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    r.steps_per_second = r.seconds > 0 ? total_positions / r.seconds : 0.0;
  };
  if (visits_only) {  // the other statistics stay empty on either backend
    time_it();
    return r;
  }
  r.returns = std::move(tallies.returns);
  r.return_time_sum = std::move(tallies.return_time_sum);
  r.hits = std::move(tallies.hits);
  r.hitting_time_sum = std::move(tallies.hitting_time_sum);
  r.visit_counts = std::move(tallies.visit_counts);
  r.visit_counts_above_nv = tallies.above_nv;
  const std::vector<std::int64_t>& return_counts = tallies.return_counts;
  const std::vector<std::int64_t>& hitting_counts = tallies.hitting_counts;
  std::int64_t returns = 0, return_sum = 0, hits = 0, hit_sum = 0;
  for (node_t v = 0; v < n; ++v) {
    returns += r.returns[v];
    return_sum += r.return_time_sum[v];
    hits += r.hits[v];
    hit_sum += r.hitting_time_sum[v];
  }
  fill_histogram(r.return_times, return_counts, returns, return_sum);
  fill_histogram(r.hitting_times, hitting_counts, hits, hit_sum);
  if (p.accounting) {
    r.cycles.resize(static_cast<std::size_t>(n));
    r.observer_loss.resize(static_cast<std::size_t>(n));
    r.node_local.resize(static_cast<std::size_t>(n));
    for (node_t v = 0; v < n; ++v) {
      r.cycles[v] = r.returns[v] + r.hits[v];
      r.observer_loss[v] = observer_sum[v] / double(p.runs);
      r.node_local[v] = local_sum[v] / double(p.runs);
    }
    if (device.kind == DeviceKind::cuda || accounted_cpu)
      sketch.add_counts(device_bins.first_bin, device_bins.counts, double(device_bins.zero), r.network.min,
                        r.network.max);
    for (double q : p.quantiles) r.network_quantiles.emplace_back(q, sketch.quantile(q));
  }
  time_it();
  return r;
}

}  // namespace netdp
