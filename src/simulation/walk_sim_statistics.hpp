#pragma once
// Weighted quantiles of pairwise losses in bounded memory (docs/walk_sim.md "Statistics"): geometric bins of
// relative width 2e-4, so a reported quantile is within a relative 1e-4 of an exact order statistic of the
// weighted sample (clamped to the exact min and max). Weights are integers, so merging is exact and
// independent of the order.
#include <cmath>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace netdp::walk_detail {

inline const double kLogBase = std::log1p(2e-4);  // bin k holds [b^k, b^(k+1)), b = 1 + 2e-4

class QuantileSketch {
 public:
  void add(double x, double weight);  // x >= 0
  void merge(const QuantileSketch& o);
  /// Bins first_bin, first_bin + 1, ... with integer weights `counts`, weight `zero` at x <= 0, and the exact
  /// min and max of what they hold (the CUDA accounting's dense bins).
  void add_counts(std::int64_t first_bin, std::span<const std::uint64_t> counts, double zero, double min,
                  double max);
  /// The smallest bin value whose cumulative weight reaches q * total (q = 0: min, q = 1: max); 0 when empty.
  double quantile(double q) const;
  double total() const { return total_; }

 private:
  std::unordered_map<std::int64_t, double> bins_;
  double zero_ = 0, total_ = 0, min_ = 0, max_ = 0;
};

}  // namespace netdp::walk_detail
