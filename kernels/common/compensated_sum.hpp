#pragma once
// Neumaier's compensated summation, the one implementation behind every mean over millions of losses (the
// accountants' LossAggregate, walk-sim's LossStats and its per-observer PairLosses): sums that stay within
// [min, max] and do not drift with the number of terms. Single-source (docs/design.md principle 1).
#include <cmath>

#include "common/hd.hpp"

namespace netdp::kernels {

/// sum + compensation += x.
NETDP_HD inline void compensated_add(double& sum, double& compensation, double x) {
  const double t = sum + x;
  compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
  sum = t;
}

}  // namespace netdp::kernels
