// Interleaved plain CSR walks on the CPU (docs/walk_sim.md "Interleaved CPU walks"). One walk on a graph far
// larger than the caches is a chain of dependent cache misses (p_{t-1}'s row offsets, then the neighbour
// p_t), so a thread running one walk at a time waits on memory almost all the time. Here a thread advances
// K walks ("lanes") together, position by position, in passes over the lanes: each pass issues a prefetch
// for what the lane needs in the next pass and uses what it prefetched one pass before, so while one lane's
// miss is in flight the other K - 1 lanes work. Every lane reads its own Philox words exactly as
// kernels::walk::next_node does (docs/walk_sim.md "Randomness layout"), so the paths and the integer tallies
// are those of one walk at a time (tests/unit/test_walk_sim_interleaved.cpp).
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_math.hpp"
#include "netdp/core/philox.hpp"
#include "simulation/walk_sim_run.hpp"

namespace netdp::walk_detail {

namespace {

constexpr std::size_t kHugePage = std::size_t{1} << 21;

bool csr_kind(WalkKind kind) {
  return kind == WalkKind::uniform || kind == WalkKind::lazy_uniform || kind == WalkKind::weighted;
}

// Read prefetch into all cache levels; `write` for a line the lane will modify.
template <bool kWrite = false>
inline void prefetch(const void* p) {
  __builtin_prefetch(p, kWrite ? 1 : 0, 3);
}

// One walk of the group: p_{t-1} at the top of position t, and what the passes hand each other.
struct Lane {
  Lane(std::uint64_t seed, std::int64_t run, node_t start, RunCell* cells_, std::vector<node_t>* path_)
      : v(start),
        words(seed, walk_subsequence(WalkStream::walk, static_cast<std::uint64_t>(run))),
        retry{seed, static_cast<std::uint64_t>(run)},
        cells(cells_),
        path(path_) {}
  node_t v = 0;
  std::int64_t pick = 0;  // CSR entry of p_t; -1: the lazy walk stays at v
  offset_t begin = 0, end = 0;
  std::uint64_t u = 0;  // weighted rows: the position's 64-bit draw
  PhiloxStream words;
  kernels::walk::Retry retry;
  RunCell* cells = nullptr;
  std::vector<node_t>* path = nullptr;
};

// The visit of node v at position t >= 1 (the one-walk engine's RunVisitor::step, split up): the
// return-time or hitting-time bin now (all lanes are at the same t: one line of bins); the node's totals
// (visits, returns, the return-time sum last - first, the hit at the first visit) when the walk is folded,
// so that a visit touches its cell and nothing else per node. Integer sums, so the order does not matter.
inline void visit(const Context& ctx, ThreadState& ts, Lane& l, std::int64_t t) {
  RunCell& c = l.cells[l.v];
  if (c.count > 0) {
    const std::int64_t gap = t - std::int64_t{c.last};
    ++ts.return_counts[static_cast<std::size_t>(gap <= ctx.time_cap ? gap : ctx.time_cap + 1)];
  } else {
    c.first = static_cast<std::uint32_t>(t);
    ++ts.hitting_counts[static_cast<std::size_t>(t <= ctx.time_cap ? t : ctx.time_cap + 1)];
  }
  ++c.count;
  c.last = static_cast<std::uint32_t>(t);
}

// A finished walk's per-node totals (finish_visits of the one-walk engine); leaves its cells zeroed.
void fold(const Context& ctx, ThreadState& ts, RunCell* cells) {
  for (node_t v = 0; v < ctx.model.n; ++v) {
    RunCell& c = cells[v];
    if (c.count > 0) {
      NodeState& s = ts.nodes[static_cast<std::size_t>(v)];
      s.visits += c.count;
      s.returns += std::int64_t{c.count} - 1;
      s.return_sum += std::int64_t{c.last} - std::int64_t{c.first};
      if (c.first > 0) {  // position 0 is no hit
        ++s.hits;
        s.hit_sum += c.first;
      }
    }
    ts.count_run_visits(c.count, ctx);
    c = RunCell{};
  }
}

// Positions 1 .. steps-1 of every lane. Pass 1: the visit of p_{t-1} (cell prefetched in the last pass 3),
// p_{t-1}'s row (prefetched there too) and the position's words; pass 2 (weighted rows): the binary search
// over the thresholds prefetched in pass 1 with the row's targets; pass 3: p_t, and prefetches of its row and
// its cell. The draws are
// kernels::walk::next_node's, word for word.
template <WalkKind kKind, class Tick>
void advance(const Context& ctx, ThreadState& ts, std::span<Lane> lanes, Tick&& tick) {
  const WalkModel& model = ctx.model;
  const offset_t* offsets = ctx.rows ? ctx.rows->offsets.data() : model.offsets.data();
  const node_t* targets = ctx.rows ? ctx.rows->targets.data() : model.targets.data();
  const std::uint64_t* thresholds = ctx.rows ? ctx.rows->thresholds.data() : model.thresholds.data();
  const std::uint32_t* highs = ctx.rows ? ctx.rows->threshold_highs.data() : nullptr;
  const std::int64_t steps = ctx.p.steps;
  constexpr std::int64_t kChunk = std::int64_t{1} << 16;
  for (std::int64_t t0 = 1; t0 < steps; t0 += kChunk) {
    const std::int64_t t1 = steps - t0 > kChunk ? t0 + kChunk : steps;
    for (std::int64_t t = t0; t < t1; ++t) {
      for (Lane& l : lanes) {
        if (t > 1) visit(ctx, ts, l, t - 1);
        l.begin = offsets[l.v];
        l.end = offsets[l.v + 1];
        const auto degree = static_cast<std::uint32_t>(l.end - l.begin);
        if constexpr (kKind == WalkKind::uniform) {
          l.pick = l.begin + kernels::walk::draw(l.words, l.retry, t, degree);
          prefetch(targets + l.pick);
        } else if constexpr (kKind == WalkKind::lazy_uniform) {
          const std::uint32_t k = kernels::walk::draw(l.words, l.retry, t, 2 * degree);
          l.pick = kernels::walk::lazy_moves(k, degree) ? l.begin + k : -1;
          if (l.pick >= 0) prefetch(targets + l.pick);
        } else {
          // The row's thresholds (their high words when copied: half the lines); the pick's target is
          // prefetched by the search's pass, so only its line is fetched (a row of ER's ~20 targets spans
          // 2-3 lines).
          l.u = l.words.next_u64();
          if (highs) {
            for (offset_t e = l.begin; e < l.end; e += 16) prefetch(highs + e);
            prefetch(highs + l.end - 1);
          } else {
            for (offset_t e = l.begin; e < l.end; e += 8) prefetch(thresholds + e);
            prefetch(thresholds + l.end - 1);
          }
        }
      }
      if constexpr (kKind == WalkKind::weighted) {
        for (Lane& l : lanes) {
          l.pick = highs ? weighted_pick_by_high_words(highs, thresholds, l.begin, l.end, l.u)
                         : kernels::walk::weighted_pick(thresholds, l.begin, l.end, l.u);
          prefetch(targets + l.pick);
        }
      }
      for (Lane& l : lanes) {
        const node_t next = l.pick >= 0 ? targets[l.pick] : l.v;
        if (l.path) l.path->push_back(next);
        l.v = next;
        prefetch(offsets + next);
        prefetch(offsets + next + 1);
        prefetch<true>(l.cells + next);
      }
    }
    tick(std::int64_t(lanes.size()) * (t1 - t0));
  }
  for (Lane& l : lanes) {
    if (steps > 1) visit(ctx, ts, l, steps - 1);
  }
}

}  // namespace

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

void huge_page_free(void* p) {
  std::free(p);
}

HugePageRows::HugePageRows(const WalkModel& model) {
  offsets.assign(model.offsets);
  targets.assign(model.targets);
  thresholds.assign(model.thresholds);
  threshold_highs.reserve(model.thresholds.size());
  for (std::size_t e = 0; e < model.thresholds.size(); ++e)
    threshold_highs.data()[e] = static_cast<std::uint32_t>(model.thresholds[e] >> 32);
}

std::int64_t weighted_pick_by_high_words(const std::uint32_t* highs, const std::uint64_t* thresholds,
                                         std::int64_t begin, std::int64_t end, std::uint64_t u) {
  // u < C_k <=> u's high word is below C_k's, or equal and u < C_k.
  const auto u_high = static_cast<std::uint32_t>(u >> 32);
  return kernels::walk::first_below(
      begin, end, [&](std::int64_t k) { return u_high != highs[k] ? u_high < highs[k] : u < thresholds[k]; });
}

std::int64_t walks_in_flight(const Context& ctx, std::int64_t batch, int threads) {
  const WalkSimParams& p = ctx.p;
  if (p.accounting || !csr_kind(ctx.model.kind) || p.steps > std::numeric_limits<std::int32_t>::max())
    return 1;
  const std::int64_t wanted = p.walks_in_flight > 0 ? p.walks_in_flight : kMaxWalksInFlight;
  const std::int64_t per_thread = (batch + threads - 1) / std::max(threads, 1);
  const auto fit = static_cast<std::int64_t>(kLaneBytes / (double(sizeof(RunCell)) * double(ctx.model.n)));
  return std::max<std::int64_t>(1, std::min({wanted, per_thread, fit}));
}

void interleaved_plain_runs(const Context& ctx, std::int64_t first_run, std::span<RunStats> out,
                            ThreadState& ts, const std::function<void(std::int64_t)>& tick) {
  const auto n = static_cast<std::size_t>(ctx.model.n);
  ts.lanes.reserve(out.size() * n);
  std::vector<Lane> lanes;
  lanes.reserve(out.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t run = first_run + std::int64_t(k);
    const node_t start = walk_start(ctx.model, ctx.p, run);
    Lane l(ctx.p.seed, run, start, ts.lanes.data() + k * n, ctx.p.save_paths ? &out[k].path : nullptr);
    l.cells[start] = RunCell{0, 1, 0};  // position 0
    if (l.path) {
      l.path->reserve(static_cast<std::size_t>(ctx.p.steps));
      l.path->push_back(start);
    }
    lanes.push_back(l);
  }
  kernels::walk::for_kind(ctx.model.kind, [&](auto kind) {
    if constexpr (kind.value == WalkKind::uniform || kind.value == WalkKind::lazy_uniform ||
                  kind.value == WalkKind::weighted)
      advance<kind.value>(ctx, ts, std::span<Lane>(lanes), tick);
  });
  for (const Lane& l : lanes) fold(ctx, ts, l.cells);
}

}  // namespace netdp::walk_detail
