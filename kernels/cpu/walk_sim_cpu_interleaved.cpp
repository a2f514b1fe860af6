// The CPU twin's fast path for plain CSR walks (docs/walk_sim.md "Interleaved CPU walks"). One walk on a
// graph far larger than the caches is a chain of dependent cache misses (p_{t-1}'s row offsets, then the
// neighbour p_t), so a thread running one walk at a time waits on memory almost all the time. Here a thread
// advances K walks ("lanes") together through the one step loop, walk::walk_steps of
// common/walk_sim_steps.hpp, with its prefetches: each phase over all lanes asks for what the next phase
// needs, so while one lane's miss is in flight the other K - 1 lanes work. The loop and its next-node rules
// are every engine's, so the paths and the integer tallies are those of WalkPlainCpuEngine and of the CUDA
// twin (tests/unit/test_walk_sim_interleaved.cpp, tests/backend/test_walk_sim_twins.cpp); what is the CPU's
// own is the per-node cell of 16 bytes and huge pages.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_math.hpp"
#include "cpu/walk_sim_cpu_tallies.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

namespace walk_cpu {

constexpr std::size_t kHugePage = std::size_t{1} << 21;

/// Memory advised for transparent huge pages: 2 MiB pages make the random accesses of interleaved walks
/// (node cells, CSR rows) TLB hits; without the advice the pages are 4 KiB and the results the same.
/// Zeroed, whole 2 MiB pages.
void* huge_page_alloc(std::size_t bytes) {
  // Whole huge pages, advised before the first touch so that the kernel can back them with 2 MiB pages.
  bytes = std::max<std::size_t>((bytes + kHugePage - 1) / kHugePage, 1) * kHugePage;
  void* p = std::aligned_alloc(kHugePage, bytes);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice only
#endif
  std::memset(p, 0, bytes);
  return p;
}

template <class T>
class HugePageArray {
 public:
  T* data() { return items_.get(); }
  const T* data() const { return items_.get(); }
  /// At least `count` zeroed items (keeps the old ones, which the engine leaves zeroed, when enough).
  void reserve(std::size_t count) {
    if (count <= size_) return;
    items_.reset();
    size_ = 0;
    items_.reset(static_cast<T*>(huge_page_alloc(count * sizeof(T))));
    size_ = count;
  }
  /// A copy of `items`.
  void assign(std::span<const T> items) {
    reserve(items.size());
    std::copy(items.begin(), items.end(), data());
  }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> items_;
  std::size_t size_ = 0;
};

/// A node's state in one of the walks a thread advances together: 16 bytes (a quarter of a cache line,
/// never across two), so the per-walk arrays stay small and a visit touches no other per-node line: the
/// first visit's time waits here for the fold. count = 0 means not visited yet (T < 2^31); first = 0 for
/// the start, which is no hit.
struct alignas(16) RunCell {
  std::uint32_t last = 0, count = 0, first = 0;
};
static_assert(sizeof(RunCell) == kWalkLaneBytesPerNode);

/// What a thread owns: its tallies and its lanes' cells (walk k of a group at [k n, (k + 1) n)).
struct LaneThread {
  ThreadTallies tallies;
  HugePageArray<RunCell> cells;
};

// The visit of node v at position t >= 1 (walk::VisitStatsBody's step on a dense cell): the return-time or
// hitting-time bin now (all lanes are at the same t: one line of bins); the node's totals (visits, returns,
// the return-time sum last - first, the hit at the first visit) when the walk is folded, so that a visit
// touches its cell and nothing else per node. Integer sums, so the order does not matter.
inline void visit(ThreadTallies& ts, RunCell& c, std::int64_t t) {
  if (c.count > 0) {
    const std::int64_t gap = t - std::int64_t{c.last};
    ++ts.return_counts[static_cast<std::size_t>(gap <= ts.time_cap ? gap : ts.time_cap + 1)];
  } else {
    c.first = static_cast<std::uint32_t>(t);
    ++ts.hitting_counts[static_cast<std::size_t>(t <= ts.time_cap ? t : ts.time_cap + 1)];
  }
  ++c.count;
  c.last = static_cast<std::uint32_t>(t);
}

// A finished walk's per-node totals (walk::fold_node and fold_unvisited); leaves its cells zeroed.
void fold(ThreadTallies& ts, RunCell* cells, node_t n) {
  for (node_t v = 0; v < n; ++v) {
    RunCell& c = cells[v];
    if (c.count > 0) {
      const auto at = static_cast<std::size_t>(v);
      ts.visits[at] += c.count;
      ts.returns[at] += c.count - 1u;
      ts.return_sum[at] += c.last - c.first;
      if (c.first > 0) {  // position 0 is no hit
        ++ts.hits[at];
        ts.hit_sum[at] += c.first;
      }
    }
    if (c.count <= ts.visit_cap)
      ++ts.visit_dense[c.count];
    else
      ++ts.sparse[c.count];
    if (double(c.count) >= ts.nv) ++ts.above_nv[0];
    c = RunCell{};
  }
}

// Positions 1 .. steps-1 of every lane through the one step loop with prefetches (walk::walk_steps<kKind,
// true>): phase 1 reads p_{t-1}'s row (prefetched one position before) and the position's words, phase 2
// (weighted rows) searches the thresholds prefetched in phase 1, phase 3 moves to p_t and prefetches its
// row. The visit of a lane's p_t waits one position: its cell is prefetched now and visited when the lane
// next moves (by then the line has come while the other lanes worked). tick(k) after every chunk of k
// positions; false: stop (the walks are then left unfinished and not folded).
template <WalkKind kKind, class Tick>
bool advance(const walk::ModelView& rows, std::int64_t steps, ThreadTallies& ts,
             std::span<walk::WalkCursor> lanes, std::span<RunCell* const> cells, Tick&& tick) {
  constexpr std::int64_t kChunk = std::int64_t{1} << 16;
  const auto visit_lane = [&](int j, std::int64_t t, node_t sender, node_t next) {
    RunCell* mine = cells[static_cast<std::size_t>(j)];
    if (t > 1) visit(ts, mine[sender], t - 1);
    __builtin_prefetch(mine + next, 1, 3);
  };
  for (std::int64_t t0 = 1; t0 < steps; t0 += kChunk) {
    const std::int64_t t1 = steps - t0 > kChunk ? t0 + kChunk : steps;
    walk::walk_steps<kKind, true>(rows, lanes.data(), static_cast<int>(lanes.size()), t0, t1, visit_lane);
    if (!tick(std::int64_t(lanes.size()) * (t1 - t0))) return false;
  }
  for (std::size_t j = 0; j < lanes.size(); ++j)
    if (steps > 1) visit(ts, cells[j][lanes[j].v], steps - 1);
  return true;
}

}  // namespace walk_cpu

using walk_cpu::HugePageArray;
using walk_cpu::LaneThread;
using walk_cpu::RunCell;

struct WalkInterleavedCpuEngine::State {
  WalkTables tables;
  WalkRunSpec spec;
  int threads = 1;
  // The rows copied into huge pages (when asked), with the thresholds' high words.
  HugePageArray<offset_t> offsets;
  HugePageArray<node_t> targets;
  HugePageArray<std::uint64_t> thresholds;
  HugePageArray<std::uint32_t> highs;
  walk::ModelView rows;
  std::vector<LaneThread> mine;  // per thread
};

WalkInterleavedCpuEngine::WalkInterleavedCpuEngine(const WalkTables& tables, const WalkRunSpec& spec,
                                                   int threads, std::int64_t time_cap, std::int64_t visit_cap,
                                                   double nv, bool huge_page_rows)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.tables = tables;
  s.spec = spec;
  s.threads = std::max(1, threads);
  s.rows = {tables.n, tables.offsets.data(), tables.targets.data(), tables.thresholds.data(), nullptr};
  if (huge_page_rows) {
    s.offsets.assign(tables.offsets);
    s.targets.assign(tables.targets);
    s.thresholds.assign(tables.thresholds);
    s.highs.reserve(tables.thresholds.size());
    for (std::size_t e = 0; e < tables.thresholds.size(); ++e)
      s.highs.data()[e] = static_cast<std::uint32_t>(tables.thresholds[e] >> 32);
    s.rows = {tables.n, s.offsets.data(), s.targets.data(), s.thresholds.data(), s.highs.data()};
  }
  s.mine.resize(static_cast<std::size_t>(s.threads));
  for (LaneThread& t : s.mine) t.tallies.size_for(tables.n, spec.steps, time_cap, visit_cap, nv);
}

WalkInterleavedCpuEngine::~WalkInterleavedCpuEngine() = default;

void WalkInterleavedCpuEngine::run_batch(std::int64_t first, std::int64_t count, std::int64_t lanes,
                                         std::span<const node_t> starts,
                                         const std::function<bool(std::int64_t)>& progress) {
  State& s = *state_;
  const node_t n = s.tables.n;
  lanes = std::max<std::int64_t>(1, lanes);
  std::mutex reporting;
  std::atomic<bool> stopped{false};
  const auto tick = [&](std::int64_t positions) {
    if (progress) {
      const std::lock_guard lock(reporting);
      if (!progress(positions)) stopped.store(true, std::memory_order_relaxed);
    }
    return !stopped.load(std::memory_order_relaxed);
  };
  for (LaneThread& t : s.mine) t.cells.reserve(static_cast<std::size_t>(lanes) * static_cast<std::size_t>(n));
  walk_cpu::LoopErrors errors;
#pragma omp parallel num_threads(s.threads)
  {
    LaneThread& mine = s.mine[static_cast<std::size_t>(omp_get_thread_num())];
    std::vector<walk::WalkCursor> group;
    std::vector<RunCell*> cells;
    group.reserve(static_cast<std::size_t>(lanes));
    cells.reserve(static_cast<std::size_t>(lanes));
    // Groups of `lanes` consecutive runs, one group per thread at a time.
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k0 = 0; k0 < count; k0 += lanes) {
      if (stopped.load(std::memory_order_relaxed) || errors.failed()) continue;
      errors.run([&] {
        group.clear();
        cells.clear();
        for (std::int64_t k = k0; k < std::min(count, k0 + lanes); ++k) {
          const node_t start =
              s.spec.per_walk_start ? starts[static_cast<std::size_t>(k)] : s.spec.start_node;
          group.emplace_back(s.spec.seed, static_cast<std::uint64_t>(first + k), start);
          cells.push_back(mine.cells.data() + static_cast<std::size_t>(k - k0) * static_cast<std::size_t>(n));
          cells.back()[start] = RunCell{0, 1, 0};  // position 0
        }
        bool finished = true;
        walk::for_kind(s.tables.kind, [&](auto kind) {
          if constexpr (kind.value == WalkKind::uniform || kind.value == WalkKind::lazy_uniform ||
                        kind.value == WalkKind::weighted)
            finished = walk_cpu::advance<kind.value>(s.rows, s.spec.steps, mine.tallies,
                                                     std::span<walk::WalkCursor>(group),
                                                     std::span<RunCell* const>(cells), tick);
        });
        for (RunCell* c : cells) {
          if (finished)
            walk_cpu::fold(mine.tallies, c, n);
          else
            std::fill(c, c + n, RunCell{});  // a stopped run: its cells zeroed for nothing
        }
      });
    }
  }
  errors.rethrow();
}

void WalkInterleavedCpuEngine::finish(WalkVisitTallies& tallies) const {
  for (const LaneThread& t : state_->mine) walk_cpu::add_thread_tallies(t.tallies, tallies);
}

}  // namespace netdp::kernels
