#pragma once
// Undirected simple graphs in CSR form (docs/math.md §0.2: N(u) excludes u, degrees do not count self-loops).
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "netdp/ground/types.hpp"  // node_t, offset_t

namespace netdp {

/// Every edge {u, v} is stored in the rows of both u and v; rows are sorted; no self-loops, no repeats.
struct Graph {
  node_t n = 0;
  std::vector<offset_t> offsets{0};  // size n + 1
  std::vector<node_t> adjacency;     // size 2 m
  /// The id each node has in the file it was read from, when the reader renumbered the nodes (largest
  /// component, insertion order); empty when node i is the file's id i (docs/graphs.md "Node ids"). Written
  /// as node_map.csv beside the results.
  std::vector<std::int64_t> file_ids;

  node_t num_nodes() const { return n; }
  std::int64_t num_edges() const { return offsets.back() / 2; }
  node_t degree(node_t u) const { return static_cast<node_t>(offsets[u + 1] - offsets[u]); }
  std::span<const node_t> neighbors(node_t u) const {
    return {adjacency.data() + offsets[u], adjacency.data() + offsets[u + 1]};
  }
};

/// Builds a graph on nodes 0..n-1 from undirected edges. Ids outside [0, n) throw InvalidInput;
/// self-loops and repeated edges are dropped.
Graph graph_from_edges(node_t n, std::span<const std::pair<node_t, node_t>> edges);

/// Checks the CSR invariants (sizes, sorted rows, symmetry, no self-loops); throws InvalidInput naming the
/// first violation.
void validate(const Graph& g);

/// Hop distances from `source` by breadth-first search; unreachable nodes get -1.
/// `queue` is scratch space reused between calls.
void bfs_distances(const Graph& g, node_t source, std::span<node_t> distance, std::vector<node_t>& queue);
std::vector<node_t> bfs_distances(const Graph& g, node_t source);

/// Component label of each node (labels 0, 1, ... in order of each component's smallest node).
std::vector<node_t> connected_components(const Graph& g, node_t* count = nullptr);
bool is_connected(const Graph& g);

/// The largest connected component, relabelled 0..k-1 in increasing order of the original ids
/// (original_ids[new] = old when given).
Graph largest_connected_component(const Graph& g, std::vector<node_t>* original_ids = nullptr);

/// Exact diameter by BFS from every node (O(n m), parallel); -1 when the graph is disconnected.
node_t diameter(const Graph& g);

struct DegreeStats {
  node_t min = 0, max = 0;
  double mean = 0;
};
DegreeStats degree_stats(const Graph& g);

}  // namespace netdp
