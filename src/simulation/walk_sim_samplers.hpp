#pragma once
// The walk loop and its next-node rules (docs/walk_sim.md "Samplers" and "Randomness"): one rule per walk
// kind, each reading a fixed number of Philox words per position: kernels::walk::next_node of
// kernels/common/walk_sim_bodies.hpp, the rules both twins run. A visitor sees every position; the loop
// serves the path sampler (sample_walk, --save-paths), the one-walk accounted engine the twins do not replace
// (the reference bookkeeping, docs/walk_sim.md "CPU and CUDA twins") and the tests.
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_math.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace netdp::walk_detail {

/// floor(2^64 x) for x in [0, 1), saturated at both ends (cumulative weights as 64-bit thresholds).
inline std::uint64_t fixed_point_64(double x) {
  if (!(x > 0)) return 0;
  if (x >= 1) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(std::ldexp(x, 64));
}

/// Two words as one uniform 64-bit integer (low word first).
inline std::uint64_t next_u64(PhiloxStream& s) {
  return s.next_u64();
}

/// Uniform on [0, bound) for any bound >= 1: Lemire on one word below 2^32, else masked 64-bit rejection.
inline std::uint64_t next_below_64(PhiloxStream& s, std::uint64_t bound) {
  if (bound <= std::numeric_limits<std::uint32_t>::max())
    return s.next_below(static_cast<std::uint32_t>(bound));
  std::uint64_t mask = bound - 1;
  for (int shift = 1; shift < 64; shift *= 2) mask |= mask >> shift;
  for (;;) {
    const std::uint64_t x = next_u64(s) & mask;
    if (x < bound) return x;
  }
}

/// The next-node rule of walks of kind kKind: the single-source kernels::walk::next_node that the CUDA
/// bodies run too (kernels/common/walk_sim_bodies.hpp), on the model's arrays.
using Retry = kernels::walk::Retry;
template <WalkKind kKind>
struct StepRule {
  kernels::walk::ModelView m;
  node_t next(node_t v, PhiloxStream& words, const Retry& retry, std::int64_t t) const {
    return kernels::walk::next_node<kKind>(m, v, words, retry, t);
  }
};

/// Positions 1 .. steps-1 of run `run` from `start`: visitor.start(p_0), then visitor.step(t, p_{t-1}, p_t).
/// tick(k) is called after every chunk of k positions (progress).
template <class Rule, class Visitor, class Tick>
void walk_positions(const Rule& rule, std::uint64_t seed, std::int64_t run, std::int64_t steps, node_t start,
                    Visitor& visitor, Tick&& tick) {
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  PhiloxStream words(seed, walk_subsequence(WalkStream::walk, static_cast<std::uint64_t>(run)));
  const Retry retry{seed, static_cast<std::uint64_t>(run)};
  node_t current = start;
  visitor.start(current);
  for (std::int64_t t0 = 1; t0 < steps; t0 += kChunk) {
    const std::int64_t t1 = steps - t0 > kChunk ? t0 + kChunk : steps;
    for (std::int64_t t = t0; t < t1; ++t) {
      const node_t next = rule.next(current, words, retry, t);
      visitor.step(t, current, next);
      current = next;
    }
    tick(t1 - t0);
  }
}

/// walk_positions with the rule of the model's kind.
template <class Visitor, class Tick>
void dispatch_walk(const WalkModel& m, std::uint64_t seed, std::int64_t run, std::int64_t steps, node_t start,
                   Visitor& visitor, Tick&& tick) {
  const kernels::walk::ModelView view{m.n, m.offsets.data(), m.targets.data(), m.thresholds.data()};
  kernels::walk::for_kind(m.kind, [&](auto kind) {
    walk_positions(StepRule<kind.value>{view}, seed, run, steps, start, visitor, tick);
  });
}

}  // namespace netdp::walk_detail
