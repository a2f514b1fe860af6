#pragma once
// Per-step maths of the Monte Carlo walk engine (docs/walk_sim.md), written once for the CPU driver and a
// later CUDA port: bounded integers from Philox words with exact integer arithmetic (no floating point
// touches a discrete draw, so paths are identical on every platform), the next-node rules, and the per-cycle
// terms that the C4 composition sums.
#include <cmath>
#include <cstdint>

#include "common/compensated_sum.hpp"
#include "common/dp_math.hpp"
#include "common/hd.hpp"
#include "common/philox.hpp"

namespace netdp::kernels::walk {

/// Lemire's multiply-shift on one 32-bit word (the one definition is in common/philox.hpp; the same rule as
/// PhiloxStream::next_below, so a stream that never rejects gives the same numbers).
using philox::bounded_draw;

/// Weighted row pick: entries [begin, end) carry cumulative thresholds C_k = floor(2^64 (w_0 + ... + w_k)),
/// the last entry's (2^64) implicit. Returns the first k with u < C_k, i.e. entry k with probability w_k up
/// to 2^-64 per entry, for a uniform 64-bit u. Binary search: O(log d).
/// weighted_pick's search with the test u < C_k made by below(k) (true from some k on): the first k in
/// [begin, end - 1) with below(k), else end - 1. The CPU's interleaved walks pass a test that reads C_k's
/// high word first (weighted_pick_by_high_words).
template <class Below>
NETDP_HD inline std::int64_t first_below(std::int64_t begin, std::int64_t end, const Below& below) {
  std::int64_t lo = begin, hi = end - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (below(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

struct BelowThreshold {
  const std::uint64_t* thresholds;
  std::uint64_t u;
  NETDP_HD bool operator()(std::int64_t k) const { return u < thresholds[k]; }
};

NETDP_HD inline std::int64_t weighted_pick(const std::uint64_t* thresholds, std::int64_t begin,
                                           std::int64_t end, std::uint64_t u) {
  return first_below(begin, end, BelowThreshold{thresholds, u});
}

/// weighted_pick(thresholds, begin, end, u), the same search and the same entry, with each comparison u < C_k
/// made on the high words (highs[k] = C_k >> 32) and, only when those are equal, on C_k: the CPU's
/// interleaved walks (kernels/cpu/walk_sim_cpu_interleaved.cpp) read half the lines of a row's thresholds.
struct BelowByHighWords {
  const std::uint32_t* highs;
  const std::uint64_t* thresholds;
  std::uint64_t u;
  // u < C_k <=> u's high word is below C_k's, or equal and u < C_k.
  NETDP_HD bool operator()(std::int64_t k) const {
    const auto u_high = static_cast<std::uint32_t>(u >> 32);
    return u_high != highs[k] ? u_high < highs[k] : u < thresholds[k];
  }
};

NETDP_HD inline std::int64_t weighted_pick_by_high_words(const std::uint32_t* highs,
                                                         const std::uint64_t* thresholds, std::int64_t begin,
                                                         std::int64_t end, std::uint64_t u) {
  return first_below(begin, end, BelowByHighWords{highs, thresholds, u});
}

/// The directed ring of docs/math.md §3.1: v -> v + 1 mod n.
NETDP_HD inline std::int32_t ring_next(std::int32_t v, std::int32_t n) {
  return v + 1 == n ? 0 : v + 1;
}

/// Lazy uniform walk (W = I/2 + D^-1 A / 2) from one draw r uniform on [0, 2 d): neighbour r when r < d, stay
/// otherwise. Exact: the 1/2 and 1/(2d) of the matrix are what the integer draw gives.
NETDP_HD inline bool lazy_moves(std::uint32_t r, std::uint32_t degree) {
  return r < degree;
}

/// The three per-entry terms of C4 (docs/math.md §1.4) for one epsilon: eps, eps^2 and (e^eps - 1) eps /
/// (e^eps + 1) = eps tanh(eps / 2) (no overflow). A pair's loss depends on its list only through their sums
/// and the list length.
struct EpsTerms {
  double eps = 0, square = 0, first = 0;
};
NETDP_HD inline EpsTerms eps_terms(double eps) {
  return {eps, eps * eps, eps * std::tanh(eps / 2)};
}

/// The C4 terms of one cycle of length m for the three boundary counts c = 0 (SS2: the m draws with
/// replacement from n miss u), 1 (mass) and 2 (2 mass) (docs/math.md §4.1.3).
struct CycleTerms {
  EpsTerms zero, one, two;
};

/// The Gaussian cycle of length m (G6 mass eps0 / sqrt(m), docs/math.md §4.1.3).
NETDP_HD inline CycleTerms gaussian_cycle_terms(double eps0, std::int64_t m, std::int64_t n) {
  const double mass = eps0 / std::sqrt(static_cast<double>(m));
  return {eps_terms(dp_math::amplified(dp_math::with_replacement_hit_probability(m, n), mass)),
          eps_terms(mass), eps_terms(2 * mass)};
}

/// Count, compensated sum, min and max of the corrected pair losses of one observer (the fields of
/// LossStats, added one loss of weight 1 at a time in increasing u).
struct PairLosses {
  double count = 0, sum = 0, compensation = 0, min = 0, max = 0;
  NETDP_HD void add(double x) {
    if (count == 0) min = max = x;
    count += 1;
    compensated_add(sum, compensation, x);
    min = x < min ? x : min;
    max = x > max ? x : max;
  }
};

/// The quantile sketch's bin of a loss x > 0: floor(ln x / ln(1 + 2e-4)) (docs/walk_sim.md "Statistics").
NETDP_HD inline std::int64_t quantile_bin(double x, double log_base) {
  return static_cast<std::int64_t>(std::floor(std::log(x) / log_base));
}

}  // namespace netdp::kernels::walk
