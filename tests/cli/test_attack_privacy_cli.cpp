// `netdp attack gossip --sigma` end to end (docs/attack.md "Privacy beside reconstruction"): every attacker
// against `gossip-loss --accounting exact --t-start 0` (the same views, here with the same ranks), the LDP
// level on exactly the reconstructible pairs, the by-distance summary, the hand-worked kite of
// tests/unit/test_attack_privacy.cpp, and bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp

// The int8 [attacker, node] matrix of reconstructible.npy (its data are the last n^2 bytes).
std::string int8_matrix(const std::filesystem::path& path, std::size_t n) {
  std::ifstream npy(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(npy)), std::istreambuf_iterator<char>());
  return bytes.substr(bytes.size() - n * n);
}

TEST(CliAttackPrivacy, EveryAttackerIsTheExactGossipView) {
  ScratchDir dir;
  const std::string graph = " --graph er:n=40,p=0.1,seed=4 --steps 3 --sigma 0.8 --delta 1e-5";
  ASSERT_TRUE(run_cli_into("attack gossip --attackers all" + graph, dir / "attack",
                           {"summary.json", "mu.npy", "epsilon.npy", "privacy_by_distance.csv"}));
  ASSERT_TRUE(run_cli_into("gossip-loss --accounting exact --t-start 0" + graph, dir / "view", {"mu.npy"}));
  const NpyArray attack = read_npy((dir / "attack" / "mu.npy").string());
  const NpyArray view = read_npy((dir / "view" / "mu.npy").string());  // [source, observer]
  const std::size_t n = 40;
  ASSERT_EQ(attack.shape, (std::vector<std::int64_t>{40, 40}));
  const std::string known = int8_matrix(dir / "attack" / "reconstructible.npy", n);
  const double ldp = 1 / 0.8;
  int at_ldp = 0, below = 0;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t u = 0; u < n; ++u) {
      const double mu = attack.values[a * n + u];
      if (known[a * n + u] == 1) {
        EXPECT_EQ(mu, ldp);
        ++at_ldp;
        if (u != a) {
          EXPECT_NEAR(view.values[u * n + a], ldp, 1e-9);
        }
      } else {
        EXPECT_LT(mu, ldp);
        EXPECT_NEAR(mu, view.values[u * n + a], 1e-12) << a << ' ' << u;
        ++below;
      }
    }
  EXPECT_GT(at_ldp, 40);
  EXPECT_GT(below, 0);
  const auto s = read_json(dir / "attack" / "summary.json");
  EXPECT_EQ(s["privacy"]["ldp_mu"].get<double>(), ldp);
  EXPECT_EQ(s["privacy"]["clamped"], 0);
  const auto rows = read_csv_cells(dir / "attack" / "privacy_by_distance.csv");
  EXPECT_EQ(rows[0][0], "distance");
  EXPECT_EQ(rows[1][0], "0");  // the attackers themselves
  EXPECT_EQ(rows[1][1], "40");
  EXPECT_EQ(rows[1][2], "40");
  long pairs = 0, reconstructible = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    pairs += std::stol(rows[i][1]);
    reconstructible += std::stol(rows[i][2]);
  }
  EXPECT_EQ(pairs, 40 * 40);
  EXPECT_EQ(reconstructible, at_ldp);
}

// The kite 0-1, 1-2, 1-3, 3-4, attacker 0, T = 3: nodes 0 and 1 at the LDP level, 2, 3, 4 at ||P e_u||^2 =
// 2/3 (tests/unit/test_attack_privacy.cpp).
TEST(CliAttackPrivacy, KiteSet) {
  ScratchDir dir;
  const std::string edges = dir.write("kite.edges", "0 1\n1 2\n1 3\n3 4\n");
  const auto out = dir / "kite";
  ASSERT_TRUE(run_cli_into("attack gossip --graph file:" + edges + " --attackers 0 --steps 3 --sigma 2", out,
                           {"summary.json", "nodes.csv", "privacy.csv", "privacy_by_distance.csv"}));
  const auto rows = read_csv_cells(out / "privacy.csv");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& row : rows) ASSERT_GE(row.size(), 5u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"node", "distance", "reconstructible", "projection", "mu", "epsilon"}));
  EXPECT_EQ(std::stod(rows[2][4]), 0.5);  // node 1
  EXPECT_EQ(rows[5][1], "3");             // node 4, three hops away
  EXPECT_NEAR(std::stod(rows[5][4]), 0.5 * std::sqrt(2.0 / 3.0), 1e-14);
  EXPECT_TRUE(rows[5].size() == 5 || rows[5][5].empty());  // no delta, no epsilon
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["privacy"]["by_distance"].size(), 4u);
}

TEST(CliAttackPrivacy, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  for (const std::string args : {
           "attack gossip --graph ring:n=8 --steps 2 --sigma 1 --method float",
           "attack gossip --graph ring:n=8 --steps 2 --sigma 1 --dynamic 0.2",
           "attack gossip --graph ring:n=8 --steps 2 --delta 1e-5",
           "attack gossip --graph ring:n=8 --steps 2 --sigma 0",
           "attack gossip --graph star:n=6 --steps 2 --sigma 1 --weights lazy-uniform",
       })
    expect_refused(args, dir / "bad");
}

}  // namespace
}  // namespace netdp
