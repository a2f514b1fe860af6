#pragma once
// Graphs and weight matrices handed over in memory (docs/graphs.md "Graphs in memory"): the Python package
// registers the objects of a call, passes `memory:id=K` as the graph or weights spec, and removes them after.
// Thread-safe; ids are never reused in a process (jobs::graph_size caches by spec text).
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

/// The graph on nodes 0..n-1 with the edges {rows[k], cols[k]}: self-loops dropped, repeats merged, the
/// graph a Matrix Market pattern file of these entries gives (docs/graphs.md "Matrix Market"). Throws
/// InvalidInput for n outside [1, 2^31 - 1), ids outside [0, n) or arrays of different lengths.
Graph graph_from_index_arrays(std::int64_t n, std::span<const std::int64_t> rows,
                              std::span<const std::int64_t> cols);

/// The n x n matrix with the entries (rows[k], cols[k]) = values[k], repeats summed: the matrix a Matrix
/// Market real file of these entries gives. Throws InvalidInput as above and for non-finite values.
CsrMatrix matrix_from_index_arrays(std::int64_t n, std::span<const std::int64_t> rows,
                                   std::span<const std::int64_t> cols, std::span<const double> values);

/// Registers an object; returns its id (>= 0).
std::int64_t register_memory_graph(Graph g);
std::int64_t register_memory_weights(CsrMatrix w);

/// Removes an entry of either kind; false when there is none. Runs holding the object keep their copy.
bool unregister_memory_object(std::int64_t id);

/// The registered object; an unknown id throws InvalidInput, one line starting with `what` (the spec).
std::shared_ptr<const Graph> memory_graph(std::int64_t id, const std::string& what);
std::shared_ptr<const CsrMatrix> memory_weights(std::int64_t id, const std::string& what);

/// Entries registered now (both kinds).
std::size_t memory_object_count();

/// "memory:id=K".
std::string memory_spec(std::int64_t id);

}  // namespace netdp
