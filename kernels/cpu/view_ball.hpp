#pragma once
// The ball of one observer's view (docs/math.md §6.9 "Computation"): the messages W^t e_w, w in N(v),
// t < t_start + steps, are supported within t hops of w in W's nonzero pattern, so the whole view lives on
// the nodes within t_start + steps - 1 hops of v's neighbours (plus v, for e_v). The view's basis built on W
// restricted to that ball is the same subspace, its vectors the global ones with the zeros outside left out.
// Internal to the CPU backend (gossip_view_cpu.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gossip_view_kernels.hpp"

namespace netdp::kernels {

/// W restricted to an observer's ball and relabelled: local node k is global node nodes[k], in increasing
/// order, so every local row lists its columns in W's order and the local product sums like the global one.
struct ViewBall {
  std::vector<std::int32_t> nodes;
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> columns;
  std::vector<double> values;
  std::vector<std::int32_t> start;  // v's neighbours, relabelled
  std::int32_t observer = 0;        // v, relabelled

  std::int64_t size() const { return static_cast<std::int64_t>(nodes.size()); }
  /// Local index of global node u, -1 outside the ball (where every basis vector is 0).
  std::int64_t local(std::int64_t u) const {
    const auto it = std::lower_bound(nodes.begin(), nodes.end(), u);
    return it != nodes.end() && *it == u ? it - nodes.begin() : -1;
  }
  /// Bytes held by the ball's arrays.
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(4 * nodes.size() + 8 * offsets.size() + 12 * columns.size() +
                                     4 * start.size());
  }
};

/// Finds observers' balls by breadth-first search in W's pattern; one per thread, reused across observers
/// (its n labels are reset after each search, so a search costs the ball's size, not n).
class ViewBallFinder {
 public:
  explicit ViewBallFinder(std::int64_t n) : label_(static_cast<std::size_t>(n), -1) {}

  /// Bytes the finder itself holds.
  std::int64_t bytes() const { return static_cast<std::int64_t>(4 * label_.size()); }

  /// Observer v's ball into `ball`, true when it has fewer than `limit` nodes; false (ball unspecified) when
  /// the search reached `limit` nodes, where the dense n-vectors cost little more.
  bool find(const GossipViewProblem& p, std::int64_t v, std::int64_t limit, ViewBall& ball) {
    if (limit <= 0) return false;  // the dense path was asked for
    std::vector<std::int32_t>& nodes = ball.nodes;
    nodes.clear();
    auto visit = [&](std::int32_t x) {
      if (label_[static_cast<std::size_t>(x)] >= 0) return;
      label_[static_cast<std::size_t>(x)] = 0;
      nodes.push_back(x);
    };
    for (std::int64_t k = p.g_offsets[v]; k < p.g_offsets[v + 1]; ++k) visit(p.g_adjacency[k]);
    // Level by level: nodes[level_begin, level_end) are at distance `level` from v's neighbours.
    const int radius = p.t_start + p.steps - 1;
    std::size_t level_begin = 0;
    for (int level = 0; level < radius && level_begin < nodes.size(); ++level) {
      const std::size_t level_end = nodes.size();
      for (std::size_t i = level_begin; i < level_end && std::int64_t(nodes.size()) < limit; ++i)
        for (std::int64_t k = p.w_offsets[nodes[i]]; k < p.w_offsets[nodes[i] + 1]; ++k)
          visit(p.w_columns[k]);
      level_begin = level_end;
      if (std::int64_t(nodes.size()) >= limit) break;
    }
    visit(static_cast<std::int32_t>(v));
    const bool small = std::int64_t(nodes.size()) < limit;
    if (small) relabel(p, v, ball);
    for (std::int32_t x : nodes) label_[static_cast<std::size_t>(x)] = -1;
    return small;
  }

 private:
  /// Sorts the ball's nodes, numbers them, and copies W's entries between them (the others multiply zeros).
  void relabel(const GossipViewProblem& p, std::int64_t v, ViewBall& ball) {
    std::sort(ball.nodes.begin(), ball.nodes.end());
    for (std::size_t k = 0; k < ball.nodes.size(); ++k)
      label_[static_cast<std::size_t>(ball.nodes[k])] = static_cast<std::int32_t>(k);
    ball.offsets.assign(1, 0);
    ball.columns.clear();
    ball.values.clear();
    for (std::int32_t x : ball.nodes) {
      for (std::int64_t k = p.w_offsets[x]; k < p.w_offsets[x + 1]; ++k) {
        const std::int32_t column = label_[static_cast<std::size_t>(p.w_columns[k])];
        if (column < 0) continue;
        ball.columns.push_back(column);
        ball.values.push_back(p.w_values[k]);
      }
      ball.offsets.push_back(static_cast<std::int64_t>(ball.columns.size()));
    }
    ball.start.clear();
    for (std::int64_t k = p.g_offsets[v]; k < p.g_offsets[v + 1]; ++k)
      ball.start.push_back(label_[static_cast<std::size_t>(p.g_adjacency[k])]);
    ball.observer = label_[static_cast<std::size_t>(v)];
  }

  std::vector<std::int32_t> label_;  // -1 outside the ball being searched
};

}  // namespace netdp::kernels
