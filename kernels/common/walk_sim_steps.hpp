#pragma once
// The walk engine's next-node rules and its one step loop (docs/walk_sim.md "The step loop"): every walk of
// every engine (plain, interleaved, accounted, visit statistics, stepping, saved paths, both twins) advances
// through walk_steps below, so the paths are the same wherever they run. A rule reads a fixed number of
// Philox words per position (docs/walk_sim.md "Randomness layout"); it is split into three phases (the
// position's draw, the weighted search, the move) so that the loop can run kLanes walks side by side, each
// phase over all lanes before the next: the CPU's interleaved walks prefetch in the gaps (their cache misses
// then overlap), the device's stepping body keeps every lane in registers. One lane is the single walk.
#include <cstdint>
#include <type_traits>

#include "common/hd.hpp"
#include "common/philox.hpp"
#include "common/walk_sim_layout.hpp"
#include "common/walk_sim_math.hpp"
#include "netdp/ground/types.hpp"

// The lanes' loops have a compile-time trip count on the device: unrolled, so that each lane's state stays
// in registers (the host compiler unrolls them at -O3 by itself).
#if defined(__CUDA_ARCH__)
#define NETDP_WALK_UNROLL _Pragma("unroll")
#else
#define NETDP_WALK_UNROLL
#endif

namespace netdp::kernels::walk {

/// The transition table of a walk model as plain arrays (CSR kinds only; nullptr otherwise).
struct ModelView {
  node_t n = 0;
  const offset_t* offsets = nullptr;
  const node_t* targets = nullptr;
  const std::uint64_t* thresholds = nullptr;  // weighted rows: 64-bit cumulative thresholds
  const std::uint32_t* highs = nullptr;       // their high words (the CPU's interleaved walks), or nullptr
};

/// Redraw of a rejected Lemire word of position t: next_below on the retry stream at offset t << 20.
struct Retry {
  std::uint64_t seed = 0, run = 0;
  NETDP_HD std::uint32_t below(std::int64_t t, std::uint32_t bound) const {
    philox::Stream s(seed, walk_subsequence(WalkStream::retry, run), static_cast<std::uint64_t>(t) << 20);
    return s.next_below(bound);
  }
};

/// One walk word bounded to [0, bound); the rare rejected word is replaced from the retry stream, so every
/// position reads exactly its own words.
NETDP_HD inline std::uint32_t draw(philox::Stream& words, const Retry& retry, std::int64_t t,
                                   std::uint32_t bound) {
  std::uint32_t k = 0;
  if (!bounded_draw(words.next_u32(), bound, &k)) k = retry.below(t, bound);
  return k;
}

/// A walk between positions: p_{t-1}, its walk stream (the next position's words) and retry stream, and what
/// the phases of a position hand each other.
struct WalkCursor {
  node_t v = 0;
  philox::Stream words;
  Retry retry;
  std::int64_t pick = 0;  // complete: p_t; CSR: the entry of p_t (-1: the lazy walk stays at v)
  offset_t begin = 0, end = 0;
  std::uint64_t u = 0;  // weighted rows: the position's 64-bit draw

  /// Run `run` of the seed at position 0 on `start`.
  NETDP_HD WalkCursor(std::uint64_t seed, std::uint64_t run, node_t start)
      : v(start), words(seed, walk_subsequence(WalkStream::walk, run), 0), retry{seed, run} {}
  NETDP_HD WalkCursor(node_t v_, const philox::Stream& words_, const Retry& retry_)
      : v(v_), words(words_), retry(retry_) {}
};

/// A read hint for a line a later phase needs (host only; a no-op on the device).
NETDP_HD inline void prefetch_line([[maybe_unused]] const void* p) {
#if !defined(__CUDA_ARCH__)
  __builtin_prefetch(p, 0, 3);
#endif
}

/// Phase 1 of position t: the row of p_{t-1} and the position's words, one (complete, uniform, lazy), two
/// (weighted, low word first) or none (directed ring). kPrefetch: hints for what phases 2 and 3 read.
template <WalkKind kKind, bool kPrefetch = false>
NETDP_HD void draw_position(const ModelView& m, WalkCursor& c, std::int64_t t) {
  if constexpr (kKind == WalkKind::complete) {
    c.pick = draw(c.words, c.retry, t, static_cast<std::uint32_t>(m.n));
  } else if constexpr (kKind == WalkKind::uniform || kKind == WalkKind::lazy_uniform ||
                       kKind == WalkKind::weighted) {
    c.begin = m.offsets[c.v];
    c.end = m.offsets[c.v + 1];
    const auto degree = static_cast<std::uint32_t>(c.end - c.begin);
    if constexpr (kKind == WalkKind::uniform) {
      c.pick = c.begin + draw(c.words, c.retry, t, degree);
      if constexpr (kPrefetch) prefetch_line(m.targets + c.pick);
    } else if constexpr (kKind == WalkKind::lazy_uniform) {
      const std::uint32_t k = draw(c.words, c.retry, t, 2 * degree);
      c.pick = lazy_moves(k, degree) ? c.begin + k : -1;
      if constexpr (kPrefetch)
        if (c.pick >= 0) prefetch_line(m.targets + c.pick);
    } else {
      c.u = c.words.next_u64();
      if constexpr (kPrefetch) {
        // The row's thresholds (their high words when given: half the lines); the pick's target is
        // prefetched by phase 2, so only its line is fetched.
        if (m.highs != nullptr) {
          for (offset_t e = c.begin; e < c.end; e += 16) prefetch_line(m.highs + e);
          prefetch_line(m.highs + c.end - 1);
        } else {
          for (offset_t e = c.begin; e < c.end; e += 8) prefetch_line(m.thresholds + e);
          prefetch_line(m.thresholds + c.end - 1);
        }
      }
    }
  }
}

/// Phase 2 (weighted rows only): the search for the drawn entry, on the high words when the view has them
/// (the same entry: weighted_pick_by_high_words).
template <bool kPrefetch = false>
NETDP_HD void search_position(const ModelView& m, WalkCursor& c) {
  c.pick = m.highs != nullptr ? weighted_pick_by_high_words(m.highs, m.thresholds, c.begin, c.end, c.u)
                              : weighted_pick(m.thresholds, c.begin, c.end, c.u);
  if constexpr (kPrefetch) prefetch_line(m.targets + c.pick);
}

/// Phase 3: p_t.
template <WalkKind kKind>
NETDP_HD node_t next_of(const ModelView& m, const WalkCursor& c) {
  if constexpr (kKind == WalkKind::complete)
    return static_cast<node_t>(c.pick);
  else if constexpr (kKind == WalkKind::directed_ring)
    return ring_next(c.v, m.n);
  else
    return c.pick >= 0 ? m.targets[c.pick] : c.v;
}

/// The one step loop: positions t0 .. t1 - 1 (t0 >= 1) of `count` walks side by side (`count` an int, or a
/// std::integral_constant so that the device unrolls the lanes), each phase over every lane, then
/// visit(lane, t, p_{t-1}, p_t) per lane in lane order; lanes[j].v is then p_t. A walk of any length runs as
/// consecutive ranges (the callers report progress between them). kPrefetch (host): hints for the lines the
/// next phase and the next position read (the row of p_t).
template <WalkKind kKind, bool kPrefetch = false, class Count, class Visit>
NETDP_HD void walk_steps(const ModelView& m, WalkCursor* lanes, Count count, std::int64_t t0, std::int64_t t1,
                         Visit&& visit) {
  const int lanes_count = static_cast<int>(count);
  for (std::int64_t t = t0; t < t1; ++t) {
    NETDP_WALK_UNROLL
    for (int j = 0; j < lanes_count; ++j) draw_position<kKind, kPrefetch>(m, lanes[j], t);
    if constexpr (kKind == WalkKind::weighted) {
      NETDP_WALK_UNROLL
      for (int j = 0; j < lanes_count; ++j) search_position<kPrefetch>(m, lanes[j]);
    }
    NETDP_WALK_UNROLL
    for (int j = 0; j < lanes_count; ++j) {
      WalkCursor& c = lanes[j];
      const node_t next = next_of<kKind>(m, c);
      visit(j, t, c.v, next);
      c.v = next;
      if constexpr (kPrefetch && kKind != WalkKind::complete && kKind != WalkKind::directed_ring) {
        prefetch_line(m.offsets + next);
        prefetch_line(m.offsets + next + 1);
      }
    }
  }
}

/// p_t from p_{t-1} = v for a walk of kind kKind, on the walk stream `words` (advanced past the position's
/// words): one position of walk_steps.
template <WalkKind kKind>
NETDP_HD node_t next_node(const ModelView& m, node_t v, philox::Stream& words, const Retry& retry,
                          std::int64_t t) {
  WalkCursor c(v, words, retry);
  draw_position<kKind>(m, c, t);
  if constexpr (kKind == WalkKind::weighted) search_position(m, c);
  words = c.words;
  return next_of<kKind>(m, c);
}

/// Calls launch(std::integral_constant<WalkKind, kind>) so that a body template is instantiated per kind.
template <class Launch>
void for_kind(WalkKind kind, Launch&& launch) {
  switch (kind) {
    case WalkKind::complete:
      return launch(std::integral_constant<WalkKind, WalkKind::complete>{});
    case WalkKind::uniform:
      return launch(std::integral_constant<WalkKind, WalkKind::uniform>{});
    case WalkKind::lazy_uniform:
      return launch(std::integral_constant<WalkKind, WalkKind::lazy_uniform>{});
    case WalkKind::weighted:
      return launch(std::integral_constant<WalkKind, WalkKind::weighted>{});
    case WalkKind::directed_ring:
      return launch(std::integral_constant<WalkKind, WalkKind::directed_ring>{});
  }
}

}  // namespace netdp::kernels::walk
