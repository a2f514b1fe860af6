// Graphs and weight matrices in memory (docs/graphs.md "Graphs in memory"): the registry, the memory: specs,
// and equality with the graphs and matrices read from the equivalent files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/memory_graphs.hpp"
#include "netdp/core/weighting.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using netdp::testing::expect_invalid;
using Ids = std::vector<std::int64_t>;
using Reals = std::vector<double>;

// Entries of a Matrix Market file as the Python package wrote them before (1-based), and 0-based arrays.
// The pattern has a self-loop (2, 2), a repeat (0, 1) and both directions of {1, 3}; node 4 is isolated.
const Ids kRows = {0, 1, 2, 0, 3, 1, 3}, kCols = {1, 2, 2, 1, 1, 3, 0};
const std::string kPattern =
    "%%MatrixMarket matrix coordinate pattern general\n5 5 7\n1 2\n2 3\n3 3\n1 2\n4 2\n2 4\n4 1\n";

TEST(MemoryGraphs, GraphEqualsTheMatrixMarketFile) {
  testing::ScratchDir dir;
  const Graph file = load_graph_file(dir.write("g.mtx", kPattern));
  const Graph memory = graph_from_index_arrays(5, kRows, kCols);
  EXPECT_EQ(memory.n, file.n);
  EXPECT_EQ(memory.offsets, file.offsets);
  EXPECT_EQ(memory.adjacency, file.adjacency);
  // Derived by hand: edges {0,1}, {1,2}, {1,3}, {0,3}.
  EXPECT_EQ(memory.offsets, (std::vector<offset_t>{0, 2, 5, 6, 8, 8}));
  EXPECT_EQ(memory.adjacency, (std::vector<node_t>{1, 3, 0, 2, 3, 1, 0, 1}));
}

TEST(MemoryGraphs, SpecRoundTripAndUnregister) {
  const std::int64_t id = register_memory_graph(graph_from_index_arrays(5, kRows, kCols));
  const std::string spec = memory_spec(id);
  EXPECT_EQ(spec, "memory:id=" + std::to_string(id));
  const GraphSpec parsed = parse_graph_spec(spec);
  EXPECT_EQ(parsed.family, "memory");
  EXPECT_EQ(parsed.params.at("id"), std::to_string(id));
  const auto planned = planned_graph_size(parsed);  // the registered graph's own size
  ASSERT_TRUE(planned.has_value());
  EXPECT_EQ(planned->nodes, 5);
  EXPECT_EQ(planned->edges, 4);
  const Graph g = make_graph(spec);
  EXPECT_EQ(g.num_edges(), 4);
  EXPECT_EQ(g.adjacency, (std::vector<node_t>{1, 3, 0, 2, 3, 1, 0, 1}));
  EXPECT_TRUE(unregister_memory_object(id));
  EXPECT_FALSE(unregister_memory_object(id));
  expect_invalid([&] { make_graph(spec); }, "memory: specs come from the Python package");
  // A new registration gets a new id: jobs::graph_size caches sizes by spec text.
  const std::int64_t next = register_memory_graph(graph_from_index_arrays(2, Ids{0}, Ids{1}));
  EXPECT_GT(next, id);
  EXPECT_TRUE(unregister_memory_object(next));
}

TEST(MemoryGraphs, UnknownIdsAndBadSpecs) {
  try {
    make_graph("memory:id=987654321");
    ADD_FAILURE() << "no error";
  } catch (const InvalidInput& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find("graph spec 'memory:id=987654321'"), std::string::npos) << message;
    EXPECT_NE(message.find("memory: specs come from the Python package"), std::string::npos) << message;
  }
  expect_invalid([] { make_graph("memory:id=x"); }, "not an integer");
  expect_invalid([] { make_graph("memory:id=1,lcc=1"); }, "unknown key 'lcc'");
  const Graph g = graph_from_index_arrays(5, kRows, kCols);
  expect_invalid([&] { make_weights(g, parse_weights_spec("memory:id=987654321")); },
                 "weights 'memory:id=987654321': nothing registered");
  expect_invalid([] { parse_weights_spec("memory:7"); }, "expected memory:id=K");
  expect_invalid([] { parse_weights_spec("memory:id=-1"); }, "expected memory:id=K");
}

TEST(MemoryGraphs, BadArrays) {
  expect_invalid([] { graph_from_index_arrays(0, Ids{}, Ids{}); }, "no nodes");
  expect_invalid([] { graph_from_index_arrays(3, Ids{0, 1}, Ids{1}); }, "2 row indices but 1 column");
  expect_invalid([] { graph_from_index_arrays(3, Ids{0}, Ids{3}); }, "index 3 outside the 3 x 3 matrix");
  expect_invalid([] { graph_from_index_arrays(std::int64_t(1) << 31, Ids{}, Ids{}); }, "32-bit");
  expect_invalid(
      [] {
        matrix_from_index_arrays(2, Ids{0}, Ids{0},
                                 std::vector<double>{std::numeric_limits<double>::quiet_NaN()});
      },
      "not finite");
  expect_invalid([] { matrix_from_index_arrays(2, Ids{0}, Ids{-1}, Reals{1.0}); }, "index -1");
}

TEST(MemoryGraphs, WeightsEqualTheFileWeights) {
  testing::ScratchDir dir;
  const Graph g = load_graph_file(dir.write("g.mtx", kPattern));
  // A repeated entry (0, 0) is summed, as the file reader sums it: 0.25 + 0.25.
  const Ids rows = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 4};
  const Ids cols = {0, 1, 3, 0, 0, 1, 2, 3, 1, 2, 0, 1, 3, 4};
  const std::vector<double> values = {0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25,
                                      0.25, 0.25, 0.75, 0.25, 0.25, 0.5,  1.0};
  std::string text = "%%MatrixMarket matrix coordinate real general\n5 5 14\n";
  for (std::size_t k = 0; k < rows.size(); ++k)
    text += std::to_string(rows[k] + 1) + " " + std::to_string(cols[k] + 1) + " " +
            std::to_string(values[k]) + "\n";
  const CsrMatrix file = make_weights(g, parse_weights_spec("file:" + dir.write("w.mtx", text)));
  const std::int64_t id = register_memory_weights(matrix_from_index_arrays(5, rows, cols, values));
  const WeightsSpec spec = parse_weights_spec(memory_spec(id));
  EXPECT_EQ(spec.scheme, Weighting::file);  // a given matrix: used as given, as a file's
  EXPECT_EQ(to_string(spec), memory_spec(id));
  const CsrMatrix memory = make_weights(g, spec);
  EXPECT_EQ(memory.offsets, file.offsets);
  EXPECT_EQ(memory.columns, file.columns);
  EXPECT_EQ(memory.values, file.values);
  EXPECT_EQ(memory.at(0, 0), 0.5);
  validate_gossip_matrix(memory, g);
  // Support is checked as for a file: (2, 4) is no edge of g.
  const std::int64_t off = register_memory_weights(matrix_from_index_arrays(5, Ids{2}, Ids{4}, Reals{1.0}));
  expect_invalid([&] { make_weights(g, parse_weights_spec(memory_spec(off))); }, "is not an edge");
  EXPECT_TRUE(unregister_memory_object(id));
  EXPECT_TRUE(unregister_memory_object(off));
}

TEST(MemoryGraphs, ConcurrentRegisterAndUnregister) {
  const std::size_t before = memory_object_count();
  constexpr int kRounds = 2000;
  std::vector<Ids> seen(2);
  auto work = [&](int t) {
    for (int i = 0; i < kRounds; ++i) {
      const std::int64_t id =
          t == 0 ? register_memory_graph(graph_from_index_arrays(3, Ids{0}, Ids{i % 3}))
                 : register_memory_weights(matrix_from_index_arrays(2, Ids{1}, Ids{1}, Reals{1.0}));
      seen[t].push_back(id);
      if (t == 0) {
        EXPECT_EQ(make_graph(memory_spec(id)).n, 3);
      }
      EXPECT_TRUE(unregister_memory_object(id));
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(memory_object_count(), before);
  std::vector<std::int64_t> all(seen[0]);
  all.insert(all.end(), seen[1].begin(), seen[1].end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());  // every id distinct
}

}  // namespace
}  // namespace netdp
