// The netdp command line end to end: output files of gossip-loss and graph, and every bad input of the
// foundation issue: one line on stderr, exit code 2, no directory that looks complete (no manifest.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "support/cli_runs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

TEST(Cli, GossipLossWritesEveryOutput) {
  const CliRun run("gossip-loss --graph hypercube:dim=6 --steps 5 --sigma 2 --alpha 3");
  ASSERT_TRUE(run.ok);

  auto loss = read_npy((run.out / "loss.npy").string());
  ASSERT_EQ(loss.shape, (std::vector<std::int64_t>{64, 64}));
  Graph g = hypercube_graph(6);
  GossipLossParams p;
  p.steps = 5;
  p.sigma = 2;
  p.alpha = 3;
  EXPECT_EQ(loss.values, gossip_loss_matrix(g, gossip_matrix(g, Weighting::metropolis), p));

  auto summary = run.summary();
  EXPECT_EQ(summary["n"], 64);
  EXPECT_EQ(summary["edges"], 192);
  EXPECT_EQ(summary["steps"], 5);
  EXPECT_DOUBLE_EQ(summary["ldp_loss"].get<double>(), 3.0 / 8.0);
  EXPECT_NEAR(summary["spectral_gap"].get<double>(), 2.0 / 7.0, 1e-12);  // metropolis hypercube: 2/(d+1)
  for (const char* key : {"alpha", "sigma", "device", "propagation", "seconds", "tiles"})
    EXPECT_TRUE(summary.contains(key)) << key;

  auto manifest = read_json(run.out / "manifest.json");
  EXPECT_EQ(manifest["command"], "gossip-loss");
  EXPECT_EQ(manifest["parameters"]["graph"], "hypercube:dim=6");
  EXPECT_TRUE(manifest.contains("git_commit"));

  // by_distance.csv: one row per hop distance 1..6 with C(6, d) * 64 ordered pairs.
  auto csv = read_text((run.out / "by_distance.csv").string());
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "distance,pairs,mean,min,max");
  EXPECT_NE(csv.find("\n1,384,"), std::string::npos);
  EXPECT_NE(csv.find("\n6,64,"), std::string::npos);
  // per_observer.csv: eps_bar_v = (1/n) sum_{u != v} f(u, v) for each of the 64 observers.
  auto per_observer = read_text((run.out / "per_observer.csv").string());
  EXPECT_EQ(std::count(per_observer.begin(), per_observer.end(), '\n'), 65);
  double column = 0;
  for (int u = 1; u < 64; ++u) column += loss.values[u * 64 + 0];
  auto first_row = per_observer.substr(per_observer.find('\n') + 1);
  EXPECT_NEAR(std::stod(first_row.substr(first_row.find(',') + 1)), column / 64, 1e-12);
}

TEST(Cli, GossipLossSourceRowAndAutoSteps) {
  const CliRun run(
      "gossip-loss --graph hypercube:dim=11 --source 0 --steps auto --t-start 1 --accounting theorem "
      "--cap none");
  ASSERT_TRUE(run.ok);
  auto loss = read_npy((run.out / "loss.npy").string());
  EXPECT_EQ(loss.shape, (std::vector<std::int64_t>{1, 2048}));
  auto summary = run.summary();
  EXPECT_EQ(summary["steps"], 19);  // docs/math.md §Z item 1
  EXPECT_FALSE(fs::exists(run.out / "per_observer.csv"));
  // Appendix Z item 2, reference code sum (t = 1..19), distance 1: 1.26.
  EXPECT_NEAR(summary["by_distance"][0]["mean"].get<double>(), 1.26, 0.006);
}

TEST(Cli, GraphCommandWritesEdgesAndStats) {
  ScratchDir dir;
  auto out = dir / "g";
  auto r = run_cli("graph --graph grid:rows=3,cols=4 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto stats = nlohmann::json::parse(read_text((out / "stats.json").string()));
  EXPECT_EQ(stats["n"], 12);
  EXPECT_EQ(stats["edges"], 17);  // 2 r c - r - c
  EXPECT_EQ(stats["diameter"], 5);
  EXPECT_EQ(stats["connected"], true);
  EXPECT_TRUE(fs::exists(out / "edges.txt"));
  EXPECT_TRUE(fs::exists(out / "manifest.json"));
  // The exported edge list loads back as the same graph.
  auto again =
      run_cli("graph --graph file:" + (out / "edges.txt").string() + " --out " + (dir / "g2").string());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(read_text((dir / "g2" / "stats.json").string()))["edges"], 17);
}

struct BadInput {
  const char* name;
  std::string args;     // after the --out option is appended
  const char* message;  // a fragment the error line must contain
};

TEST(Cli, BadInputFailsWithOneLineAndExitCode2) {
  ScratchDir dir;
  auto malformed = dir.write("malformed.txt", "0 1\n1 2\n2 x\n");
  auto negative_id = dir.write("negative.txt", "0 1\n-1 2\n");
  auto two_parts = dir.write("two.txt", "0 1\n1 2\n3 4\n");
  auto ring = dir.write("ring.txt", "0 1\n1 2\n2 0\n");
  auto negative_w = dir.write("neg_w.txt", "0 0 1.5\n0 1 -0.5\n1 0 -0.5\n1 1 1.5\n2 2 1\n0 2 0\n");
  auto not_stochastic =
      dir.write("w.txt", "0 0 0.5\n0 1 0.25\n1 0 0.25\n1 1 0.5\n1 2 0.25\n2 1 0.25\n2 2 0.5\n");
  const std::string base = "gossip-loss --steps 3 ";
  std::vector<BadInput> cases = {
      {"missing file", base + "--graph file:" + (dir / "absent.txt").string(), "absent.txt"},
      {"malformed file", base + "--graph file:" + malformed, ":3"},
      {"unknown family", base + "--graph moebius:n=5", "moebius"},
      {"unknown key", base + "--graph ring:m=5", "m"},
      {"id out of range", base + "--graph file:" + negative_id, "negative.txt"},
      {"negative weights", base + "--graph file:" + ring + " --weights file:" + negative_w, "negative"},
      {"W not stochastic", base + "--graph file:" + ring + " --weights file:" + not_stochastic, "sum"},
      {"sigma <= 0", base + "--graph ring:n=5 --sigma 0", "sigma"},
      {"alpha <= 1", base + "--graph ring:n=5 --alpha 1", "alpha"},
      {"steps < 1", "gossip-loss --steps 0 --graph ring:n=5", "steps"},
      {"steps not a number", "gossip-loss --steps many --graph ring:n=5", "steps"},
      {"auto steps on a disconnected graph", "gossip-loss --steps auto --graph file:" + two_parts,
       "connected"},
      {"source out of range", base + "--graph ring:n=5 --source 5", "source"},
      {"bad device", base + "--graph ring:n=5 --device tpu", "device"},
      {"unknown option", base + "--graph ring:n=5 --colour blue", "colour"},
  };
  if (cuda_device_count() == 0) {
    cases.push_back(
        {"cuda without a device", base + "--graph ring:n=5 --accounting theorem --device cuda", "cuda"});
    cases.push_back({"exact on cuda without a device", base + "--graph ring:n=5 --device cuda", "cuda"});
  }
  cases.push_back(
      {"cap with exact", base + "--graph ring:n=5 --cap none", "--cap is only used by --accounting theorem"});
  cases.push_back({"delta with theorem", base + "--graph ring:n=5 --accounting theorem --delta 1e-5",
                   "--delta is only used by --accounting exact"});
  cases.push_back({"delta out of range", base + "--graph ring:n=5 --delta 1", "delta"});
  for (const auto& c : cases) {
    auto out = dir / (std::string("out-") + std::to_string(&c - cases.data()));
    auto r = run_cli(c.args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << c.name;
  }
}

TEST(Cli, RerunOverAnOldResultKeepsItUntilTheNewOneIsComplete) {
  ScratchDir dir;
  auto out = dir / "run";
  ASSERT_EQ(run_cli("gossip-loss --graph ring:n=8 --steps 2 --out " + out.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "manifest.json"));
  const std::string old_loss = read_text((out / "loss.npy").string());
  // Refused before any work (W and the row norms, 576 bytes, exceed 107 bytes): the old result stays whole.
  auto refused = run_cli("gossip-loss --graph ring:n=8 --steps 2 --source 0 --memory-limit 0.0000001 --out " +
                         out.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("576 bytes held at once"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(out / "manifest.json"));
  EXPECT_EQ(read_text((out / "loss.npy").string()), old_loss);
  // Failing once started (1073 bytes hold W and the norms but no tile): the run wrote into its staging
  // directory, so the old result, manifest included, is still whole (issue 29; docs/outputs.md §1.1).
  auto failed = run_cli("gossip-loss --graph ring:n=8 --steps 2 --source 0 --memory-limit 0.000001 --out " +
                        out.string());
  EXPECT_EQ(failed.exit_code, 2) << failed.err;
  EXPECT_TRUE(fs::exists(out / "manifest.json"));
  EXPECT_EQ(read_text((out / "loss.npy").string()), old_loss);
}

// A file graph cut to its largest component writes node_map.csv (index, the file's id) beside the results, so
// every per-node file maps back to the file's ids; an unrenumbered graph writes none (docs/graphs.md).
TEST(CliNodeMap, RenumberedFileGraphsWriteTheirIds) {
  ScratchDir dir;
  const std::string path = dir.write("g.txt", "2 3\n9 7\n7 5\n5 9\n");  // component {5, 7, 9} is the largest
  const auto out = dir / "lcc";
  ASSERT_TRUE(run_cli_into("gossip-loss --graph file:" + path + ",lcc=1 --steps 2 --quiet", out,
                           {"node_map.csv", "loss.npy", "manifest.json"}));
  EXPECT_EQ(read_text((out / "node_map.csv").string()), "index,file_id\n0,5\n1,7\n2,9\n");
  const auto manifest = read_json(out / "manifest.json");
  const auto files = manifest["files"];
  EXPECT_NE(std::find(files.begin(), files.end(), "node_map.csv"), files.end());
  const auto insertion = dir / "insertion";
  ASSERT_TRUE(run_cli_into("graph --graph file:" + path + ",order=insertion", insertion, {"node_map.csv"}));
  EXPECT_EQ(read_text((insertion / "node_map.csv").string()), "index,file_id\n0,2\n1,3\n2,9\n3,7\n4,5\n");
  const auto plain = dir / "plain";
  ASSERT_TRUE(run_cli_into("gossip-loss --graph ring:n=5 --steps 2 --quiet", plain, {"loss.npy"}));
  EXPECT_FALSE(std::filesystem::exists(plain / "node_map.csv"));
}

}  // namespace
}  // namespace netdp
