#pragma once
// Visit statistics of plain walks with compact per-walk state (docs/cuda_backend.md "Walk engine for
// throughput"): the single-source body of kernels/cuda/walk_sim_cuda.cu's statistics mode and of the CPU
// twin's plain walks (kernels/cpu/walk_sim_cpu.cpp), run on the host by
// tests/backend/test_walk_sim_visit_stats_bodies.cpp and the emulated device.
//
// Per walk a visit table of `capacity` 8-byte slots (last visit, visit count): slot v when capacity >= n
// (direct), else an open-addressing table of 2^bits >= 2 T slots keyed by node + 1 (hashed; a walk of T
// positions visits at most T nodes, so the load stays <= 1/2). The table belongs to a resident thread, not to
// a walk: the fold at the end of a walk scans it and leaves it empty for the thread's next walk. Tallies of a
// block (return / first-visit time bins, a window of visit-count bins, per-node totals when n is small) are
// added in block memory (shared memory on the device) and flushed once per block, so no global counter takes
// one atomic per step. A first visit at t adds the hit and -t to the return-time sum (u64 wraparound: the
// block sums are exact modulo 2^64 and every final total is >= 0), the fold adds last and c: returns = c - 1,
// return-time sum = last - first (walk::fold_node). The walk advances through walk::walk_steps.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/for_each.hpp"
#include "common/hd.hpp"
#include "common/walk_sim_bodies.hpp"

namespace netdp::kernels::walk {

/// A node's state in one walk: last visit time and visit count (T < 2^32 positions).
struct VisitSlot {
  std::uint32_t last = 0, count = 0;
};

/// Where the statistics body keeps its state, chosen by the host (plan_visit_stats).
struct VisitStatsLayout {
  std::int64_t capacity = 0;      // slots per table: n (direct) or 2^bits (hashed)
  int bits = 0;                   // hashed tables: log2(capacity); 0: direct
  bool shared_tables = false;     // tables in block memory (else `tables` / `keys` in global memory)
  std::int64_t time_window = 0;   // block bins of return and first-visit times: bins [0, time_window)
  std::int64_t visit_lo = 0;      // block bins of visit counts c in [visit_lo, visit_lo + visit_window)
  std::int64_t visit_window = 0;  //
  bool node_bins = false;         // per-node totals (5 n) in block memory

  /// 8-byte words of one block's memory for `threads` threads: [tables][keys][time bins][visit bins][node
  /// bins][above].
  NETDP_HD std::int64_t table_words() const { return capacity + (bits > 0 ? (capacity + 1) / 2 : 0); }
  NETDP_HD std::int64_t block_words(std::int64_t threads, std::int64_t n) const {
    return (shared_tables ? threads * table_words() : 0) + 2 * time_window + visit_window +
           (node_bins ? 5 * n : 0) + 1;
  }
};

/// The layout for n nodes, T = steps positions, `threads` per block and `block_bytes` of block memory:
/// direct tables when n <= 2 T, else hashed with 2^bits >= 2 T slots; tables in block memory when they fit
/// next to the bins. The windows cover the most frequent bins: short gaps and first visits (both
/// histograms start at 1), visit counts around T / n.
inline VisitStatsLayout plan_visit_stats(std::int64_t n, std::int64_t steps, std::int64_t threads,
                                         std::int64_t block_bytes, std::int64_t time_cap,
                                         std::int64_t visit_cap) {
  VisitStatsLayout g;
  if (n <= 2 * steps) {
    g.capacity = n;
  } else {
    g.bits = 1;
    while ((std::int64_t{1} << g.bits) < 2 * steps) ++g.bits;
    g.capacity = std::int64_t{1} << g.bits;
  }
  const std::int64_t words = block_bytes / 8;
  g.time_window = time_cap + 2 < 1024 ? time_cap + 2 : 1024;
  g.visit_window = visit_cap + 1 < 512 ? visit_cap + 1 : 512;
  const std::int64_t mean = steps / n;  // visits of a node in a run, on average
  g.visit_lo = mean > g.visit_window / 2 ? mean - g.visit_window / 2 : 0;
  if (g.visit_lo + g.visit_window > visit_cap + 1) g.visit_lo = visit_cap + 1 - g.visit_window;
  g.node_bins = 5 * n <= words / 4;
  g.shared_tables = g.block_words(threads, n) + threads * g.table_words() <= words;
  return g;
}

/// The batch: walks first_run .. first_run + count - 1; tables of resident thread i at
/// tables + i capacity (and keys + i capacity when hashed) unless in block memory.
struct VisitStatsBatch {
  std::uint64_t seed = 0;
  std::int64_t first_run = 0, count = 0, steps = 0;
  const node_t* starts = nullptr;  // per walk; nullptr: every walk starts at start_node
  node_t start_node = 0;
  VisitSlot* tables = nullptr;  // zero on entry, left zero
  std::uint32_t* keys = nullptr;
};

/// Walk k's visit table (direct or hashed with linear probing).
struct VisitTable {
  VisitSlot* slots;
  std::uint32_t* keys;  // hashed only
  std::int64_t capacity;
  int bits;

  /// v's slot; a hashed table claims an empty slot for v.
  NETDP_HD VisitSlot& find(node_t v) const {
    if (bits == 0) return slots[v];
    const std::uint32_t key = static_cast<std::uint32_t>(v) + 1u,
                        mask = static_cast<std::uint32_t>(capacity - 1);
    std::uint32_t i = (key * 2654435761u) >> (32 - bits);  // Fibonacci hashing
    while (keys[i] != key && keys[i] != 0) i = (i + 1) & mask;
    keys[i] = key;
    return slots[i];
  }
  NETDP_HD node_t node_of(std::int64_t i) const {
    return bits == 0 ? static_cast<node_t>(i) : static_cast<node_t>(keys[i] - 1);
  }
};

/// The plain-walk statistics of walks 0 .. count - 1 of a batch, one walk at a time per resident thread
/// (walk_sim_cuda.cu launches it with the block launcher below). Gives the CPU's visits, returns, return-time
/// sums, hits, hitting-time sums, both time histograms, visit counts and above-N_v count exactly.
template <WalkKind kKind>
struct VisitStatsBody {
  ModelView m;
  VisitStatsBatch b;
  VisitStatsLayout g;
  TallyView out;

  // Block memory: the offsets of each part (in 8-byte words).
  NETDP_HD std::int64_t bins_at(std::int64_t threads) const {
    return g.shared_tables ? threads * g.table_words() : 0;
  }
  NETDP_HD std::int64_t block_words(std::int64_t threads) const { return g.block_words(threads, m.n); }

  /// Zeroes the block's memory, thread tid of `threads`.
  NETDP_HD void clear(Counter* block, int tid, int threads) const {
    for (std::int64_t i = tid; i < block_words(threads); i += threads) block[i] = 0;
  }

  /// Walk k on resident thread `resident` (thread tid of its block).
  NETDP_HD void walk(std::int64_t k, std::int64_t resident, int tid, int threads, Counter* block) const {
    WalkThread w(k, b.first_run, 1, b.seed, b.starts != nullptr ? b.starts[k] : b.start_node);
    Counter* bins = block + bins_at(threads);
    VisitTable table{nullptr, nullptr, g.capacity, g.bits};
    if (g.shared_tables) {
      table.slots = reinterpret_cast<VisitSlot*>(block + tid * g.table_words());
      table.keys = reinterpret_cast<std::uint32_t*>(table.slots + g.capacity);
    } else {
      table.slots = b.tables + resident * g.capacity;
      table.keys = g.bits > 0 ? b.keys + resident * g.capacity : nullptr;
    }
    const Tallies tally{*this, bins, threads};
    VisitSlot& start = table.find(w.cursor.v);
    start.last = 0;
    start.count = 1;
    walk_steps<kKind>(m, &w.cursor, std::integral_constant<int, 1>{}, 1, b.steps,
                      [&](int, std::int64_t t, node_t, node_t v) {
                        VisitSlot& s = table.find(v);
                        if (s.count > 0) {
                          tally.time(0, out.return_counts, t - s.last);
                        } else {
                          tally.time(g.time_window, out.hitting_counts, t);
                          tally.first_visit(v, t);
                        }
                        ++s.count;
                        s.last = static_cast<std::uint32_t>(t);
                      });
    // Fold and empty the table (walk::fold_node over the visited nodes only).
    std::int64_t visited = 0;
    Counter above = 0;
    for (std::int64_t i = 0; i < g.capacity; ++i) {
      VisitSlot& s = table.slots[i];
      if (s.count == 0) continue;
      ++visited;
      above += tally.fold(table.node_of(i), s.count, s.last);
      s = VisitSlot{};
      if (g.bits > 0) table.keys[i] = 0;
    }
    const std::int64_t unvisited = m.n - visited;
    if (unvisited > 0) {
      tally.visit_count(0, static_cast<Counter>(unvisited));
      if (0.0 >= out.nv) above += static_cast<Counter>(unvisited);
    }
    if (above > 0)
      tally_add(out, &bins[2 * g.time_window + g.visit_window + (g.node_bins ? 5 * m.n : 0)], above);
  }

  /// Adds the block's bins to the global tallies, thread tid of `threads`.
  NETDP_HD void flush(Counter* block, int tid, int threads) const {
    const Counter* bins = block + bins_at(threads);
    const std::int64_t nodes = g.node_bins ? 5 * m.n : 0;
    const std::int64_t words = 2 * g.time_window + g.visit_window + nodes + 1;
    for (std::int64_t i = tid; i < words; i += threads) {
      const Counter c = bins[i];
      if (c == 0) continue;
      std::int64_t j = i;
      if (j < g.time_window) {
        tally_add(out, &out.return_counts[j], c);
      } else if ((j -= g.time_window) < g.time_window) {
        tally_add(out, &out.hitting_counts[j], c);
      } else if ((j -= g.time_window) < g.visit_window) {
        tally_add(out, &out.visit_dense[g.visit_lo + j], c);
      } else if ((j -= g.visit_window) < nodes) {
        tally_add(out, &node_total(static_cast<int>(j / m.n))[j % m.n], c);
      } else {
        tally_add(out, out.above_nv, c);
      }
    }
  }

 private:
  /// The global per-node total `which` (0 visits, 1 returns, 2 return-time sum, 3 hits, 4 hitting-time sum):
  /// a switch, not an array of pointers, which the device would keep in local memory.
  NETDP_HD Counter* node_total(int which) const {
    switch (which) {
      case 0:
        return out.visits;
      case 1:
        return out.returns;
      case 2:
        return out.return_sum;
      case 3:
        return out.hits;
      default:
        return out.hit_sum;
    }
  }

  /// The additions of one walk: into the block's bins where they have one, else into the global tallies.
  struct Tallies {
    const VisitStatsBody& body;
    Counter* bins;
    int threads;

    /// Time `time` >= 1 into histogram bin min(time, time_cap + 1): block bins [base, base + time_window).
    NETDP_HD void time(std::int64_t base, Counter* global, std::int64_t time) const {
      const std::int64_t bin = time <= body.out.time_cap ? time : body.out.time_cap + 1;
      tally_add(body.out, bin < body.g.time_window ? &bins[base + bin] : &global[bin], Counter{1});
    }
    /// Per-node total `which` (0 visits, 1 returns, 2 return-time sum, 3 hits, 4 hitting-time sum) of v.
    NETDP_HD void node(int which, node_t v, Counter value) const {
      tally_add(body.out,
                body.g.node_bins ? &bins[2 * body.g.time_window + body.g.visit_window + which * body.m.n + v]
                                 : &body.node_total(which)[v],
                value);
    }
    NETDP_HD void first_visit(node_t v, std::int64_t t) const {
      node(3, v, 1);
      node(4, v, static_cast<Counter>(t));
      node(2, v, Counter{0} - static_cast<Counter>(t));  // the fold adds last: sum of last - first
    }
    /// `weight` (node, run) pairs with c visits: a dense bin (block window or global) or the overflow list.
    NETDP_HD void visit_count(std::int64_t c, Counter weight) const {
      if (c > body.out.visit_cap) {
        const Counter slot = tally_add(body.out, body.out.overflow_used, Counter{1});
        if (slot < static_cast<Counter>(body.out.overflow_capacity)) body.out.overflow[slot] = c;
        return;
      }
      const std::int64_t j = c - body.g.visit_lo;
      tally_add(
          body.out,
          j >= 0 && j < body.g.visit_window ? &bins[2 * body.g.time_window + j] : &body.out.visit_dense[c],
          weight);
    }
    /// Node v at the end of a walk with c >= 1 visits, the last at `last`; 1 when c >= N_v (CB1).
    NETDP_HD Counter fold(node_t v, std::uint32_t c, std::uint32_t last) const {
      node(0, v, c);
      node(1, v, c - 1u);
      node(2, v, last);
      visit_count(c, 1);
      return static_cast<double>(c) >= body.out.nv ? 1 : 0;
    }
  };
};

/// The block launcher's host form (the device form is device_for_each_block): `blocks` blocks of `threads`;
/// thread tid of block j is resident thread j threads + tid and runs walks j threads + tid + i blocks
/// threads; each block clears its memory, runs its walks, then flushes (the barriers of the device kernel
/// are the ends of these loops). Blocks run on the host threads.
template <class Body>
void host_for_each_block(std::int64_t count, int blocks, int threads, const Body& body) {
  const std::int64_t grid = static_cast<std::int64_t>(blocks) * threads;
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int j = 0; j < blocks; ++j) {
    std::vector<Counter> block(static_cast<std::size_t>(body.block_words(threads)));
    for (int tid = 0; tid < threads; ++tid) body.clear(block.data(), tid, threads);
    for (int tid = 0; tid < threads; ++tid) {
      const std::int64_t resident = static_cast<std::int64_t>(j) * threads + tid;
      for (std::int64_t k = resident; k < count; k += grid)
        body.walk(k, resident, tid, threads, block.data());
    }
    for (int tid = 0; tid < threads; ++tid) body.flush(block.data(), tid, threads);
  }
}

#if defined(__CUDACC__)
namespace {  // internal linkage, as device_for_each

/// The block launcher: block memory in dynamic shared memory (body.block_words(blockDim.x) words), cleared,
/// then every thread's walks, then the flush.
template <class Body>
__global__ void device_for_each_block(std::int64_t count, const Body body) {
  extern __shared__ Counter walk_block_memory[];
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  body.clear(walk_block_memory, tid, threads);
  __syncthreads();
  const std::int64_t grid = static_cast<std::int64_t>(gridDim.x) * threads;
  const std::int64_t resident = static_cast<std::int64_t>(blockIdx.x) * threads + tid;
  for (std::int64_t k = resident; k < count; k += grid)
    body.walk(k, resident, tid, threads, walk_block_memory);
  __syncthreads();
  body.flush(walk_block_memory, tid, threads);
}

}  // namespace
#endif

}  // namespace netdp::kernels::walk
