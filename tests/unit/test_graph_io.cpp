// Graph and weight-matrix files: round trips, options, Matrix Market variants, and errors that name the file,
// the line number and the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_io.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using netdp::testing::ScratchDir;
using Edges = std::vector<std::pair<node_t, node_t>>;

std::vector<node_t> row(const Graph& g, node_t u) {
  return {g.neighbors(u).begin(), g.neighbors(u).end()};
}

bool same_graph(const Graph& a, const Graph& b) {
  return a.n == b.n && a.offsets == b.offsets && a.adjacency == b.adjacency;
}

/// A Matrix Market coordinate file: the header line of `kind` (e.g. "real general"), then `body`.
std::string mtx(const std::string& kind, const std::string& body = "") {
  return "%%MatrixMarket matrix coordinate " + kind + "\n" + body;
}

/// g has n nodes and `edges` edges, and node u of each {u, neighbours} has exactly those neighbours.
void expect_graph(const Graph& g, node_t n, std::int64_t edges,
                  const std::vector<std::pair<node_t, std::vector<node_t>>>& rows) {
  EXPECT_EQ(g.n, n);
  EXPECT_EQ(g.num_edges(), edges);
  for (const auto& [u, neighbours] : rows) EXPECT_EQ(row(g, u), neighbours) << "node " << u;
}

/// w is n x n with `stored` stored entries, and w(i, j) = value for each {i, j, value}.
void expect_weights(const CsrMatrix& w, node_t n, std::int64_t stored,
                    const std::vector<std::tuple<node_t, node_t, double>>& entries) {
  EXPECT_EQ(w.n, n);
  EXPECT_EQ(w.nnz(), stored);
  for (const auto& [i, j, value] : entries) EXPECT_DOUBLE_EQ(w.at(i, j), value) << i << ", " << j;
}

// Expects InvalidInput whose message contains every fragment.
template <class F>
void expect_invalid(F&& load, const std::vector<std::string>& fragments) {
  try {
    load();
    ADD_FAILURE() << "no InvalidInput thrown";
  } catch (const InvalidInput& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

TEST(GraphIo, WriteThenLoadRoundTrip) {
  ScratchDir dir;
  const std::string path = (dir / "hypercube.txt").string();
  for (const Graph& g : {hypercube_graph(6), grid_graph(7, 9), florentine_families_graph()}) {
    write_edge_list(g, path);
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    Graph back = load_edge_list(path);
    validate(back);
    EXPECT_TRUE(same_graph(g, back));
  }
}

TEST(GraphIo, WrittenFormat) {
  ScratchDir dir;
  const std::string path = (dir / "path.txt").string();
  write_edge_list(graph_from_edges(4, Edges{{2, 1}, {3, 2}, {1, 0}}), path);
  EXPECT_EQ(netdp::testing::read_text(path), "# 4 3\n0 1\n1 2\n2 3\n");
}

TEST(GraphIo, CommentsBlankLinesWeightsAndWhitespace) {
  ScratchDir dir;
  auto path = dir.write("g.txt",
                        "# a comment\n"
                        "\n"
                        "0 1 0.5\n"
                        "  1\t2   \n"
                        "2 3 -1e-3   # trailing comment\r\n"
                        "   \n"
                        "3 0\n"
                        "0 0\n"    // self-loop: dropped
                        "1 0\n");  // repeat: merged
  expect_graph(load_edge_list(path), 4, 4, {{0, {1, 3}}, {2, {1, 3}}});
}

TEST(GraphIo, NodeCountIsLargestIdPlusOne) {
  ScratchDir dir;
  Graph g = load_edge_list(dir.write("g.txt", "0 1\n7 5\n"));
  EXPECT_EQ(g.n, 8);  // 2, 3, 4, 6 isolated
  EXPECT_EQ(g.degree(3), 0);
}

TEST(GraphIo, OneBasedIds) {
  ScratchDir dir;
  auto path = dir.write("g.txt", "1 2\n2 3\n");
  Graph g = load_edge_list(path, {.one_based = true});
  EXPECT_EQ(g.n, 3);
  EXPECT_EQ(row(g, 1), (std::vector<node_t>{0, 2}));
  EXPECT_EQ(load_graph_file(path, {.one_based = true}).n, 3);
}

TEST(GraphIo, LargestComponentIsRelabelled) {
  ScratchDir dir;
  // Components {0, 9} and {2, 4, 6}: the larger becomes 2 -> 0, 4 -> 1, 6 -> 2.
  auto path = dir.write("g.txt", "0 9\n4 6\n2 4\n");
  expect_graph(load_edge_list(path, {.largest_component = true}), 3, 2, {{1, {0, 2}}});
  EXPECT_EQ(load_edge_list(path).n, 10);
}

// A renumbered graph remembers each node's id in the file (node_map.csv): by hand on a path 5-7-9 beside an
// edge 2-3, ids as written (one-based files too), and none when nothing was renumbered.
TEST(GraphIo, RenumberedNodesKeepTheirFileIds) {
  ScratchDir dir;
  const auto path = dir.write("g.txt", "9 7\n7 5\n2 3\n");
  EXPECT_TRUE(load_edge_list(path).file_ids.empty());
  EdgeListOptions lcc;
  lcc.largest_component = true;
  const Graph a = load_edge_list(path, lcc);
  EXPECT_EQ(a.n, 3);
  EXPECT_EQ(a.file_ids, (std::vector<std::int64_t>{5, 7, 9}));
  EdgeListOptions insertion;
  insertion.insertion_order = true;
  EXPECT_EQ(load_edge_list(path, insertion).file_ids, (std::vector<std::int64_t>{9, 7, 5, 2, 3}));
  insertion.largest_component = true;
  EXPECT_EQ(load_edge_list(path, insertion).file_ids, (std::vector<std::int64_t>{9, 7, 5}));
  lcc.one_based = true;
  EXPECT_EQ(load_edge_list(path, lcc).file_ids, (std::vector<std::int64_t>{5, 7, 9}));
  const auto connected = dir.write("c.txt", "0 1\n1 2\n");
  EXPECT_TRUE(load_edge_list(connected, {.largest_component = true}).file_ids.empty());  // every node kept
}

TEST(GraphIo, EdgeListErrorsNamePathLineAndContent) {
  ScratchDir dir;
  auto check = [&](const std::string& content, const std::string& bad_line, const std::string& line_number,
                   EdgeListOptions options = {}) {
    auto path = dir.write("bad.txt", content);
    expect_invalid([&] { load_edge_list(path, options); }, {path, ":" + line_number + ":", bad_line});
  };
  check("0 1\n# ok\n1 2 3 4\n", "1 2 3 4", "3");         // too many fields
  check("0 1\n5\n", "5", "2");                           // too few
  check("0 1\n1 x\n", "1 x", "2");                       // not a number
  check("0 1\n1 2x\n", "1 2x", "2");                     // trailing garbage
  check("\n\n0 -4\n", "0 -4", "3");                      // negative id
  check("1 2\n0 1\n", "0 1", "2", {.one_based = true});  // id 0 in a 1-based file
  check("0 1 nan\n", "0 1 nan", "1");                    // non-finite weight
  check("0 1 inf\n", "0 1 inf", "1");
  check("0 1 0.5w\n", "0 1 0.5w", "1");
  check("0 99999999999\n", "0 99999999999", "1");  // beyond 32-bit ids
  expect_invalid([&] { load_edge_list(dir.write("negative.txt", "-1 2\n")); }, {"negative"});
  expect_invalid([&] { load_edge_list(dir.write("zero.txt", "0 1\n"), {.one_based = true}); },
                 {"0", "1-based"});
}

TEST(GraphIo, MissingAndEmptyFiles) {
  ScratchDir dir;
  const std::string missing = (dir / "nope.txt").string();
  expect_invalid([&] { load_edge_list(missing); }, {missing});
  expect_invalid([&] { load_graph_file(missing); }, {missing});
  auto empty = dir.write("empty.txt", "# only a comment\n\n");
  expect_invalid([&] { load_edge_list(empty); }, {empty, "no edges"});
}

TEST(GraphIo, MatrixMarketSymmetricPattern) {
  ScratchDir dir;
  // The diagonal (4, 4) is ignored; node ids are 1-based.
  auto path = dir.write("g.mtx", mtx("pattern symmetric", "% a comment\n5 5 5\n2 1\n3 2\n4 3\n4 4\n5 1\n"));
  Graph g = load_matrix_market(path);
  validate(g);
  expect_graph(g, 5, 4, {{0, {1, 4}}, {3, {2}}});
  EXPECT_TRUE(same_graph(load_graph_file(path), g));  // dispatch on .mtx
}

TEST(GraphIo, MatrixMarketGeneralRealAndInteger) {
  ScratchDir dir;
  // General storage lists both (i, j) and (j, i); zero values are still part of the pattern.
  auto real = dir.write("r.mtx", mtx("real general", "4 4 5\n1 2 0.5\n2 1 0.5\n2 3 0\n3 3 1\n1 4 -2.5e1\n"));
  expect_graph(load_matrix_market(real), 4, 3, {{0, {1, 3}}});
  auto integer = dir.write("i.mtx", mtx("integer general", "3 3 2\n1 2 7\n3 2 1\n"));
  EXPECT_EQ(load_matrix_market(integer).num_edges(), 2);
  // Largest component: {1, 2} (0-based 0, 1) beats the isolated nodes.
  auto pair = dir.write("p.mtx", mtx("pattern general", "6 6 1\n1 2\n"));
  EXPECT_EQ(load_matrix_market(pair, true).n, 2);
  EXPECT_EQ(load_graph_file(pair, {.largest_component = true}).n, 2);
}

TEST(GraphIo, MatrixMarketErrorsNameTheLine) {
  ScratchDir dir;
  auto check = [&](const std::string& content, const std::vector<std::string>& fragments) {
    auto path = dir.write("bad.mtx", content);
    std::vector<std::string> all = fragments;
    all.push_back(path);
    expect_invalid([&] { load_matrix_market(path); }, all);
  };
  const std::string header = mtx("pattern general");
  check("", {"empty"});
  check("hello\n", {":1:", "hello"});
  check("%%MatrixMarket matrix array real general\n2 2\n", {":1:", "coordinate"});
  check(mtx("complex general"), {":1:", "complex"});
  check(mtx("real skew-symmetric"), {":1:", "skew-symmetric"});
  check(header + "% c\n3 3\n", {":3:", "size line", "3 3"});
  check(header + "3 4 1\n1 2\n", {":2:", "square", "3 4 1"});
  check(header + "3 3 x\n", {":2:", "3 3 x"});
  check(header + "3 3 2\n1 2\n", {":3:", "only 1 of the 2"});
  check(header + "3 3 1\n1 2\n2 3\n", {":4:", "2 3", "more entries"});
  check(header + "3 3 1\n1 4\n", {":3:", "1 4", "outside"});
  check(header + "3 3 1\n0 1\n", {":3:", "0 1"});
  check(header + "3 3 1\n1 2 5\n", {":3:", "1 2 5"});
  check(mtx("real general", "3 3 1\n1 2\n"), {":3:", "1 2", "value"});
  check(mtx("real general", "3 3 1\n1 2 inf\n"), {":3:", "1 2 inf", "finite"});
  check(header, {"size line"});
}

TEST(GraphIo, WeightMatrixFromTriplets) {
  ScratchDir dir;
  auto path = dir.write("w.txt",
                        "# i j w, 0-based\n"
                        "0 0 0.5\n0 1 0.5\n1 0 0.5\n1 1 0.25\n"
                        "1 2 0.125\n1 2 0.125\n"  // repeated entries are summed
                        "2 1 0.25\n2 2 0.75\n");
  expect_weights(load_weight_matrix(path), 3, 7, {{0, 0, 0.5}, {1, 2, 0.25}, {2, 0, 0.0}});
  expect_invalid([&] { load_weight_matrix(dir.write("bad.txt", "0 0 1\n0 1\n")); },
                 {"bad.txt", ":2:", "0 1"});
  expect_invalid([&] { load_weight_matrix(dir.write("nan.txt", "0 0 nan\n")); },
                 {"nan.txt", ":1:", "0 0 nan"});
  expect_invalid([&] { load_weight_matrix(dir.write("none.txt", "# nothing\n")); }, {"none.txt"});
}

TEST(GraphIo, WeightMatrixFromMatrixMarket) {
  ScratchDir dir;
  // Symmetric file: lower triangle stored, mirrored on load; n from the size line (node 4 has no entries).
  auto sym = dir.write("w.mtx", mtx("real symmetric", "4 4 4\n1 1 0.5\n2 1 0.5\n2 2 0.25\n3 2 0.75\n"));
  expect_weights(load_weight_matrix(sym), 4, 6,
                 {{0, 1, 0.5}, {1, 0, 0.5}, {1, 2, 0.75}, {2, 1, 0.75}, {3, 3, 0.0}});
  auto general = dir.write("g.mtx", mtx("real general", "2 2 2\n1 2 0.3\n2 2 1\n"));
  expect_weights(load_weight_matrix(general), 2, 2, {{0, 1, 0.3}, {1, 0, 0.0}});
  auto pattern = dir.write("p.mtx", mtx("pattern general", "2 2 1\n1 2\n"));
  expect_invalid([&] { load_weight_matrix(pattern); }, {pattern, "pattern"});
}

TEST(GraphIo, WriteFailsCleanlyInMissingDirectory) {
  ScratchDir dir;
  const std::string path = (dir / "no" / "such" / "g.txt").string();
  EXPECT_ANY_THROW(write_edge_list(ring_graph(4), path));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace netdp
