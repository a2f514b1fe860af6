#pragma once
// The stepping body of plain walks (docs/cuda_backend.md "Walk engine for throughput"): no per-node state,
// kLanes walks per thread interleaved so that their dependent loads overlap, every counter in registers.
// Optional per-node visit totals (the visits-only mode): in block memory when n is small, else one global
// 64-bit addition per step spread over n addresses. The lanes advance through the one step loop
// (common/walk_sim_steps.hpp), so the walks are every engine's;
// tests/backend/test_walk_sim_visit_stats_bodies.cpp runs this body on the host against sample_walk and
// walk_sim. Launched by device_for_each_block / host_for_each_block (common/walk_sim_visit_stats.hpp).
#include <cstdint>
#include <utility>

#include "common/for_each.hpp"
#include "common/hd.hpp"
#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_steps.hpp"

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
  NETDP_HD std::uint64_t run_of(std::int64_t k) const {
    return static_cast<std::uint64_t>(b.first_run + (k < b.count ? k : 0));
  }
  NETDP_HD node_t start_of(std::int64_t k) const {
    return k >= b.count ? 0 : (b.starts != nullptr ? b.starts[k] : b.start_node);
  }

  /// The lanes of group i through the one step loop (walk_steps, kLanes lanes unrolled). A lane past the
  /// batch's end walks run first_run from node 0 for nothing and is neither counted nor written.
  template <int... kJ>
  NETDP_HD void run(std::int64_t i, Counter* visits, std::integer_sequence<int, kJ...>) const {
    WalkCursor lanes[kLanes] = {
        WalkCursor(b.seed, run_of(i + kJ * b.groups), start_of(i + kJ * b.groups))...};
    const bool active[kLanes] = {(i + kJ * b.groups < b.count)...};
    const node_t start[kLanes] = {lanes[kJ].v...};
    std::int64_t start_visits[kLanes], first_return[kLanes];
    NETDP_WALK_UNROLL
    for (int j = 0; j < kLanes; ++j) {
      start_visits[j] = 1;
      first_return[j] = 0;
      if (active[j] && visits != nullptr) atomic_add(&visits[start[j]], Counter{1});
    }
    walk_steps<kKind>(m, lanes, std::integral_constant<int, kLanes>{}, 1, b.steps,
                      [&](int j, std::int64_t t, node_t, node_t v) {
                        if (!active[j]) return;
                        if (v == start[j]) {
                          ++start_visits[j];
                          if (first_return[j] == 0) first_return[j] = t;
                        }
                        if (visits != nullptr) atomic_add(&visits[v], Counter{1});
                      });
    NETDP_WALK_UNROLL
    for (int j = 0; j < kLanes; ++j)
      if (active[j]) b.summaries[i + j * b.groups] = {lanes[j].v, start_visits[j], first_return[j]};
  }
};

}  // namespace netdp::kernels::walk
