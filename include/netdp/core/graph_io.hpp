#pragma once
// Reading and writing graphs and weight matrices. Errors name the file, the line and its content.
#include <string>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

struct EdgeListOptions {
  bool one_based = false;          // ids in the file start at 1
  bool largest_component = false;  // keep only the largest connected component (relabelled)
  /// Number the nodes 0..k-1 by first appearance in the file (u before v on a line), networkx's insertion
  /// order, instead of by id; ids that appear in no entry are dropped (docs/math.md §12 item 59).
  bool insertion_order = false;
};

/// Whitespace-separated `u v [w]` lines, `#` comments and blank lines ignored; n = largest id + 1. The
/// optional weight must be a finite number (it is not part of the graph; see load_weight_matrix).
Graph load_edge_list(const std::string& path, const EdgeListOptions& options = {});

/// Matrix Market coordinate file (pattern / real / integer, general / symmetric); the pattern is the graph,
/// the diagonal is ignored. `largest_component` and `insertion_order` as for edge lists (`one_based` is
/// ignored: the format is always 1-based).
Graph load_matrix_market(const std::string& path, const EdgeListOptions& options);
Graph load_matrix_market(const std::string& path, bool largest_component = false);

/// Picks the reader by extension (.mtx -> Matrix Market, anything else -> edge list).
Graph load_graph_file(const std::string& path, const EdgeListOptions& options = {});

/// A weight matrix: Matrix Market (symmetric files are mirrored), or `i j w` triplet lines (0-based, every
/// stored entry listed, diagonal included).
CsrMatrix load_weight_matrix(const std::string& path);

/// Writes `u v` lines with u < v (0-based) after a `# n m` comment, atomically (temporary file, then rename).
void write_edge_list(const Graph& g, const std::string& path);

}  // namespace netdp
