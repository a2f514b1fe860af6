#include "netdp/accounting/loss_statistics.hpp"

#include <algorithm>

namespace netdp {

LossStatistics::LossStatistics(const Graph& g)
    : g_(g),
      observer_sum_(static_cast<std::size_t>(g.n), 0.0),
      observer_max_(static_cast<std::size_t>(g.n), -std::numeric_limits<double>::infinity()),
      distance_parts_(kPartitions) {}

void LossStatistics::consume(node_t first_source, node_t count, std::span<const double> rows) {
  const node_t n = g_.n;
  // Hop distances of the tile's sources, in parallel; then each column range is folded in by one thread, rows
  // in increasing order, so every sum has the same order whatever the tiling and the thread count.
  std::vector<node_t> distance(static_cast<std::size_t>(count) * n);
#pragma omp parallel
  {
    std::vector<node_t> queue;
#pragma omp for schedule(dynamic, 1)
    for (node_t i = 0; i < count; ++i)
      bfs_distances(g_, first_source + i, std::span<node_t>(distance.data() + std::size_t(i) * n, n), queue);
#pragma omp for schedule(dynamic, 1)
    for (int part = 0; part < kPartitions; ++part) {
      node_t v0 = static_cast<node_t>(std::int64_t(n) * part / kPartitions);
      node_t v1 = static_cast<node_t>(std::int64_t(n) * (part + 1) / kPartitions);
      auto& buckets = distance_parts_[part];
      for (node_t i = 0; i < count; ++i) {
        const node_t u = first_source + i;
        const double* row = rows.data() + std::size_t(i) * n;
        const node_t* d = distance.data() + std::size_t(i) * n;
        for (node_t v = v0; v < v1; ++v) {
          if (v == u) continue;
          const double f = row[v];
          observer_sum_[v] += f;
          observer_max_[v] = std::max(observer_max_[v], f);
          std::size_t bucket = static_cast<std::size_t>(d[v] + 1);
          if (buckets.size() <= bucket) buckets.resize(bucket + 1);
          buckets[bucket].add(f);
        }
      }
    }
  }
  rows_ += count;
}

std::vector<LossAggregate> LossStatistics::by_distance() const {
  std::vector<LossAggregate> merged;
  for (const auto& part : distance_parts_) {
    if (merged.size() < part.size()) merged.resize(part.size());
    for (std::size_t b = 0; b < part.size(); ++b) merged[b].merge(part[b]);
  }
  return merged;
}

std::vector<double> LossStatistics::observer_mean() const {
  std::vector<double> mean(observer_sum_.size());
  for (std::size_t v = 0; v < mean.size(); ++v) mean[v] = observer_sum_[v] / double(g_.n);
  return mean;
}

std::vector<double> LossStatistics::observer_max() const {
  return observer_max_;
}

LossAggregate LossStatistics::overall() const {
  LossAggregate total;
  for (const auto& bucket : by_distance()) total.merge(bucket);
  return total;
}

}  // namespace netdp
