// CPU twin of the Monte Carlo walk engine, plain walks with their visit statistics (docs/walk_sim.md "CPU and
// CUDA twins"): the bodies the CUDA twin runs (kernels/cuda/walk_sim_cuda.cu), launched on OpenMP threads
// instead of a grid. A host thread plays one resident device thread of a block of one: its own visit table
// and block bins, and its own tallies, so every addition is a plain one (TallyView::exclusive); finish sums
// the threads' integers, which makes the result independent of the threads and of the order of the walks.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_visit_stats.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

namespace walk_cpu {  // named: WalkPlainCpuEngine::State holds these

using walk::Counter;

constexpr std::int64_t kMaxCompactSteps = (std::int64_t{1} << 32) - 1;  // 32-bit times in a visit slot
// A thread's "block memory" (its bins and, when they fit, its visit table): about the size of an L2 cache.
constexpr std::int64_t kBlockBytes = std::int64_t{1} << 18;

/// One thread's tallies (the arrays walk::tally_view reads), its visit table and dense scratch.
struct ThreadTallies {
  std::vector<Counter> visits, returns, return_sum, hits, hit_sum, return_counts, hitting_counts, visit_dense;
  std::vector<std::int64_t> overflow;  // visit counts above visit_cap of the current walk
  std::vector<Counter> above_nv = {0}, overflow_used = {0};
  std::map<std::int64_t, std::int64_t> sparse;  // the drained overflow: visit count -> (node, run) pairs
  std::int64_t time_cap = 0, visit_cap = 0;
  double nv = 0;
  std::vector<walk::VisitSlot> table;                // compact: the visit table outside the block memory
  std::vector<std::uint32_t> keys;                   // hashed tables
  std::vector<std::int64_t> first, last, count_run;  // dense: per node, zero between walks

  walk::TallyView view() {
    walk::TallyView v = walk::tally_view(*this);
    v.exclusive = true;
    return v;
  }
  /// The walk's visit counts above visit_cap into `sparse`, the list emptied (the device's drain_overflow).
  void drain() {
    if (overflow_used[0] > overflow.size())
      throw std::logic_error("walk_sim_cpu: overflow list exceeded its bound");
    for (Counter i = 0; i < overflow_used[0]; ++i) ++sparse[overflow[i]];
    overflow_used[0] = 0;
  }
};

}  // namespace walk_cpu

using walk::Counter;
using walk_cpu::kBlockBytes;
using walk_cpu::kMaxCompactSteps;
using walk_cpu::ThreadTallies;

struct WalkPlainCpuEngine::State {
  WalkTables tables;
  WalkRunSpec spec;
  int threads = 1;
  bool compact = true;
  walk::VisitStatsLayout layout;
  std::vector<ThreadTallies> mine;  // per thread
};

WalkPlainCpuEngine::WalkPlainCpuEngine(const WalkTables& tables, const WalkRunSpec& spec, int threads,
                                       std::int64_t time_cap, std::int64_t visit_cap, double nv, bool dense)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.tables = tables;
  s.spec = spec;
  s.threads = std::max(1, threads);
  s.compact = !dense && spec.steps <= kMaxCompactSteps;
  s.layout = walk::plan_visit_stats(tables.n, spec.steps, 1, kBlockBytes, time_cap, visit_cap);
  const auto n = static_cast<std::size_t>(tables.n);
  const std::int64_t overflow_per_walk = std::min<std::int64_t>(tables.n, spec.steps / (visit_cap + 1));
  s.mine.resize(static_cast<std::size_t>(s.threads));
  for (ThreadTallies& t : s.mine) {
    t.visits.assign(n, 0);
    t.returns = t.return_sum = t.hits = t.hit_sum = t.visits;
    t.return_counts.assign(static_cast<std::size_t>(time_cap) + 2, 0);
    t.hitting_counts = t.return_counts;
    t.visit_dense.assign(static_cast<std::size_t>(visit_cap) + 1, 0);
    t.overflow.assign(static_cast<std::size_t>(overflow_per_walk), 0);
    t.time_cap = time_cap;
    t.visit_cap = visit_cap;
    t.nv = nv;
  }
}

WalkPlainCpuEngine::~WalkPlainCpuEngine() = default;

void WalkPlainCpuEngine::run_batch(std::int64_t first, std::int64_t count, std::span<const node_t> starts,
                                   const std::function<bool(std::int64_t)>& progress) {
  State& s = *state_;
  const WalkTables& tb = s.tables;
  const walk::ModelView m{tb.n, tb.offsets.data(), tb.targets.data(), tb.thresholds.data()};
  const node_t* start_nodes = s.spec.per_walk_start ? starts.data() : nullptr;
  // Progress in chunks of about 2^20 positions per thread, one call at a time; a false answer stops the
  // walks not started.
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  std::mutex reporting;
  std::atomic<bool> stopped{false};
  const auto report = [&](std::int64_t& pending, bool last) {
    if (!progress || pending == 0 || (!last && pending < kChunk)) return;
    const std::lock_guard lock(reporting);
    if (!progress(pending)) stopped.store(true, std::memory_order_relaxed);
    pending = 0;
  };
#pragma omp parallel num_threads(s.threads)
  {
    ThreadTallies& mine = s.mine[static_cast<std::size_t>(omp_get_thread_num())];
    const walk::TallyView out = mine.view();
    std::int64_t pending = 0;  // positions walked and not reported yet
    if (s.compact) {
      // walk::VisitStatsBody as a block of one resident thread: walk(k, resident 0, tid 0, 1 thread).
      const walk::VisitStatsLayout& g = s.layout;
      if (!g.shared_tables && mine.table.empty()) {
        mine.table.assign(static_cast<std::size_t>(g.capacity), walk::VisitSlot{});
        if (g.bits > 0) mine.keys.assign(static_cast<std::size_t>(g.capacity), 0);
      }
      const walk::VisitStatsBatch b{s.spec.seed,       first,           count,
                                    s.spec.steps,      start_nodes,     s.spec.start_node,
                                    mine.table.data(), mine.keys.data()};
      walk::for_kind(tb.kind, [&](auto kind) {
        const walk::VisitStatsBody<kind.value> body{m, b, g, out};
        std::vector<Counter> block(static_cast<std::size_t>(body.block_words(1)));
        body.clear(block.data(), 0, 1);
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t k = 0; k < count; ++k) {
          if (stopped.load(std::memory_order_relaxed)) continue;
          body.walk(k, 0, 0, 1, block.data());
          mine.drain();
          pending += s.spec.steps;
          report(pending, false);
        }
        body.flush(block.data(), 0, 1);
      });
    } else {
      // walk::PlainWalkBody on a batch of one walk (run first + k) whose node state is this thread's.
      if (mine.count_run.empty()) {
        mine.first.assign(static_cast<std::size_t>(tb.n), 0);
        mine.last = mine.first;
        mine.count_run = mine.first;
      }
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t k = 0; k < count; ++k) {
        if (stopped.load(std::memory_order_relaxed)) continue;
        const node_t start = start_nodes != nullptr ? start_nodes[k] : s.spec.start_node;
        const walk::PlainWalkBatch b{s.spec.seed,
                                     first + k,
                                     1,
                                     1,
                                     s.spec.steps,
                                     &start,
                                     start,
                                     mine.first.data(),
                                     mine.last.data(),
                                     mine.count_run.data()};
        walk::for_kind(tb.kind, [&](auto kind) { walk::PlainWalkBody<kind.value>{m, b, out}(0); });
        mine.drain();
        pending += s.spec.steps;
        report(pending, false);
      }
    }
    report(pending, true);
  }
}

void WalkPlainCpuEngine::finish(WalkVisitTallies& tallies) const {
  const State& s = *state_;
  const auto add = [](std::vector<std::int64_t>& to, const std::vector<Counter>& from) {
    if (to.empty()) to.assign(from.size(), 0);
    for (std::size_t i = 0; i < from.size(); ++i) to[i] += static_cast<std::int64_t>(from[i]);
  };
  for (const ThreadTallies& t : s.mine) {
    add(tallies.visits, t.visits);
    add(tallies.returns, t.returns);
    add(tallies.return_time_sum, t.return_sum);
    add(tallies.hits, t.hits);
    add(tallies.hitting_time_sum, t.hit_sum);
    add(tallies.return_counts, t.return_counts);
    add(tallies.hitting_counts, t.hitting_counts);
    for (std::size_t c = 0; c < t.visit_dense.size(); ++c)
      if (t.visit_dense[c] > 0)
        tallies.visit_counts[static_cast<std::int64_t>(c)] += static_cast<std::int64_t>(t.visit_dense[c]);
    for (const auto& [c, pairs] : t.sparse) tallies.visit_counts[c] += pairs;
    tallies.above_nv += static_cast<std::int64_t>(t.above_nv[0]);
  }
}

}  // namespace netdp::kernels
