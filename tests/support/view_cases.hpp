#pragma once
// The fixtures of the exact gossip accountant's backend suites (test_gossip_view_bodies,
// test_gossip_view_cuda): the graphs (a ring, a grid, an Erdos-Renyi graph and a path, each with its W-MH,
// named as graph specs) and the engines' output buffers.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "gossip_view_kernels.hpp"
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

/// What an engine writes for `count` observers: their projections (count x n, or count with a source) and
/// reports; the CUDA twin's plan beside them.
struct GossipViews {
  std::vector<double> projections;
  std::vector<kernels::GossipViewObserver> reports;
  kernels::CudaGossipViewRun run;
};

/// Buffers for `count` observers, the projections set to -1 (never a projection) so that a value left
/// unwritten shows.
inline GossipViews empty_views(std::int64_t n, std::int64_t count, std::int64_t source) {
  GossipViews out;
  out.projections.assign(static_cast<std::size_t>(source >= 0 ? count : count * n), -1.0);
  out.reports.resize(static_cast<std::size_t>(count));
  return out;
}

}  // namespace netdp::testing
