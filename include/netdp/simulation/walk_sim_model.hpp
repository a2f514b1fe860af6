#pragma once
// The transition rule of a token walk (docs/walk_sim.md "Walks"): the implicit complete graph, a CSR graph
// with a row-stochastic W, or the directed ring; built once from a graph spec and shared read-only by every
// run.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/walk_sim_layout.hpp"  // WalkKind
#include "netdp/core/graph.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

std::string to_string(WalkKind k);

/// The transition rule of a walk, built once and shared read-only by every run.
struct WalkModel {
  WalkKind kind = WalkKind::complete;
  node_t n = 0;
  std::int64_t edges = 0;         // undirected edges of the graph (n (n - 1) / 2 for the complete graph)
  std::vector<offset_t> offsets;  // CSR rows (uniform, lazy: the adjacency; weighted: W's positive entries)
  std::vector<node_t> targets;    // column of each entry
  std::vector<std::uint64_t> thresholds;             // weighted: cumulative 2^64 fixed point within the row
  std::vector<node_t> degrees;                       // graph degrees (CSR walks)
  std::vector<double> stationary;                    // pi; empty means uniform 1/n
  std::vector<std::uint64_t> stationary_thresholds;  // general pi: cumulative 2^64 fixed point over nodes
  std::string weights;                               // what W is, for reports
  std::string stationary_rule;                       // how pi was obtained

  int words_per_step() const;
  double pi(node_t v) const { return stationary.empty() ? 1.0 / n : stationary[v]; }
  node_t degree(node_t v) const;  // n - 1 for the complete graph, 1 for the directed ring (out-degree)
};

WalkModel complete_walk(node_t n);
WalkModel directed_ring_walk(node_t n);

/// Transition rules of a CSR walk: "uniform" (1/d_v), "lazy-uniform" (exact), "directed-ring" (the ring
/// family only), or a weighting of weighting.hpp (metropolis, hamilton-literal, max-degree, file:PATH), whose
/// W is checked to be row-stochastic on the graph.
struct WalkWeights {
  enum class Rule { uniform, lazy_uniform, directed_ring, matrix } rule = Rule::uniform;
  WeightsSpec matrix;
};
WalkWeights parse_walk_weights(std::string_view text);
std::string to_string(const WalkWeights& w);

/// A walk on a connected graph with n >= 2 (InvalidInput otherwise, naming `command`: walk-sim, walk-sgd).
/// pi: d_v / 2m for the uniform and lazy walks, 1/n when W is doubly stochastic, else by (lazy) power
/// iteration.
WalkModel csr_walk(const Graph& g, const WalkWeights& weights, std::string_view command = "walk-sim");

/// The walk of a graph spec: `complete:n=N` with weights "auto" or "metropolis" is the implicit J/n walk (no
/// graph is built); "auto" is "uniform" on every other graph. `graph` receives the CSR graph when one is
/// built (for hop distances).
WalkModel make_walk_model(std::string_view graph_spec, std::string_view weights, Graph* graph = nullptr,
                          std::string_view command = "walk-sim");

}  // namespace netdp
