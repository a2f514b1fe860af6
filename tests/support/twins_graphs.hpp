#pragma once
// The graphs of the fixed-W accountants' twins suites (test_gossip_loss_twins, test_walk_loss_twins): a
// complete graph, ring 37, path 29, star 30 and a hypercube with W-MH, an Erdos-Renyi graph (seed 9) with
// max-degree W and one (seed 4) with W-MH; each suite chooses the sizes that exercise its own blocks. And
// the suites' last check: the library's whole matrix through either device.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "support/twins_compare.hpp"

namespace netdp::testing {

/// A named graph and its gossip matrix W.
struct TwinGraph {
  std::string name;
  Graph g;
  CsrMatrix w;
};

struct ErdosRenyiSize {
  node_t n;
  double p;
};

/// The sizes a suite chooses: the complete graph's n, the hypercube's dimension and the two Erdos-Renyi
/// graphs' n and edge probability.
struct TwinGraphSizes {
  node_t complete;
  int hypercube_dim;
  ErdosRenyiSize er_max_degree, er;
};

inline std::vector<TwinGraph> twin_graphs(const TwinGraphSizes& s) {
  std::vector<TwinGraph> c;
  const auto add = [&c](std::string name, Graph g, Weighting weighting = Weighting::metropolis) {
    CsrMatrix w = gossip_matrix(g, weighting);
    c.push_back({std::move(name), std::move(g), std::move(w)});
  };
  const auto er_name = [](const ErdosRenyiSize& er) { return "er " + std::to_string(er.n); };
  add("complete " + std::to_string(s.complete), complete_graph(s.complete));
  add("ring 37", ring_graph(37));
  add("path 29", path_graph(29));
  add("star 30", star_graph(30));
  add("hypercube " + std::to_string(s.hypercube_dim), hypercube_graph(s.hypercube_dim));
  add(er_name(s.er_max_degree) + " max-degree W", erdos_renyi_graph(s.er_max_degree.n, s.er_max_degree.p, 9),
      Weighting::max_degree);
  add(er_name(s.er), erdos_renyi_graph(s.er.n, s.er.p, 4));
  return c;
}

/// The library's whole loss matrix of `c`, `matrix(c.g, c.w, p)` (gossip_loss_matrix, walk_loss_matrix: the
/// driver, the engines, the sink), with p.device the CPU and then the CUDA device (the emulated one here):
/// the same bytes.
template <class Params, class Matrix>
void expect_same_matrix_on_either_device(const TwinGraph& c, Params p, Matrix matrix,
                                         const std::string& what) {
  p.device = {DeviceKind::cpu, 0};
  const std::vector<double> cpu = matrix(c.g, c.w, p);
  p.device = {DeviceKind::cuda, 0};
  const std::vector<double> cuda = matrix(c.g, c.w, p);
  expect_same_bytes(cpu, cuda, what, static_cast<std::size_t>(c.g.n));
}

}  // namespace netdp::testing
