#pragma once
// The summaries the papers plot (docs/math.md §0.3), accumulated from streamed loss rows without holding n x
// n.
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "common/compensated_sum.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/loss_rows.hpp"

namespace netdp {

/// Count, compensated (Neumaier) sum, min and max: means over millions of pairs stay within [min, max].
struct LossAggregate {
  std::int64_t count = 0;
  double sum = 0, compensation = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();

  void add(double x) {
    ++count;
    accumulate(x);
    min = x < min ? x : min;
    max = x > max ? x : max;
  }
  void merge(const LossAggregate& o) {
    count += o.count;
    accumulate(o.sum);
    accumulate(o.compensation);
    min = o.min < min ? o.min : min;
    max = o.max > max ? o.max : max;
  }
  double total() const { return sum + compensation; }
  double mean() const { return count ? total() / double(count) : 0.0; }

 private:
  void accumulate(double x) { kernels::compensated_add(sum, compensation, x); }
};

/// Statistics over ordered pairs u != v of the rows it receives:
///  - by hop distance d(u, v) (distance -1: unreachable), mean / min / max ("best" / "worst");
///  - per observer v: mean loss towards v with divisor n (eps_bar_v, [S3] 6.2.1) and max over u;
///  - over all pairs.
/// Sums run in a fixed order, so the results do not depend on tiling or thread count.
class LossStatistics : public LossRowSink {
 public:
  explicit LossStatistics(const Graph& g);
  void consume(node_t first_source, node_t count, std::span<const double> rows) override;

  /// Index d + 1 holds distance d; index 0 the unreachable pairs. Empty buckets have count 0.
  std::vector<LossAggregate> by_distance() const;
  /// eps_bar_v = (1/n) sum_{u != v} f(u, v) over the rows received; meaningful when all n rows were received.
  std::vector<double> observer_mean() const;
  std::vector<double> observer_max() const;
  LossAggregate overall() const;
  std::int64_t rows_received() const { return rows_; }

 private:
  static constexpr int kPartitions = 64;  // fixed column ranges: deterministic merge order
  const Graph& g_;
  std::int64_t rows_ = 0;
  std::vector<double> observer_sum_, observer_max_;
  std::vector<std::vector<LossAggregate>> distance_parts_;  // [partition][distance + 1]
};

}  // namespace netdp
