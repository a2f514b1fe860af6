// The four switches that give the reference figure code's conventions (docs/math.md §12 items 57-60,
// docs/outputs.md §1.5): gossip-er-bound (Theorem 6.6 on a given graph), gossip-sim --clip-start, the graph
// spec key order=insertion of file:PATH,lcc=1, and --diagonal local of the loss matrices. Expected values are
// hand calculations on tiny graphs and the closed forms of docs/math.md §6.1, §5.3 and §6.4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "netdp/core/graph_io.hpp"
#include "netdp/core/graph_spec.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

// ---- lcc=1,order=insertion (item 59) ----

// Component {9, 4, 6, 2} (path 9-4-6-2) and {7, 8}; first appearance 9, 4, 6, 7, 8, 2.
constexpr const char* kTwoComponents = "9 4\n4 6\n7 8\n6 2\n";

std::vector<std::pair<node_t, node_t>> edge_pairs(const Graph& g) {
  std::vector<std::pair<node_t, node_t>> edges;
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u))
      if (u < v) edges.emplace_back(u, v);
  return edges;
}

using Edges = std::vector<std::pair<node_t, node_t>>;

TEST(ReferenceConventions, LccSortedNumbersByFileIdInsertionByFirstAppearance) {
  ScratchDir dir;
  const std::string path = dir.write("two.edges", kTwoComponents);
  // sorted: 2, 4, 6, 9 -> 0, 1, 2, 3, so 9-4-6-2 is 3-1-2-0.
  const Graph sorted = make_graph("file:" + path + ",lcc=1");
  EXPECT_EQ(sorted.n, 4);
  EXPECT_EQ(edge_pairs(sorted), (Edges{{0, 2}, {1, 2}, {1, 3}}));
  EXPECT_EQ(edge_pairs(make_graph("file:" + path + ",lcc=1,order=sorted")), edge_pairs(sorted));
  // insertion: 9, 4, 6, 2 -> 0, 1, 2, 3, so the path is 0-1-2-3.
  const Graph insertion = make_graph("file:" + path + ",lcc=1,order=insertion");
  EXPECT_EQ(insertion.n, 4);
  EXPECT_EQ(edge_pairs(insertion), (Edges{{0, 1}, {1, 2}, {2, 3}}));
  // Without lcc: every id that appears, by first appearance (9 4 6 7 8 2 -> 0..5), as networkx's graph.
  const Graph all = make_graph("file:" + path + ",order=insertion");
  EXPECT_EQ(all.n, 6);
  EXPECT_EQ(edge_pairs(all), (Edges{{0, 1}, {1, 2}, {2, 5}, {3, 4}}));
  // Matrix Market entries in file order (1-based 10 5, 5 7, 8 9, 7 3 are the same graph).
  const std::string mtx = dir.write(
      "two.mtx", "%%MatrixMarket matrix coordinate pattern general\n10 10 4\n10 5\n5 7\n8 9\n7 3\n");
  EXPECT_EQ(edge_pairs(make_graph("file:" + mtx + ",lcc=1,order=insertion")), edge_pairs(insertion));
  expect_invalid([&] { make_graph("file:" + path + ",lcc=1,order=random"); }, "order=random");
}

TEST(ReferenceConventions, LccInsertionOrderThroughTheCommandLine) {
  ScratchDir dir;
  const std::string path = dir.write("two.edges", kTwoComponents);
  auto out = dir / "g";
  ASSERT_TRUE(run_cli_into("graph --graph 'file:" + path + ",lcc=1,order=insertion'", out, {"edges.txt"}));
  EXPECT_EQ(read_text((out / "edges.txt").string()), "# 4 3\n0 1\n1 2\n2 3\n");
  auto r = run_cli("graph --graph 'file:" + path + ",lcc=1,order=first' --out " + (dir / "bad").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("order=first"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

// ---- positions.csv of rgg graphs (the Euclidean distances of Fig. C.3) ----

TEST(ReferenceConventions, GraphWritesTheRggPositionsItsEdgesComeFrom) {
  ScratchDir dir;
  auto out = dir / "rgg";
  ASSERT_TRUE(run_cli_into("graph --graph rgg:n=40,r=0.3,seed=2", out, {"edges.txt", "positions.csv"}));
  const auto cells = read_csv_cells(out / "positions.csv");
  ASSERT_EQ(cells.size(), 41u);
  EXPECT_EQ(cells[0], (std::vector<std::string>{"node", "x", "y"}));
  std::vector<double> x(40), y(40);
  for (std::size_t v = 0; v < 40; ++v) {
    EXPECT_EQ(cells[v + 1][0], std::to_string(v));
    x[v] = std::strtod(cells[v + 1][1].c_str(), nullptr);
    y[v] = std::strtod(cells[v + 1][2].c_str(), nullptr);
    EXPECT_TRUE(x[v] >= 0 && x[v] < 1 && y[v] >= 0 && y[v] < 1) << v;
  }
  // The edges are exactly the pairs closer than r (docs/graphs.md): all pairs, from the written positions
  // (the generator only compares pairs in neighbouring cells).
  Edges expected;
  for (node_t u = 0; u < 40; ++u)
    for (node_t v = u + 1; v < 40; ++v)
      if ((x[u] - x[v]) * (x[u] - x[v]) + (y[u] - y[v]) * (y[u] - y[v]) < 0.3 * 0.3)
        expected.emplace_back(u, v);
  EXPECT_EQ(edge_pairs(load_edge_list((out / "edges.txt").string())), expected);
  // Families without positions write none.
  ASSERT_TRUE(run_cli_into("graph --graph ring:n=5", dir / "ring", {"edges.txt"}));
  EXPECT_FALSE(fs::exists(dir / "ring/positions.csv"));
}

// ---- --diagonal local (item 60) ----

void expect_diagonal(const NpyArray& local, const NpyArray& zero, node_t first_source, double value) {
  ASSERT_EQ(local.shape, zero.shape);
  const auto rows = local.shape[0], n = local.shape[1];
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t v = 0; v < n; ++v) {
      const std::size_t k = static_cast<std::size_t>(i * n + v);
      if (v == first_source + i) {
        EXPECT_EQ(zero.values[k], 0.0);
        EXPECT_DOUBLE_EQ(local.values[k], value) << "(" << first_source + i << ", " << v << ")";
      } else {
        EXPECT_EQ(local.values[k], zero.values[k]) << "off the diagonal nothing changes";
      }
    }
}

TEST(ReferenceConventions, DiagonalLocalWritesTheLdpLevel) {
  ScratchDir dir;
  // gossip-loss: alpha Delta^2 / (2 sigma^2) = 3 * 4 / (2 * 0.25) = 24 (docs/math.md §6.1).
  const std::string gossip = "gossip-loss --graph ring:n=6 --steps 3 --alpha 3 --sigma 0.5 --sensitivity 2";
  ASSERT_TRUE(run_cli_into(gossip, dir / "g0", {"loss.npy"}));
  ASSERT_TRUE(run_cli_into(gossip + " --diagonal local", dir / "g1", {"loss.npy"}));
  expect_diagonal(read_npy((dir / "g1/loss.npy").string()), read_npy((dir / "g0/loss.npy").string()), 0,
                  24.0);
  // The summaries leave u = v out either way.
  EXPECT_EQ(read_json(dir / "g1/summary.json")["mean_loss"], read_json(dir / "g0/summary.json")["mean_loss"]);
  EXPECT_EQ(read_json(dir / "g1/manifest.json")["parameters"]["diagonal"], "local");
  // One source's row: the entry (2, 2).
  ASSERT_TRUE(run_cli_into(gossip + " --source 2", dir / "s0", {"loss.npy"}));
  ASSERT_TRUE(run_cli_into(gossip + " --source 2 --diagonal local", dir / "s1", {"loss.npy"}));
  expect_diagonal(read_npy((dir / "s1/loss.npy").string()), read_npy((dir / "s0/loss.npy").string()), 2,
                  24.0);

  // walk-loss: the clipping level alpha / (2 sigma^2) = 4 / (2 * 4) = 0.5 (docs/math.md §5.3).
  const std::string walk =
      "walk-loss --graph hypercube:dim=3 --steps 40 --alpha 4 --noise-multiplier 2 --clip";
  ASSERT_TRUE(run_cli_into(walk, dir / "w0", {"loss.npy"}));
  ASSERT_TRUE(run_cli_into(walk + " --diagonal local", dir / "w1", {"loss.npy"}));
  expect_diagonal(read_npy((dir / "w1/loss.npy").string()), read_npy((dir / "w0/loss.npy").string()), 0, 0.5);

  auto r = run_cli(gossip + " --diagonal ldp --out " + (dir / "bad").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("diagonal"), std::string::npos) << r.err;
}

// ---- gossip-er-bound (item 57) ----

TEST(ReferenceConventions, ErBoundOnAGivenGraph) {
  ScratchDir dir;
  // Ring of 20 (every d_v = 2), T = 1, alpha = 2, sigma = Delta = 1: LDP level 1. Theorem 6.6: neighbours 1,
  // others 2 * 1 * T * d_v / (n - d_v) = 4/18; the reference code's variant: d_v + 2 = 4, min(8/16, 1) = 1/2.
  const std::string base = "gossip-er-bound --graph ring:n=20 --steps 1 --q 0.1";
  ASSERT_TRUE(
      run_cli_into(base, dir / "t", {"loss.npy", "by_distance.csv", "per_observer.csv", "summary.json"}));
  // Theorem 6.6 rests on Theorem 6.1's sum, which is not an upper bound (docs/math.md §6.9): summary.json
  // says so.
  const auto warnings = read_json(dir / "t/summary.json")["warnings"];
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].get<std::string>().find("is built on Theorem 6.1's sum"), std::string::npos);
  const NpyArray theorem = read_npy((dir / "t/loss.npy").string());
  ASSERT_EQ(theorem.shape, (std::vector<std::int64_t>{20, 20}));
  for (node_t u = 0; u < 20; ++u)
    for (node_t v = 0; v < 20; ++v) {
      const int hop = std::min((u - v + 20) % 20, (v - u + 20) % 20);
      const double expected = hop == 0 ? 0.0 : hop == 1 ? 1.0 : 4.0 / 18.0;
      EXPECT_DOUBLE_EQ(theorem.values[std::size_t(u) * 20 + v], expected) << u << " -> " << v;
    }
  const auto summary = read_json(dir / "t/summary.json");
  EXPECT_DOUBLE_EQ(summary["mean_loss"].get<double>(), (2.0 + 17.0 * 4.0 / 18.0) / 19.0);
  EXPECT_DOUBLE_EQ(summary["edge_probability"].get<double>(), 0.1);
  EXPECT_TRUE(summary["valid"].get<bool>());  // sigma^2 = 1 >= Delta^2 alpha (alpha - 1) / 2 = 1

  ASSERT_TRUE(run_cli_into(base + " --variant reference-code --source 3 --diagonal local", dir / "r"));
  const NpyArray reference = read_npy((dir / "r/loss.npy").string());
  ASSERT_EQ(reference.shape, (std::vector<std::int64_t>{1, 20}));
  for (node_t v = 0; v < 20; ++v) {
    const double expected = v == 3 ? 1.0 : (v == 2 || v == 4) ? 1.0 : 0.5;
    EXPECT_DOUBLE_EQ(reference.values[std::size_t(v)], expected) << v;
  }

  // q from the graph's density 2m / (n (n - 1)) = 40/380, or from c: q = c ln(n) / n.
  ASSERT_TRUE(run_cli_into("gossip-er-bound --graph ring:n=20 --steps 1 --no-matrix", dir / "d"));
  EXPECT_DOUBLE_EQ(read_json(dir / "d/summary.json")["edge_probability"].get<double>(), 40.0 / 380.0);
  ASSERT_TRUE(run_cli_into("gossip-er-bound --graph ring:n=20 --steps 1 --er-c 2 --no-matrix", dir / "c"));
  EXPECT_DOUBLE_EQ(read_json(dir / "c/summary.json")["edge_probability"].get<double>(),
                   2 * std::log(20.0) / 20);

  const std::vector<std::pair<std::string, std::string>> bad{{" --q 0.1 --er-c 1", "er-c"},
                                                             {" --q 1.5", "q"},
                                                             {" --er-c 100", "er-c"},
                                                             {" --source 20", "source"},
                                                             {" --alpha 1", "alpha"}};
  int i = 0;
  for (const auto& [args, name] : bad) {
    auto out = dir / ("bad" + std::to_string(i++));
    auto r = run_cli("gossip-er-bound --graph ring:n=20 --steps 1" + args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
}

// ---- gossip-sim --clip-start (item 58) ----

std::vector<double> mse_row(const fs::path& file, std::size_t row) {
  const auto cells = read_csv_cells(file);
  std::vector<double> values;
  for (const auto& cell : cells.at(row + 1)) values.push_back(std::strtod(cell.c_str(), nullptr));
  return values;
}

TEST(ReferenceConventions, ClipStartClipsTheNoisyValuesToTheUnitInterval) {
  ScratchDir dir;
  // x = 0 and sigma = 1e6: every clipped x_v^0 is 0 or 1 (|sigma eta| < 1 has probability ~1e-6), so at t = 0
  // the error to xbar = 0 is k/n (k ones) and the consensus error is k/n - (k/n)^2.
  const std::string base = "gossip-sim --graph ring:n=16 --steps 2 --sigma 1e6 --init zero --seed 5";
  ASSERT_TRUE(run_cli_into(base + " --clip-start --device auto", dir / "c", {"mse.csv"}));
  const auto t0 = mse_row(dir / "c/mse.csv", 0);  // t, mean, stderr, noisy_mean, noisy_stderr, bound
  const double k = t0[1] * 16;
  EXPECT_NEAR(k, std::round(k), 1e-9);
  EXPECT_GT(k, 0.5);
  EXPECT_LT(k, 15.5);
  EXPECT_NEAR(t0[3], t0[1] - t0[1] * t0[1], 1e-12);
  const auto summary = read_json(dir / "c/summary.json");
  EXPECT_NE(summary["device"].get<std::string>().find("cpu"), std::string::npos);
  EXPECT_EQ(read_json(dir / "c/manifest.json")["parameters"]["clip_start"], true);
  // Unclipped, the same draws give an error of order sigma^2.
  ASSERT_TRUE(run_cli_into(base, dir / "u", {"mse.csv"}));
  EXPECT_GT(mse_row(dir / "u/mse.csv", 0)[1], 1e10);
  // Values already in [0, 1] without noise are left alone.
  const std::string plain = "gossip-sim --graph ring:n=16 --steps 3 --sigma 0 --init uniform --seed 2";
  ASSERT_TRUE(run_cli_into(plain, dir / "p0", {"mse.csv"}));
  ASSERT_TRUE(run_cli_into(plain + " --clip-start", dir / "p1", {"mse.csv"}));
  EXPECT_EQ(read_text((dir / "p0/mse.csv").string()), read_text((dir / "p1/mse.csv").string()));

  auto r = run_cli(base + " --clip-start --device cuda --out " + (dir / "bad").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("clip-start"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace netdp
