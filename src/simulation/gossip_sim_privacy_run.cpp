// One run's losses folded into the privacy totals (docs/math.md §6.1, eq. 6.4; 6.4 for the ER comparison), the
// union graph of a schedule and the quantile rule.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "netdp/core/error.hpp"
#include "simulation/gossip_sim_privacy_internal.hpp"

namespace netdp {

namespace gossip_sim_detail {

PrivacyRunSink::PrivacyRunSink(PrivacyTotals& totals, std::int64_t run, bool keep, const Graph* union_graph,
                               const ErRunBounds* er, LossStatistics* union_stats,
                               const GossipPrivacyVisitor& visit)
    : t_(totals),
      run_index_(run),
      keep_(keep),
      union_graph_(union_graph),
      er_(er),
      union_stats_(union_stats),
      visit_(visit),
      observer_(static_cast<std::size_t>(totals.n), 0.0),
      neighbour_(er ? static_cast<std::size_t>(totals.n) : 0, 0) {}

void PrivacyRunSink::consume(node_t first_source, node_t count, std::span<const double> rows) {
  const node_t n = t_.n;
  const std::size_t stride = static_cast<std::size_t>(t_.runs);
  for (node_t i = 0; i < count; ++i) {
    const node_t u = first_source + i;
    const double* row = rows.data() + static_cast<std::size_t>(i) * n;
    const std::size_t base = static_cast<std::size_t>(u - t_.first) * n;
    if (er_)
      for (node_t v : union_graph_->neighbors(u)) neighbour_[v] = 1;
    for (node_t v = 0; v < n; ++v) {
      const double f = row[v];
      const std::size_t pair = base + static_cast<std::size_t>(v);
      t_.sum[pair] += f;
      t_.min[pair] = std::min(t_.min[pair], f);
      t_.max[pair] = std::max(t_.max[pair], f);
      if (keep_) t_.kept[pair * stride + static_cast<std::size_t>(run_index_)] = f;
      if (v == u) continue;
      run_.add(f);
      observer_[v] += f;
      if (!er_) continue;
      const bool near = neighbour_[v];
      const double bound = near ? er_->neighbour : er_->other[v];
      t_.er_sum[pair] += bound;
      auto& e = *t_.er;
      (near ? e.neighbour_loss : e.other_loss).add(f);
      (near ? e.neighbour_bound : e.other_bound).add(bound);
      if (f > bound) ++e.exceeded;
    }
    if (er_)
      for (node_t v : union_graph_->neighbors(u)) neighbour_[v] = 0;
  }
  rows_received_ += count;
  if (union_stats_) union_stats_->consume(first_source, count, rows);
  if (visit_) visit_(run_index_, first_source, count, rows);
}

GossipPrivacyRun PrivacyRunSink::finish(std::span<const std::int64_t> communications,
                                        double bound_scale) const {
  GossipPrivacyRun r;
  r.mean_loss = run_.mean();
  r.max_loss = run_.count ? run_.max : 0.0;
  const node_t n = t_.n;
  if (rows_received_ == n) {  // eps_bar_v needs every source u
    double sum = 0, max = 0;
    for (node_t v = 0; v < n; ++v) {
      sum += observer_[v] / n;
      max = std::max(max, observer_[v] / n);
    }
    r.mean_eps_bar = sum / n;
    r.max_eps_bar = max;
  } else {
    r.mean_eps_bar = r.max_eps_bar = std::numeric_limits<double>::quiet_NaN();
  }
  double bound = 0;
  for (std::int64_t c : communications) bound += bound_scale * double(c);
  r.eps_bar_bound = communications.empty() ? 0.0 : bound / double(communications.size());
  return r;
}

}  // namespace gossip_sim_detail

Graph schedule_union_graph(const GossipSchedule& s, int t_start) {
  std::vector<std::pair<node_t, node_t>> edges;
  if (s.randomized()) {
    for (int t = std::max(t_start, 0); t < s.steps; ++t)
      if (s.activations[t].first != s.activations[t].second) edges.push_back(s.activations[t]);
  } else {
    const int last = s.constant ? std::min(s.steps, t_start + 1) : s.steps;  // a constant round once
    for (int t = std::max(t_start, 0); t < last; ++t) {
      const Graph& e = s.round(t).graph;
      for (node_t u = 0; u < e.n; ++u)
        for (node_t v : e.neighbors(u))
          if (u < v) edges.emplace_back(u, v);
    }
  }
  return graph_from_edges(s.n, edges);
}

double sorted_quantile(std::span<const double> sorted, double level) {
  if (sorted.empty()) throw InvalidInput("quantile of no values");
  const double h = level * double(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace netdp
