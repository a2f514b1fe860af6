// Statistics of the walk simulator (docs/walk_sim.md "Statistics"): weighted loss aggregates, the quantile
// sketch, hop-distance tables.
#include "simulation/walk_sim_statistics.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "common/walk_sim_math.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace netdp {

namespace {

using kernels::compensated_add;

}  // namespace

void LossStats::add(double x, double w) {
  if (!(w > 0)) return;
  if (weight == 0) min = max = x;
  weight += w;
  compensated_add(sum, compensation, x * w);
  min = std::min(min, x);
  max = std::max(max, x);
}

void LossStats::merge(const LossStats& o) {
  if (o.weight == 0) return;
  if (weight == 0) {
    *this = o;
    return;
  }
  weight += o.weight;
  compensated_add(sum, compensation, o.sum);
  compensated_add(sum, compensation, o.compensation);
  min = std::min(min, o.min);
  max = std::max(max, o.max);
}

bool distance_counts(const Graph& g, DistanceCounts& out, std::int64_t max_entries) {
  out = {};
  if (double(g.n) * (double(g.n) + double(g.adjacency.size())) > 2e10) return false;
  std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(g.n));
  std::atomic<std::int64_t> entries{0};
  std::atomic<bool> too_large{false};
#pragma omp parallel
  {
    std::vector<node_t> distance(static_cast<std::size_t>(g.n)), queue;
#pragma omp for schedule(dynamic, 16)
    for (node_t v = 0; v < g.n; ++v) {
      if (too_large.load(std::memory_order_relaxed)) continue;
      bfs_distances(g, v, distance, queue);
      if (v == 0) out.from_node0 = distance;  // the reference bookkeeping's initial receiver
      auto& row = rows[v];
      for (node_t d : distance) {
        if (d < 0) continue;
        if (static_cast<std::size_t>(d) >= row.size()) row.resize(static_cast<std::size_t>(d) + 1, 0);
        ++row[d];
      }
      if (entries.fetch_add(std::int64_t(row.size())) + std::int64_t(row.size()) > max_entries)
        too_large.store(true);
    }
  }
  if (too_large.load()) {
    out = {};
    return false;
  }
  out.offsets.assign(1, 0);
  out.counts.reserve(static_cast<std::size_t>(entries.load()));
  for (const auto& row : rows) {
    out.counts.insert(out.counts.end(), row.begin(), row.end());
    out.offsets.push_back(static_cast<offset_t>(out.counts.size()));
  }
  return true;
}

namespace walk_detail {

void QuantileSketch::add(double x, double weight) {
  if (!(weight > 0)) return;
  if (total_ == 0) min_ = max_ = x;
  total_ += weight;
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
  if (x <= 0) {
    zero_ += weight;
    return;
  }
  bins_[kernels::walk::quantile_bin(x, kLogBase)] += weight;
}

void QuantileSketch::add_counts(std::int64_t first_bin, std::span<const std::uint64_t> counts, double zero,
                                double min, double max) {
  double added = zero;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0) {
      bins_[first_bin + std::int64_t(i)] += double(counts[i]);
      added += double(counts[i]);
    }
  if (!(added > 0)) return;
  min_ = total_ == 0 ? min : std::min(min_, min);
  max_ = total_ == 0 ? max : std::max(max_, max);
  total_ += added;
  zero_ += zero;
}

void QuantileSketch::merge(const QuantileSketch& o) {
  if (o.total_ == 0) return;
  if (total_ == 0) {
    *this = o;
    return;
  }
  total_ += o.total_;
  zero_ += o.zero_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  for (const auto& [k, w] : o.bins_) bins_[k] += w;
}

double QuantileSketch::quantile(double q) const {
  if (total_ == 0) return 0;
  if (q <= 0) return min_;
  if (q >= 1) return max_;
  const double target = q * total_;
  if (zero_ >= target) return 0;
  std::vector<std::pair<std::int64_t, double>> sorted(bins_.begin(), bins_.end());
  std::sort(sorted.begin(), sorted.end());
  double cumulative = zero_;
  for (const auto& [k, w] : sorted) {
    cumulative += w;
    if (cumulative >= target) return std::clamp(std::exp((double(k) + 0.5) * kLogBase), min_, max_);
  }
  return max_;
}

}  // namespace walk_detail
}  // namespace netdp
