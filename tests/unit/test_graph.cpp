// The CSR graph and its traversals (src/core/graph.cpp) on tiny graphs checked by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"

namespace netdp {
namespace {

using Edges = std::vector<std::pair<node_t, node_t>>;

std::vector<node_t> row(const Graph& g, node_t u) {
  return {g.neighbors(u).begin(), g.neighbors(u).end()};
}

TEST(GraphFromEdges, BuildsSortedSymmetricRows) {
  // Triangle 0-1-2 plus the pendant edge 2-3, given out of order.
  Edges edges{{2, 3}, {1, 0}, {2, 0}, {1, 2}};
  Graph g = graph_from_edges(4, edges);
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.num_edges(), 4);
  EXPECT_EQ(row(g, 0), (std::vector<node_t>{1, 2}));
  EXPECT_EQ(row(g, 1), (std::vector<node_t>{0, 2}));
  EXPECT_EQ(row(g, 2), (std::vector<node_t>{0, 1, 3}));
  EXPECT_EQ(row(g, 3), (std::vector<node_t>{2}));
  EXPECT_EQ(g.degree(2), 3);
  EXPECT_NO_THROW(validate(g));
}

TEST(GraphFromEdges, DropsSelfLoopsAndRepeats) {
  Edges edges{{0, 1}, {1, 0}, {0, 1}, {2, 2}, {1, 2}};
  Graph g = graph_from_edges(3, edges);
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_EQ(row(g, 1), (std::vector<node_t>{0, 2}));
  EXPECT_EQ(row(g, 2), (std::vector<node_t>{1}));
  EXPECT_NO_THROW(validate(g));
}

TEST(GraphFromEdges, IsolatedNodesAndEmptyGraph) {
  Graph g = graph_from_edges(5, Edges{{1, 3}});
  EXPECT_EQ(g.num_edges(), 1);
  EXPECT_EQ(g.degree(0), 0);
  EXPECT_EQ(g.degree(4), 0);
  Graph empty = graph_from_edges(0, Edges{});
  EXPECT_EQ(empty.num_nodes(), 0);
  EXPECT_EQ(empty.num_edges(), 0);
  EXPECT_NO_THROW(validate(empty));
}

TEST(GraphFromEdges, RejectsIdsOutsideRange) {
  EXPECT_THROW(graph_from_edges(3, Edges{{0, 3}}), InvalidInput);
  EXPECT_THROW(graph_from_edges(3, Edges{{-1, 1}}), InvalidInput);
  EXPECT_THROW(graph_from_edges(-1, Edges{}), InvalidInput);
}

TEST(GraphValidate, DetectsEachBrokenInvariant) {
  Graph good = graph_from_edges(3, Edges{{0, 1}, {1, 2}});
  ASSERT_NO_THROW(validate(good));

  Graph asymmetric = good;  // rows {1}, {0, 2}, {1}: turn 0 -> 1 into 0 -> 2, which 2 does not store
  asymmetric.adjacency[0] = 2;
  EXPECT_THROW(validate(asymmetric), InvalidInput);

  Graph self_loop = good;
  self_loop.adjacency[0] = 0;
  EXPECT_THROW(validate(self_loop), InvalidInput);

  Graph unsorted = graph_from_edges(3, Edges{{0, 1}, {0, 2}});
  std::swap(unsorted.adjacency[0], unsorted.adjacency[1]);
  EXPECT_THROW(validate(unsorted), InvalidInput);

  Graph bad_offsets = good;
  bad_offsets.offsets.pop_back();
  EXPECT_THROW(validate(bad_offsets), InvalidInput);

  Graph out_of_range = good;
  out_of_range.adjacency[0] = 7;
  EXPECT_THROW(validate(out_of_range), InvalidInput);
}

TEST(GraphBfsDistances, PathAndUnreachable) {
  // Path 0-1-2-3 plus the separate edge 4-5.
  Graph g = graph_from_edges(6, Edges{{0, 1}, {1, 2}, {2, 3}, {4, 5}});
  EXPECT_EQ(bfs_distances(g, 0), (std::vector<node_t>{0, 1, 2, 3, -1, -1}));
  EXPECT_EQ(bfs_distances(g, 2), (std::vector<node_t>{2, 1, 0, 1, -1, -1}));
  EXPECT_EQ(bfs_distances(g, 5), (std::vector<node_t>{-1, -1, -1, -1, 1, 0}));
}

TEST(GraphBfsDistances, ScratchOverloadReusesBuffers) {
  // 5-cycle: distances from u are min(|u - v|, 5 - |u - v|).
  Graph g = graph_from_edges(5, Edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}});
  std::vector<node_t> distance(5), queue;
  for (node_t s = 0; s < 5; ++s) {
    bfs_distances(g, s, distance, queue);
    for (node_t v = 0; v < 5; ++v) {
      node_t gap = s > v ? s - v : v - s;
      EXPECT_EQ(distance[v], std::min(gap, 5 - gap));
    }
  }
}

TEST(GraphConnectedComponents, LabelsInOrderOfSmallestNode) {
  // Components {0, 3}, {1, 2, 5}, {4}.
  Graph g = graph_from_edges(6, Edges{{3, 0}, {5, 2}, {1, 5}});
  node_t count = 0;
  auto label = connected_components(g, &count);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(label, (std::vector<node_t>{0, 1, 1, 0, 2, 1}));
  EXPECT_FALSE(is_connected(g));
  EXPECT_TRUE(is_connected(graph_from_edges(3, Edges{{0, 1}, {1, 2}})));
  EXPECT_TRUE(is_connected(graph_from_edges(1, Edges{})));
}

TEST(GraphLargestComponent, RelabelsInIncreasingOriginalOrder) {
  // Components {0, 3} and {1, 2, 5, 6}; the larger one becomes 1->0, 2->1, 5->2, 6->3.
  Graph g = graph_from_edges(7, Edges{{3, 0}, {5, 2}, {1, 5}, {6, 1}, {4, 4}});
  std::vector<node_t> original;
  Graph lcc = largest_connected_component(g, &original);
  EXPECT_EQ(original, (std::vector<node_t>{1, 2, 5, 6}));
  EXPECT_EQ(lcc.num_nodes(), 4);
  EXPECT_EQ(lcc.num_edges(), 3);
  EXPECT_EQ(row(lcc, 0), (std::vector<node_t>{2, 3}));  // 1 ~ 5, 6
  EXPECT_EQ(row(lcc, 1), (std::vector<node_t>{2}));     // 2 ~ 5
  EXPECT_EQ(row(lcc, 2), (std::vector<node_t>{0, 1}));  // 5 ~ 1, 2
  EXPECT_EQ(row(lcc, 3), (std::vector<node_t>{0}));     // 6 ~ 1
  EXPECT_NO_THROW(validate(lcc));
}

TEST(GraphLargestComponent, ConnectedGraphIsUnchanged) {
  Graph g = graph_from_edges(4, Edges{{0, 1}, {1, 2}, {2, 3}});
  std::vector<node_t> original;
  Graph lcc = largest_connected_component(g, &original);
  EXPECT_EQ(original, (std::vector<node_t>{0, 1, 2, 3}));
  EXPECT_EQ(lcc.offsets, g.offsets);
  EXPECT_EQ(lcc.adjacency, g.adjacency);
}

TEST(GraphDiameter, HandCheckedGraphs) {
  Edges path, cycle;
  for (node_t u = 0; u + 1 < 9; ++u) path.emplace_back(u, u + 1);
  cycle = path;
  cycle.emplace_back(8, 0);
  EXPECT_EQ(diameter(graph_from_edges(9, path)), 8);   // path on n nodes: n - 1
  EXPECT_EQ(diameter(graph_from_edges(9, cycle)), 4);  // cycle on n nodes: floor(n / 2)
  EXPECT_EQ(diameter(graph_from_edges(4, Edges{{0, 1}, {2, 3}})), -1);
  EXPECT_EQ(diameter(graph_from_edges(1, Edges{})), 0);
  EXPECT_EQ(diameter(graph_from_edges(0, Edges{})), 0);
}

TEST(GraphDegreeStats, StarGraph) {
  // Star with centre 0 and 4 leaves: degrees 4, 1, 1, 1, 1; mean 2 m / n = 8 / 5.
  Graph g = graph_from_edges(5, Edges{{0, 1}, {0, 2}, {0, 3}, {0, 4}});
  DegreeStats s = degree_stats(g);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 8.0 / 5.0);
}

}  // namespace
}  // namespace netdp
