// `netdp walk-sim` end to end: files, summary.json against the library, --no-accounting, --save-paths,
// --statistics visits, hop distances, and bad input (exit 2, one line, no manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "netdp/simulation/walk_sim.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

TEST(CliWalkSim, WritesFilesThatMatchTheLibrary) {
  ScratchDir dir;
  const auto out = dir / "sim";
  ASSERT_TRUE(
      run_cli_into("walk-sim --graph complete:n=20 --steps 600 --runs 4 --seed 5 --eps0 0.2 --delta 1e-6 "
                   "--quantiles 0.5,0.9 --threads 2",
                   out,
                   {"summary.json", "manifest.json", "by_distance.csv", "nodes.csv", "visit_counts.csv",
                    "return_times.csv", "hitting_times.csv", "utility.csv"}));
  EXPECT_EQ(first_line(read_text((out / "by_distance.csv").string())), "distance,pairs,mean,min,max");
  EXPECT_EQ(first_line(read_text((out / "return_times.csv").string())), "m,count,expected");

  WalkSimParams p = accounted_walk_params(600, 4, 5, 0.2, 1e-6);
  p.quantiles = {0.5, 0.9};
  const WalkSimResult lib = walk_sim(complete_walk(20), p);
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["network_loss"]["mean"].get<double>(), lib.network.mean());
  EXPECT_EQ(s["network_loss"]["min"].get<double>(), lib.network.min);
  EXPECT_EQ(s["network_loss"]["max"].get<double>(), lib.network.max);
  EXPECT_EQ(s["network_loss"]["quantiles"]["0.9"].get<double>(), lib.network_quantiles[1].second);
  EXPECT_EQ(s["local_loss"]["mean"].get<double>(), lib.local.mean());
  EXPECT_EQ(s["local_loss"]["min"].get<double>(), lib.local.min);
  EXPECT_EQ(s["local_loss"]["max"].get<double>(), lib.local.max);
  EXPECT_GT(s["steps_per_second"].get<double>(), 0);
  EXPECT_EQ(s["device"].get<std::string>().substr(0, 3), "cpu");
  EXPECT_EQ(s["walk"], "complete");
  EXPECT_EQ(s["return_time"]["count"].get<std::int64_t>(), lib.return_times.total);
  const auto m = read_json(out / "manifest.json");
  EXPECT_EQ(m["command"], "walk-sim");
  EXPECT_EQ(m["parameters"]["steps"], 600);
}

// --bookkeeping reference (docs/walk_sim.md "Receiver bookkeeping"): the reference code's receiver counts
// node 0 in first cycles and a stale receiver after self-transitions, so each pair's loss is at least the
// definition's (tests/unit/test_walk_sim_accounting.cpp); on K_10 with T = 100 n the mean is some 7% higher.
TEST(CliWalkSim, ReferenceBookkeepingRaisesTheNetworkLoss) {
  ScratchDir dir;
  const std::string base = "walk-sim --graph complete:n=10 --steps 1000 --runs 3 --device cpu --quiet";
  auto definition = run_cli(base + " --out " + (dir / "definition").string());
  ASSERT_EQ(definition.exit_code, 0) << definition.err;
  auto reference = run_cli(base + " --bookkeeping reference --out " + (dir / "reference").string());
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const auto d = read_json(dir / "definition" / "summary.json");
  const auto r = read_json(dir / "reference" / "summary.json");
  EXPECT_EQ(d["bookkeeping"], "definition") << "the default";
  EXPECT_EQ(r["bookkeeping"], "reference");
  EXPECT_EQ(read_json(dir / "reference" / "manifest.json")["parameters"]["bookkeeping"], "reference");
  EXPECT_GT(r["network_loss"]["mean"].get<double>(), d["network_loss"]["mean"].get<double>());
  EXPECT_GE(r["network_loss"]["max"].get<double>(), d["network_loss"]["max"].get<double>());
  EXPECT_EQ(r["local_loss"], d["local_loss"]) << "the LDP baseline does not depend on the bookkeeping";

  auto bogus = run_cli(base + " --bookkeeping bogus --out " + (dir / "bogus").string());
  EXPECT_EQ(bogus.exit_code, 2) << bogus.err;
  EXPECT_NE(bogus.err.find("--bookkeeping"), std::string::npos) << bogus.err;
  EXPECT_FALSE(fs::exists(dir / "bogus" / "manifest.json"));
}

TEST(CliWalkSim, PlainWalksAndSavedPaths) {
  ScratchDir dir;
  const auto out = dir / "plain";
  ASSERT_TRUE(
      run_cli_into("walk-sim --graph ring:n=6 --weights uniform --steps 50 --runs 3 --seed 2 --no-accounting "
                   "--save-paths --start stationary",
                   out));
  const auto s = read_json(out / "summary.json");
  EXPECT_TRUE(s["network_loss"].is_null());
  EXPECT_TRUE(s["local_loss"].is_null());
  EXPECT_FALSE(fs::exists(out / "by_distance.csv"));
  EXPECT_FALSE(fs::exists(out / "utility.csv"));
  // paths.csv holds exactly the library's walks.
  WalkSimParams p = plain_walk_params(50, 3, 2);
  p.start.kind = StartKind::stationary;
  const WalkModel model = make_walk_model("ring:n=6", "uniform");
  std::ostringstream expected;
  expected << "run,t,node\n";
  for (int run = 0; run < 3; ++run) {
    const auto path = sample_walk(model, p, run);
    for (std::size_t t = 0; t < path.size(); ++t) expected << run << ',' << t << ',' << path[t] << '\n';
  }
  EXPECT_EQ(read_text((out / "paths.csv").string()), expected.str());
}

// --statistics visits (docs/walk_sim.md "Visits only"): visits.csv alone, its totals those of the full run's
// nodes.csv (the same walks); refused with the accounting and with saved paths.
TEST(CliWalkSim, VisitsOnlyWritesTheVisitTotals) {
  ScratchDir dir;
  const std::string run =
      "walk-sim --graph er:n=30,p=0.2,seed=4 --weights metropolis --steps 400 --runs 6 "
      "--seed 9 --start uniform --no-accounting --device cpu";
  ASSERT_TRUE(run_cli_into(run + " --statistics visits", dir / "visits", {"visits.csv", "summary.json"}));
  ASSERT_TRUE(run_cli_into(run, dir / "full", {"nodes.csv"}));
  for (const char* absent : {"nodes.csv", "return_times.csv", "hitting_times.csv", "visit_counts.csv"})
    EXPECT_FALSE(fs::exists(dir / "visits" / absent)) << absent;
  const auto s = read_json(dir / "visits" / "summary.json");
  EXPECT_EQ(s["statistics"], "visits");
  EXPECT_EQ(s["engine"], "cpu");
  EXPECT_TRUE(s["return_time"].is_null());
  EXPECT_EQ(read_json(dir / "full" / "summary.json")["statistics"], "full");
  // Column 4 of visits.csv (visits_mean) against column 4 of nodes.csv (visits_mean), line by line.
  const auto column = [](const std::string& text, int index) {
    std::vector<std::string> values;
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string field;
      for (int k = 0; k <= index; ++k) std::getline(fields, field, ',');
      values.push_back(field);
    }
    return values;
  };
  const auto visits = column(read_text((dir / "visits" / "visits.csv").string()), 4);
  EXPECT_EQ(visits.size(), 30u);
  EXPECT_EQ(visits, column(read_text((dir / "full" / "nodes.csv").string()), 3));
  for (const std::string& refused : {run.substr(0, run.find(" --no-accounting")) + " --statistics visits",
                                     run + " --statistics visits --save-paths", run + " --statistics some"}) {
    const CliResult r = run_cli(refused + " --out " + (dir / "refused").string());
    EXPECT_EQ(r.exit_code, 2) << refused << "\n" << r.err;
    EXPECT_NE(r.err.find("statistics"), std::string::npos) << r.err;
  }
}

TEST(CliWalkSim, HopDistancesOnAGraph) {
  ScratchDir dir;
  const auto out = dir / "grid";
  ASSERT_TRUE(run_cli_into("walk-sim --graph grid:n=4 --weights metropolis --steps 2000 --runs 2", out));
  std::istringstream csv(read_text((out / "by_distance.csv").string()));
  std::string line;
  int rows = 0;
  double pairs = 0;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    ++rows;
    pairs += std::stod(line.substr(line.find(',') + 1));
  }
  EXPECT_EQ(rows, 6);               // distances 1..6 on the 4 x 4 grid
  EXPECT_EQ(pairs, 2.0 * 16 * 15);  // every ordered pair of both runs
}

TEST(CliWalkSim, BadInputExitsTwoWithoutManifest) {
  ScratchDir dir;
  const auto out = dir / "bad";
  const std::string base = " --out " + out.string();
  for (const std::string args : {
           "walk-sim --graph complete:n=1 --steps 10 --runs 1",
           "walk-sim --graph complete:n=10 --steps 0 --runs 1",
           "walk-sim --graph complete:n=10 --steps 10 --runs 0",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --eps0 0",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --eps0 -1",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --delta 0",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --delta 1",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --delta 2",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --bogus",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --view sideways",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --start node:10",
           "walk-sim --graph complete:n=10 --steps 10000 --runs 1000 --save-paths",
           "walk-sim --graph path:n=5 --weights directed-ring --steps 10 --runs 1",
           "walk-sim --graph complete:n=10 --steps 2000000 --runs 1 --mechanism histogram --device cuda",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --bookkeeping bogus",
           "walk-sim --graph complete:n=10 --steps 10 --runs 1 --bookkeeping reference --device cuda",
       }) {
    auto r = run_cli(args + base);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
  // The histogram's per-cycle levels are tabulated on the host up to 2^20 positions: checked before the
  // device.
  auto r = run_cli(
      "walk-sim --graph complete:n=10 --steps 2000000 --runs 1 --mechanism histogram --device cuda" + base);
  EXPECT_NE(r.err.find("needs T - 1 <= 2^20"), std::string::npos) << r.err;
}

// Walks of 2^32 or more positions are refused (the visit tables keep 32-bit times; docs/walk_sim.md
// "Randomness layout"): exit 2, one line naming --steps; 2^32 - 1 passes validation (stopped by --runs 0's
// own message).
TEST(CliWalkSim, StepsOfTwoToTheThirtyTwoAreRefused) {
  ScratchDir dir;
  const std::string base = " --out " + (dir / "long").string();
  for (const char* steps : {"4294967296", "17592186044415"}) {
    const auto r = run_cli(std::string("walk-sim --graph complete:n=10 --no-accounting --runs 1 --steps ") +
                           steps + base);
    EXPECT_EQ(r.exit_code, 2) << steps << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("--steps"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("2^32"), std::string::npos) << r.err;
  }
  const auto ok =
      run_cli("walk-sim --graph complete:n=10 --no-accounting --steps 4294967295 --runs 0" + base);
  EXPECT_EQ(ok.exit_code, 2) << ok.err;
  EXPECT_EQ(ok.err.find("--steps"), std::string::npos) << ok.err;
  EXPECT_NE(ok.err.find("runs"), std::string::npos) << ok.err;
}

}  // namespace
}  // namespace netdp
