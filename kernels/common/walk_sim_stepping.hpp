#pragma once
// The stepping body of plain walks (docs/cuda_backend.md "Walk engine for throughput"): no per-node state,
// kLanes walks per thread interleaved so that their dependent loads overlap, every counter in registers.
// Optional per-node visit totals (the visits-only mode): in block memory when n is small, else one global
// 64-bit addition per step spread over n addresses. The walks are the CPU's (next_node on the same Philox
// words); tests/backend/test_walk_sim_visit_stats_bodies.cpp runs this body on the host against sample_walk
// and walk_sim. Launched by device_for_each_block / host_for_each_block (common/walk_sim_visit_stats.hpp).
#include <cstdint>
#include <utility>

#include "common/for_each.hpp"
#include "common/hd.hpp"
#include "common/walk_sim_bodies.hpp"

// The lanes' loops have kLanes iterations: unrolled, so that each lane's state stays in registers (the
// host compiler unrolls them at -O3 by itself).
#if defined(__CUDA_ARCH__)
#define NETDP_WALK_UNROLL _Pragma("unroll")
#else
#define NETDP_WALK_UNROLL
#endif

namespace netdp::kernels::walk {

/// What a plain walk leaves in its registers: the end node p_{T-1}, the visits of its start (position 0
/// included) and its first return to the start (0: none).
struct WalkStepSummary {
  node_t end = 0;
  std::int64_t start_visits = 0, first_return = 0;
};

/// Walks first_run .. first_run + count - 1 in `groups` groups: group i runs walks i, i + groups, ... (at
/// most kLanes of them), so the summaries of one lane are written by consecutive threads.
struct WalkStepBatch {
  std::uint64_t seed = 0;
  std::int64_t first_run = 0, count = 0, groups = 0, steps = 0;
  const node_t* starts = nullptr;  // per walk; nullptr: every walk starts at start_node
  node_t start_node = 0;
  WalkStepSummary* summaries = nullptr;  // per walk
  Counter* visits = nullptr;             // per-node visit totals; nullptr: not counted
  bool block_visits = false;             // visits added in block memory, flushed once per block
};

template <WalkKind kKind, int kLanes>
struct WalkStepBody {
  ModelView m;
  WalkStepBatch b;

  NETDP_HD std::int64_t block_words(std::int64_t) const { return b.block_visits ? m.n : 0; }
  NETDP_HD void clear(Counter* block, int tid, int threads) const {
    for (std::int64_t i = tid; i < block_words(threads); i += threads) block[i] = 0;
  }
  NETDP_HD void flush(Counter* block, int tid, int threads) const {
    for (std::int64_t v = tid; v < block_words(threads); v += threads)
      if (block[v] > 0) atomic_add(&b.visits[v], block[v]);
  }

  /// Group i: its walks advance together, one position of every lane per iteration.
  NETDP_HD void walk(std::int64_t i, std::int64_t, int, int, Counter* block) const {
    run(i, b.block_visits ? block : b.visits, std::make_integer_sequence<int, kLanes>{});
  }

 private:
  /// One walk's registers: its streams, position, start and counters.
  struct Lane {
    std::int64_t k;
    bool active;
    philox::Stream words;
    Retry retry;
    node_t current, start;
    std::int64_t start_visits = 1, first_return = 0;

    NETDP_HD Lane(const WalkStepBatch& b, std::int64_t k_)
        : k(k_),
          active(k_ < b.count),
          words(b.seed, walk_subsequence(WalkStream::walk, run_of(b, k_)), 0),
          retry{b.seed, run_of(b, k_)},
          current(!active ? 0 : (b.starts != nullptr ? b.starts[k_] : b.start_node)),
          start(current) {}
    NETDP_HD static std::uint64_t run_of(const WalkStepBatch& b, std::int64_t k) {
      return static_cast<std::uint64_t>(b.first_run + (k < b.count ? k : 0));
    }
  };

  template <int... kJ>
  NETDP_HD void run(std::int64_t i, Counter* visits, std::integer_sequence<int, kJ...>) const {
    Lane lanes[kLanes] = {Lane(b, i + kJ * b.groups)...};
    NETDP_WALK_UNROLL
    for (int j = 0; j < kLanes; ++j)
      if (lanes[j].active && visits != nullptr) atomic_add(&visits[lanes[j].current], Counter{1});
    for (std::int64_t t = 1; t < b.steps; ++t) {
      NETDP_WALK_UNROLL
      for (int j = 0; j < kLanes; ++j) {
        Lane& l = lanes[j];
        if (!l.active) continue;
        l.current = next_node<kKind>(m, l.current, l.words, l.retry, t);
        if (l.current == l.start) {
          ++l.start_visits;
          if (l.first_return == 0) l.first_return = t;
        }
        if (visits != nullptr) atomic_add(&visits[l.current], Counter{1});
      }
    }
    NETDP_WALK_UNROLL
    for (int j = 0; j < kLanes; ++j)
      if (lanes[j].active)
        b.summaries[lanes[j].k] = {lanes[j].current, lanes[j].start_visits, lanes[j].first_return};
  }
};

}  // namespace netdp::kernels::walk
