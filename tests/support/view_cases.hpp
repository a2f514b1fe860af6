#pragma once
// The graphs of the exact gossip accountant's backend suites (test_gossip_view_bodies,
// test_gossip_view_cuda): a ring, a grid, an Erdos-Renyi graph and a path, each with its W-MH, named as graph
// specs.
#include <sstream>
#include <string>
#include <vector>

#include "netdp/core/graph_generators.hpp"
#include "support/test_support.hpp"

namespace netdp::testing {

struct ViewCase {
  std::string name;
  MetropolisGraph graph;
};

struct ViewCaseSizes {
  node_t ring, grid_rows, grid_cols, er_n;
  double er_p;
  std::uint64_t er_seed;
  node_t path;
};

inline std::vector<ViewCase> view_cases(const ViewCaseSizes& s) {
  std::ostringstream er;
  er << "er:n=" << s.er_n << ",p=" << s.er_p;
  std::vector<ViewCase> c;
  c.push_back({"ring:n=" + std::to_string(s.ring), with_metropolis(ring_graph(s.ring))});
  c.push_back({"grid:" + std::to_string(s.grid_rows) + "x" + std::to_string(s.grid_cols),
               with_metropolis(grid_graph(s.grid_rows, s.grid_cols))});
  c.push_back({er.str(), with_metropolis(erdos_renyi_graph(s.er_n, s.er_p, s.er_seed))});
  c.push_back({"path:n=" + std::to_string(s.path), with_metropolis(path_graph(s.path))});
  return c;
}

}  // namespace netdp::testing
