#pragma once
// Per-element DP maths that the CUDA walk accounting shares with the DP toolbox (docs/design.md principle 1): C4 from
// the sufficient statistics of a list (docs/math.md §1.4) and SS2 amplification (docs/math.md §1.5). The toolbox's
// functions (src/dp/) check their arguments and call these.
#include <cmath>
#include <cstdint>

#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::dp_math {

/// epsilon of C4 for a list of `count` epsilons with sums `sum`, `sum_squares` (S2) and `sum_first` (sum of
/// eps tanh(eps / 2)), at delta_new = count delta (< 1, checked by the callers): second = sqrt(2 S2
/// ln(1/delta_new)) when e + sqrt(S2)/delta_new > 1/delta_new, else sqrt(2 S2 ln(e + sqrt(S2)/delta_new));
/// epsilon = min(sum_first + second, sum). An empty list gives 0.
NETDP_HD inline double heterogeneous_epsilon(double count, double sum, double sum_squares, double sum_first,
                                             double delta) {
  if (count == 0) return 0;
  constexpr double kE = 2.718281828459045;  // std::numbers::e as a double
  const double delta_new = count * delta;
  const double root = std::sqrt(sum_squares);
  const double second = kE + root / delta_new > 1 / delta_new
                            ? std::sqrt(2 * sum_squares * std::log(1 / delta_new))
                            : std::sqrt(2 * sum_squares * std::log(kE + root / delta_new));
  const double first = sum_first + second;
  return first < sum ? first : sum;
}

/// ln(1 + q (e^eps - 1)): an eps-DP mechanism run on a q-subsample; the large-eps branch avoids overflow.
NETDP_HD inline double amplified(double q, double epsilon) {
  if (q == 0) return 0;
  if (epsilon > 30) return epsilon + std::log(rn_add(q, rn_mul(1 - q, std::exp(-epsilon))));  // no FMA
  return std::log1p(q * std::expm1(epsilon));
}

/// 1 - (1 - 1/n)^m: the probability that m draws with replacement from n nodes hit a given node (SS2).
NETDP_HD inline double with_replacement_hit_probability(std::int64_t m, std::int64_t n) {
  if (m == 0) return 0;
  if (n == 1) return 1;
  return -std::expm1(static_cast<double>(m) * std::log1p(-1.0 / static_cast<double>(n)));
}

}  // namespace netdp::kernels::dp_math
