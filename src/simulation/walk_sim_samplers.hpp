#pragma once
// The host's draws around the walks (docs/walk_sim.md "Samplers" and "Randomness"): thresholds of weighted
// rows and the start samplers' 64-bit draws. The walks themselves step only in the one step loop of
// kernels/common/walk_sim_steps.hpp (walk::walk_steps), which the CPU and CUDA twins run.
#include <cmath>
#include <cstdint>
#include <limits>

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

}  // namespace netdp::walk_detail
