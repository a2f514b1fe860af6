#pragma once
// Graph specs of the CLI and study files: `FAMILY:key=value,...` (docs/design.md "Conventions").
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp {

struct GraphSpec {
  std::string family;                         // e.g. "er", "hypercube", "file"
  std::map<std::string, std::string> params;  // e.g. {"n": "2048", "c": "1", "seed": "3"}
  std::string text;                           // the spec as given
};

/// Parses `family[:key=value,...]`; `file:PATH[,one-based=1][,lcc=1][,order=insertion]`. Throws InvalidInput
/// on syntax errors.
GraphSpec parse_graph_spec(std::string_view text);

/// Nodes and an upper bound of the edges a generator family will build, from its keys alone (random
/// families: the expected count plus 10 %; a memory graph: its size, without a copy); nullopt for files
/// (their readers check as they read), named graphs and keys the builder refuses. make_graph refuses a graph
/// beyond the memory with it before building.
struct PlannedGraph {
  double nodes = 0, edges = 0;
};
std::optional<PlannedGraph> planned_graph_size(const GraphSpec& spec);

/// Builds the graph; unknown families, unknown or missing keys and bad values throw InvalidInput naming them.
Graph make_graph(const GraphSpec& spec);
Graph make_graph(std::string_view text);

/// The node positions (x0, y0, x1, y1, ...) a family draws its graph from (rgg: the points in the unit
/// square, the same draw as make_graph); empty for families without positions.
std::vector<double> graph_positions(const GraphSpec& spec);

/// One line per family with its keys and defaults, for --help texts and docs.
std::string graph_families_help();

}  // namespace netdp
