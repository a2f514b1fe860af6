// `netdp attack gossip` and `netdp attack dgd` end to end: the contract's files and keys (summary.json's
// rank, reconstructible, method and certificate; attackers.csv and reconstructible.npy with attackers all;
// the D-GD files on the hand-worked path of test_attack_dgd.cpp and the least-squares data inversion), and
// bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp

// docs/math.md §7.2: the graph of Fig. 4.1 as an edge list.
std::string figure_4_1(const ScratchDir& dir) {
  return dir.write("fig41.edges",
                   "0 2\n1 2\n2 3\n2 4\n1 5\n1 7\n1 8\n5 9\n9 10\n9 11\n11 6\n7 8\n7 9\n7 11\n");
}

TEST(CliAttackGossip, FigureFourOneContract) {
  ScratchDir dir;
  const auto out = dir / "fig41";
  ASSERT_TRUE(run_cli_into("attack gossip --graph file:" + figure_4_1(dir) + " --attackers 0,1 --steps 3",
                           out, {"summary.json", "manifest.json", "nodes.csv", "relations.csv"}));
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["rank"], 11);
  EXPECT_EQ(s["reconstructible"], nlohmann::json({0, 1, 2, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(s["method"], "exact");
  EXPECT_EQ(s["certificate"]["agree"], true);
  EXPECT_EQ(s["certificate"]["primes"].size(), 2u);
  EXPECT_EQ(s["certificate"]["primes"][0]["rank"], 11);
  EXPECT_EQ(s["indistinguishable"], nlohmann::json({{3, 4}}));
  EXPECT_EQ(s["float"]["agree"], true);
  EXPECT_LT(s["values"]["max_error"].get<double>(), 1e-9);
  const auto nodes = read_csv_cells(out / "nodes.csv");
  ASSERT_EQ(nodes.size(), 13u);
  EXPECT_EQ(nodes[0][3], "reconstructible");
  EXPECT_EQ(nodes[4][3], "0");  // node 3
  EXPECT_EQ(nodes[3][3], "1");  // node 2
  const auto relations = read_csv_cells(out / "relations.csv");
  ASSERT_EQ(relations.size(), 3u);  // header, then relation 0 over nodes 3 and 4
  EXPECT_EQ(relations[1][1], "3");
  EXPECT_EQ(relations[2][1], "4");
}

TEST(CliAttackGossip, EveryAttackerContract) {
  ScratchDir dir;
  const auto out = dir / "all";
  ASSERT_TRUE(run_cli_into("attack gossip --graph file:" + figure_4_1(dir) +
                               " --attackers all --steps 3 --centralities --threads 2",
                           out,
                           {"summary.json", "attackers.csv", "reconstructible.npy", "centralities.csv"}));
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["attackers"], "all");
  EXPECT_EQ(s["method"], "exact");
  const auto rows = read_csv_cells(out / "attackers.csv");
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows[0][0], "attacker");
  EXPECT_EQ(rows[0][1], "rank");
  EXPECT_EQ(rows[0][2], "reconstructed");
  // int8 [attacker, node]; each attacker reconstructs itself, and the row sums are attackers.csv's counts.
  std::ifstream npy(out / "reconstructible.npy", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(npy)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 144u);
  EXPECT_NE(bytes.find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (12, 12)"), std::string::npos);
  const std::string data = bytes.substr(bytes.size() - 144);
  for (int a = 0; a < 12; ++a) {
    EXPECT_EQ(data[static_cast<std::size_t>(a * 12 + a)], 1) << a;
    const int count = static_cast<int>(std::count(data.begin() + a * 12, data.begin() + a * 12 + 12, 1));
    EXPECT_EQ(std::to_string(count), rows[static_cast<std::size_t>(a + 1)][2]) << a;
  }
  // Katz beside the other centralities (values checked in tests/unit/test_attack_centrality.cpp): x = sum_k
  // alpha^k A^k 1 >= 1 + alpha d_a > 1 for every node with an edge (every term is non-negative).
  const auto centralities = read_csv_cells(out / "centralities.csv");
  ASSERT_EQ(centralities.size(), 13u);
  ASSERT_EQ(centralities[0][4], "katz");
  for (std::size_t a = 1; a < centralities.size(); ++a) {
    EXPECT_GT(std::stod(centralities[a][4]), 1.0) << a;
    EXPECT_TRUE(std::isfinite(std::stod(centralities[a][4]))) << a;
  }
  EXPECT_TRUE(s["centralities"].contains("spearman_katz"));
}

TEST(CliAttackGossip, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  const std::string fig = "--graph file:" + figure_4_1(dir);
  const std::string two = dir.write("two.edges", "0 1\n2 3\n");
  for (const std::string& args :
       {"attack gossip " + fig + " --attackers 12 --steps 3",
        "attack gossip " + fig + " --attackers 0 --steps 0",
        "attack gossip " + fig + " --attackers 0 --steps -2",
        "attack gossip " + fig + " --attackers random:13 --steps 3",
        "attack gossip " + fig + " --attackers 1,1 --steps 3",
        "attack gossip --graph file:" + two + " --attackers all --steps 2 --centralities",
        "attack gossip " + fig + " --attackers 0 --steps 2 --centralities"}) {
    expect_refused(args, dir / "bad");
  }
}

// Path 0-1-2, attacker 0, T = 2, Assumption 4.7 without noise: both targets are determined (node 1 after one
// step, node 2 after two; test_attack_dgd.cpp works the numbers by hand) and recovered to rounding.
TEST(CliAttackDgd, PathContract) {
  ScratchDir dir;
  const auto out = dir / "dgd";
  const std::string path3 = dir.write("path3.edges", "0 1\n1 2\n");
  ASSERT_TRUE(
      run_cli_into("attack dgd --graph file:" + path3 + " --attackers 0 --steps 2 --dim 3", out,
                   {"summary.json", "manifest.json", "nodes.csv", "iterations.csv", "estimates.csv"}));
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["model"], "attack dgd");
  EXPECT_EQ(s["rank"], 2);
  EXPECT_EQ(s["rows"], 2);
  EXPECT_EQ(s["identifiable"], nlohmann::json({1, 2}));
  EXPECT_EQ(s["observed"], nlohmann::json({1}));
  EXPECT_EQ(s["certificate"]["agree"], true);
  EXPECT_LT(s["error"]["ols"].get<double>(), 1e-12);
  EXPECT_LT(s["error"]["gls"].get<double>(), 1e-12);
  EXPECT_TRUE(s["error"]["ols_data"].is_null());
  const auto nodes = read_csv_cells(out / "nodes.csv");
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0][3], "identifiable_after");
  EXPECT_EQ(nodes[1][1], "attacker");
  EXPECT_EQ(nodes[2][1], "observed");
  EXPECT_EQ(nodes[2][3], "1");
  EXPECT_EQ(nodes[3][2], "2");  // distance
  EXPECT_EQ(nodes[3][3], "2");
  const auto steps = read_csv_cells(out / "iterations.csv");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1][2], "1");
  EXPECT_EQ(steps[2][2], "2");
  const auto estimates = read_csv_cells(out / "estimates.csv");
  ASSERT_EQ(estimates.size(), 7u);  // 2 targets x 3 coordinates
  for (std::size_t i = 1; i < estimates.size(); ++i)
    EXPECT_NEAR(std::stod(estimates[i][3]), std::stod(estimates[i][2]), 1e-12) << i;
}

// Least squares with an intercept, one example per node, from the optimum: the gradient's direction is
// (x, 1), so x = g_w / g_b. The gradients drift by O(eta) per step, so the data error shrinks like eta.
TEST(CliAttackDgd, LeastSquaresDataInversionImprovesWithSmallerSteps) {
  ScratchDir dir;
  const std::string path6 = dir.write("path6.edges", "0 1\n1 2\n2 3\n3 4\n4 5\n");
  const std::string data = dir.write("data.csv",
                                     "x1,x2,y\n0.5,-1.0,0.3\n1.5,0.2,-0.7\n-0.4,0.9,1.1\n"
                                     "0.8,0.8,0.2\n-1.2,0.3,0.5\n0.1,-0.6,-0.9\n");
  double errors[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const auto out = dir / ("ls" + std::to_string(i));
    ASSERT_TRUE(run_cli_into("attack dgd --graph file:" + path6 + " --objective least-squares --data " +
                                 data + " --steps 5 --step-size " + (i == 0 ? "0.01" : "0.0001"),
                             out, {"summary.json"}));
    const auto s = read_json(out / "summary.json");
    EXPECT_EQ(s["dim"], 3);
    EXPECT_EQ(s["identifiable"].size(), 5u);
    errors[i] = s["error"]["ols_data"].get<double>();
  }
  EXPECT_LT(errors[1], 0.05 * errors[0]);  // about linear in eta: 100x smaller steps, ~90x smaller error
  EXPECT_LT(errors[1], 1e-2);
}

TEST(CliAttackDgd, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  const std::string path = "attack dgd --graph file:" + dir.write("path3.edges", "0 1\n1 2\n");
  const std::string csv = dir.write("bad.csv", "1,2\n3,x\n4,5\n");
  for (const std::string& args :
       {path + " --attackers all --steps 2", path + " --attackers 0 --steps 0",
        path + " --attackers 0 --steps 2 --gossip-rounds 0", path + " --attackers 5 --steps 2",
        path + " --attackers 0,1,2 --steps 2", path + " --steps 2 --data " + csv,
        path + " --steps 2 --objective least-squares --data " + csv,
        path + " --steps 2 --weights file:" + csv, path + " --steps 2 --init far"}) {
    expect_refused(args, dir / "bad");
  }
}

}  // namespace
}  // namespace netdp
