// CPU twin of the Monte Carlo walk engine, plain walks with their visit statistics (docs/walk_sim.md "CPU and
// CUDA twins"): the bodies the CUDA twin runs (kernels/cuda/walk_sim_cuda.cu), launched on OpenMP threads
// instead of a grid. A host thread plays one resident device thread of a block of one: its own visit table
// and block bins, and its own tallies, so every addition is a plain one (TallyView::exclusive); finish sums
// the threads' integers, which makes the result independent of the threads and of the order of the walks.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_visit_stats.hpp"
#include "cpu/walk_sim_cpu_tallies.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

namespace walk_cpu {

// A thread's "block memory" (its bins and, when they fit, its visit table): about the size of an L2 cache.
constexpr std::int64_t kBlockBytes = std::int64_t{1} << 18;

}  // namespace walk_cpu

using walk::Counter;
using walk_cpu::add_thread_tallies;
using walk_cpu::kBlockBytes;
using walk_cpu::ThreadTallies;

struct WalkPlainCpuEngine::State {
  WalkTables tables;
  WalkRunSpec spec;
  int threads = 1;
  walk::VisitStatsLayout layout;
  std::vector<ThreadTallies> mine;  // per thread
};

WalkPlainCpuEngine::WalkPlainCpuEngine(const WalkTables& tables, const WalkRunSpec& spec, int threads,
                                       std::int64_t time_cap, std::int64_t visit_cap, double nv)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.tables = tables;
  s.spec = spec;
  s.threads = std::max(1, threads);
  if (spec.steps > kWalkMaxSteps)
    throw std::invalid_argument("walk_sim_cpu: a walk has at most 2^32 - 1 positions (32-bit visit times)");
  s.layout = walk::plan_visit_stats(tables.n, spec.steps, 1, kBlockBytes, time_cap, visit_cap);
  s.mine.resize(static_cast<std::size_t>(s.threads));
  for (ThreadTallies& t : s.mine) {
    t.size_for(tables.n, spec.steps, time_cap, visit_cap, nv);
    // Each thread's visit table (outside its block memory unless that holds it).
    const walk::VisitStatsLayout& g = s.layout;
    t.block.assign(static_cast<std::size_t>(g.block_words(1, tables.n)), 0);
    if (!g.shared_tables) t.table.assign(static_cast<std::size_t>(g.capacity), walk::VisitSlot{});
    if (!g.shared_tables && g.bits > 0) t.keys.assign(static_cast<std::size_t>(g.capacity), 0);
  }
}

WalkPlainCpuEngine::~WalkPlainCpuEngine() = default;

void WalkPlainCpuEngine::run_batch(std::int64_t first, std::int64_t count, std::span<const node_t> starts,
                                   const std::function<bool(std::int64_t)>& progress) {
  State& s = *state_;
  const WalkTables& tb = s.tables;
  const walk::ModelView m{tb.n, tb.offsets.data(), tb.targets.data(), tb.thresholds.data()};
  const node_t* start_nodes = s.spec.per_walk_start ? starts.data() : nullptr;
  walk_cpu::ChunkedProgress chunks(progress);
  const auto report = [&](std::int64_t& pending, bool last) { chunks.report(pending, last); };
  walk_cpu::LoopErrors errors;
#pragma omp parallel num_threads(s.threads)
  {
    ThreadTallies& mine = s.mine[static_cast<std::size_t>(omp_get_thread_num())];
    const walk::TallyView out = mine.view();
    std::int64_t pending = 0;  // positions walked and not reported yet
    const auto skip = [&] { return chunks.stopped() || errors.failed(); };
    // walk::VisitStatsBody as a block of one resident thread: walk(k, resident 0, tid 0, 1 thread).
    const walk::VisitStatsBatch b{s.spec.seed,       first,           count,
                                  s.spec.steps,      start_nodes,     s.spec.start_node,
                                  mine.table.data(), mine.keys.data()};
    walk::for_kind(tb.kind, [&](auto kind) {
      const walk::VisitStatsBody<kind.value> body{m, b, s.layout, out};
      body.clear(mine.block.data(), 0, 1);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t k = 0; k < count; ++k) {
        if (skip()) continue;
        errors.run([&] {
          body.walk(k, 0, 0, 1, mine.block.data());
          mine.drain();
          pending += s.spec.steps;
          report(pending, false);
        });
      }
      body.flush(mine.block.data(), 0, 1);
    });
    errors.run([&] { report(pending, true); });
  }
  errors.rethrow();
}

void WalkPlainCpuEngine::finish(WalkVisitTallies& tallies) const {
  for (const ThreadTallies& t : state_->mine) add_thread_tallies(t, tallies);
}

// ---- saved paths ----

void walk_path_cpu(const WalkTables& tables, std::uint64_t seed, std::int64_t run, node_t start,
                   std::span<node_t> path) {
  if (path.empty()) return;
  const walk::ModelView m{tables.n, tables.offsets.data(), tables.targets.data(), tables.thresholds.data()};
  walk::WalkCursor cursor(seed, static_cast<std::uint64_t>(run), start);
  path[0] = start;
  walk::for_kind(tables.kind, [&](auto kind) {
    walk::walk_steps<kind.value>(
        m, &cursor, std::integral_constant<int, 1>{}, 1, static_cast<std::int64_t>(path.size()),
        [&](int, std::int64_t t, node_t, node_t v) { path[static_cast<std::size_t>(t)] = v; });
  });
}

// ---- accounted walks ----

namespace walk_cpu {

/// One thread's accounting state: a walk's node state and records (a batch of one walk), and its sketch bins.
struct AccountingScratch final : walk::HostBinSink {
  std::vector<std::int64_t> first, last, count_run;
  std::vector<node_t> last_send;  // -1: nobody yet
  std::vector<double> zero_sum, zero_square, zero_first;
  std::vector<std::uint64_t> keys, values;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted;
  std::vector<double> loss;
  std::unordered_map<std::int64_t, Counter> bins;  // hashed, as the library's QuantileSketch
  Counter zero = 0;

  void add(std::int64_t bin, Counter weight) override { bins[bin] += weight; }
  void add_zero(Counter weight) override { zero += weight; }

  node_t no_send = -1;  // last_send between walks: -1, or node 0 for the reference bookkeeping

  void prepare(node_t n, std::int64_t capacity, bool reference) {
    if (!count_run.empty()) return;
    const auto size = static_cast<std::size_t>(n);
    first.assign(size, 0);
    last = count_run = first;
    no_send = reference ? 0 : -1;
    last_send.assign(size, no_send);
    zero_sum.assign(size, 0.0);
    zero_square = zero_first = zero_sum;
    keys.assign(static_cast<std::size_t>(capacity), 0);
    values = keys;
    loss.assign(static_cast<std::size_t>(capacity), 0.0);
    sorted.reserve(static_cast<std::size_t>(capacity));
  }
  /// The node state as a walk expects it on entry (what the bodies leave for the next ones, cleared).
  void clear_nodes() {
    std::fill(count_run.begin(), count_run.end(), 0);
    std::fill(last_send.begin(), last_send.end(), no_send);
    std::fill(zero_sum.begin(), zero_sum.end(), 0.0);
    std::fill(zero_square.begin(), zero_square.end(), 0.0);
    std::fill(zero_first.begin(), zero_first.end(), 0.0);
  }
};

}  // namespace walk_cpu

struct WalkAccountedCpuEngine::State {
  WalkTables tables;
  WalkRunSpec spec;
  WalkAccountingInputs in;
  int threads = 1;
  int node_bits = 1;
  std::int64_t capacity = 1;                      // records per walk: 2 (T - 1)
  std::vector<walk::CycleTerms> histogram_table;  // histogram: the lengths set so far (entry m - 1)
  std::vector<std::uint8_t> named;                // histogram: lengths already named by missing_cycle_lengths
  std::vector<ThreadTallies> tallies;             // per thread
  std::vector<walk_cpu::AccountingScratch> scratch;
  // The outputs of the last batch, run-major.
  std::vector<std::int64_t> cycles, noises;
  std::vector<double> shared, truth, noise, node0;
  std::vector<walk::PairLosses> pairs;

  walk::CycleTable cycle_table() const {
    return {in.gaussian ? in.table.data() : histogram_table.data(), in.table_lengths, spec.eps0, tables.n,
            in.beyond};
  }
  /// Walk k of runs first ..: a batch of one walk on thread state `s`.
  walk::AccountedBatch batch_of_one(std::int64_t run, node_t start, walk_cpu::AccountingScratch& s) const {
    walk::AccountedBatch b;
    b.seed = spec.seed;
    b.first_run = run;
    b.count = 1;
    b.stride = 1;
    b.steps = spec.steps;
    b.start_node = start;
    b.first = s.first.data();
    b.last = s.last.data();
    b.count_run = s.count_run.data();
    b.last_send = s.last_send.data();
    b.reference = in.reference;
    b.zero_sum = s.zero_sum.data();
    b.zero_square = s.zero_square.data();
    b.zero_first = s.zero_first.data();
    b.keys = s.keys.data();
    b.values = s.values.data();
    b.capacity = capacity;
    b.node_bits = node_bits;
    b.sentinel = std::uint64_t{1} << (2 * node_bits);  // k = stride = 1
    b.values_x = in.utility ? in.values.data() : nullptr;
    b.sigma_loc = in.sigma_loc;
    return b;
  }
};

WalkAccountedCpuEngine::WalkAccountedCpuEngine(const WalkTables& tables, const WalkRunSpec& spec, int threads,
                                               std::int64_t time_cap, std::int64_t visit_cap, double nv,
                                               const WalkAccountingInputs& in)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.tables = tables;
  s.spec = spec;
  s.in = in;
  s.threads = std::max(1, threads);
  int bits = 1;
  while (bits < 31 && (std::int64_t{1} << bits) < tables.n) ++bits;  // bit width of n - 1
  s.node_bits = bits;
  s.capacity = in.known ? 2 * (spec.steps - 1) : 0;  // the hidden view keeps no records
  if (!in.gaussian) {
    s.histogram_table.assign(static_cast<std::size_t>(in.table_lengths), walk::CycleTerms{});
    s.named.assign(static_cast<std::size_t>(in.table_lengths) + 1, 0);
  }
  s.tallies.resize(static_cast<std::size_t>(s.threads));
  s.scratch.resize(static_cast<std::size_t>(s.threads));
  for (ThreadTallies& t : s.tallies) t.size_for(tables.n, spec.steps, time_cap, visit_cap, nv);
  for (walk_cpu::AccountingScratch& mine : s.scratch) mine.prepare(tables.n, s.capacity, in.reference);
}

WalkAccountedCpuEngine::~WalkAccountedCpuEngine() = default;

std::vector<std::int64_t> WalkAccountedCpuEngine::missing_cycle_lengths(std::int64_t first,
                                                                        std::int64_t count,
                                                                        std::span<const node_t> starts) {
  State& s = *state_;
  if (s.in.gaussian) return {};
  const WalkTables& tb = s.tables;
  const walk::ModelView m{tb.n, tb.offsets.data(), tb.targets.data(), tb.thresholds.data()};
  std::vector<std::uint8_t> used(static_cast<std::size_t>(s.in.table_lengths) + 1, 0);
  walk_cpu::LoopErrors errors;
#pragma omp parallel num_threads(s.threads)
  {
    walk_cpu::AccountingScratch& mine = s.scratch[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < count; ++k) {
      if (errors.failed()) continue;
      errors.run([&] {
        const node_t start = s.spec.per_walk_start ? starts[static_cast<std::size_t>(k)] : s.spec.start_node;
        const walk::AccountedBatch b = s.batch_of_one(first + k, start, mine);
        walk::for_kind(tb.kind, [&](auto kind) {
          walk::CycleLengthBody<kind.value>{m, b, s.in.table_lengths, used.data()}(0);
        });
        std::fill(mine.count_run.begin(), mine.count_run.end(), 0);
      });
    }
  }
  errors.rethrow();
  std::vector<std::int64_t> missing;
  for (std::int64_t length = 1; length <= s.in.table_lengths; ++length)
    if (used[static_cast<std::size_t>(length)] && !s.named[static_cast<std::size_t>(length)]) {
      s.named[static_cast<std::size_t>(length)] = 1;
      missing.push_back(length);
    }
  return missing;
}

void WalkAccountedCpuEngine::set_cycle_terms(std::span<const std::int64_t> lengths,
                                             std::span<const walk::CycleTerms> terms) {
  for (std::size_t i = 0; i < lengths.size(); ++i)
    state_->histogram_table[static_cast<std::size_t>(lengths[i] - 1)] = terms[i];
}

WalkAccountedBatch WalkAccountedCpuEngine::run_batch(std::int64_t first, std::int64_t count,
                                                     std::span<const node_t> starts,
                                                     const std::function<bool(std::int64_t)>& progress) {
  State& s = *state_;
  const WalkTables& tb = s.tables;
  const node_t n = tb.n;
  const walk::ModelView m{n, tb.offsets.data(), tb.targets.data(), tb.thresholds.data()};
  const auto cells = static_cast<std::size_t>(count) * static_cast<std::size_t>(n);
  s.cycles.assign(cells, 0);
  s.shared.assign(cells, 0.0);
  s.pairs.assign(cells, walk::PairLosses{});
  const bool apart = !s.in.node0_far.empty();
  s.node0.assign(apart ? cells : 0, -1.0);
  const auto runs = static_cast<std::size_t>(s.in.utility ? count : 0);
  s.truth.assign(runs, 0.0);
  s.noise.assign(runs, 0.0);
  s.noises.assign(runs, 0);
  const walk::CycleTable table = s.cycle_table();
  walk_cpu::LoopErrors errors;
  walk_cpu::ChunkedProgress chunks(progress);
  const auto report = [&](std::int64_t& pending, bool last) { chunks.report(pending, last); };
#pragma omp parallel num_threads(s.threads)
  {
    const auto thread = static_cast<std::size_t>(omp_get_thread_num());
    ThreadTallies& tallies = s.tallies[thread];
    walk_cpu::AccountingScratch& mine = s.scratch[thread];
    const walk::TallyView out = tallies.view();
    const walk::SketchBins bins{nullptr, nullptr, 0, 0, s.in.log_base, &mine};
    std::int64_t pending = 0;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < count; ++k) {
      if (chunks.stopped() || errors.failed()) continue;
      errors.run([&] {
        const node_t start = s.spec.per_walk_start ? starts[static_cast<std::size_t>(k)] : s.spec.start_node;
        walk::AccountedBatch b = s.batch_of_one(first + k, start, mine);
        const auto at = static_cast<std::size_t>(k);
        if (b.values_x != nullptr) {
          b.truth = &s.truth[at];
          b.noise = &s.noise[at];
          b.noises = &s.noises[at];
        }
        // 1. The walk, its visit tallies, v's c = 0 sums and (known view) its records.
        walk::for_kind(tb.kind, [&](auto kind) {
          if (s.in.known)
            walk::AccountedWalkBody<kind.value, true>{m, b, table, out}(0);
          else
            walk::AccountedWalkBody<kind.value, false>{m, b, table, out}(0);
        });
        tallies.drain();
        // 2. The records sorted by key, stable (a pair's records in time order, as the device's radix sort),
        // then every pair's loss. The body wrote the real records first, then the sentinel.
        const auto used = static_cast<std::size_t>(
            std::partition_point(mine.keys.begin(), mine.keys.end(),
                                 [&](std::uint64_t key) { return key < b.sentinel; }) -
            mine.keys.begin());
        mine.sorted.resize(used);
        for (std::size_t i = 0; i < used; ++i) mine.sorted[i] = {mine.keys[i], mine.values[i]};
        std::stable_sort(mine.sorted.begin(), mine.sorted.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::size_t i = 0; i < used; ++i) {
          mine.keys[i] = mine.sorted[i].first;
          mine.values[i] = mine.sorted[i].second;
        }
        const auto records = static_cast<std::int64_t>(used);
        const walk::PairLossBody pair_loss{b,       table,        mine.keys.data(), mine.values.data(),
                                           records, s.spec.delta, mine.loss.data()};
        for (std::int64_t i = 0; i < records; ++i) pair_loss(i);
        // 3. Every observer: its shared loss, its corrected pairs, the sketch's bins.
        const auto row = at * static_cast<std::size_t>(n);
        const walk::ObserverOutputs outputs{&s.cycles[row], &s.shared[row], &s.pairs[row],
                                            apart ? s.in.node0_far.data() : nullptr,
                                            apart ? &s.node0[row] : nullptr};
        const walk::ObserverLossBody observers{
            b, n, mine.keys.data(), mine.loss.data(), records, s.spec.delta, bins, outputs};
        for (node_t v = 0; v < n; ++v) observers(v);
        mine.clear_nodes();
        pending += s.spec.steps;
        report(pending, false);
      });
    }
    errors.run([&] { report(pending, true); });
  }
  errors.rethrow();
  WalkAccountedBatch r;
  r.first = first;
  r.count = count;
  r.cycles = s.cycles;
  r.shared = s.shared;
  r.pairs = s.pairs;
  r.truth = s.truth;
  r.noise = s.noise;
  r.noises = s.noises;
  r.node0 = s.node0;
  return r;
}

void WalkAccountedCpuEngine::finish(WalkVisitTallies& tallies, WalkSketchBins& bins) const {
  const State& s = *state_;
  for (const ThreadTallies& t : s.tallies) add_thread_tallies(t, tallies);
  // The threads' bins as one dense run of bins from the lowest to the highest (the device's form).
  std::map<std::int64_t, Counter> all;
  bins.zero = 0;
  for (const walk_cpu::AccountingScratch& mine : s.scratch) {
    for (const auto& [bin, weight] : mine.bins) all[bin] += weight;
    bins.zero += mine.zero;
  }
  bins.counts.clear();
  if (all.empty()) return;
  bins.first_bin = all.begin()->first;
  bins.counts.assign(static_cast<std::size_t>(all.rbegin()->first - bins.first_bin + 1), 0);
  for (const auto& [bin, weight] : all) bins.counts[static_cast<std::size_t>(bin - bins.first_bin)] = weight;
}

}  // namespace netdp::kernels
