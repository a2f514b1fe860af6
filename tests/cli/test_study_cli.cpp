// `netdp run` / `netdp merge` end to end with the real models: a unit equals the model run by hand, kill -9
// at several points then resume gives byte-identical results.csv, shards + merge and mpirun -np 2 equal one
// process, and malformed studies exit 2 naming their line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

// 27 units of four models, each some milliseconds to tens of milliseconds.
const char* kStudy = R"([study]
name = "mixed"
seed = 5
quantiles = [0.1, 0.9]

[[experiment]]
name = "gossip"
model = "gossip-loss"
[experiment.params]
sigma = 1.0
[experiment.grid]
graph = ["hypercube:dim=6", "hypercube:dim=8", "er:n=200,c=2,seed={seed}"]
alpha = [2, 4]

[[experiment]]
name = "walks"
model = "walk-sim"
replicates = 10
[experiment.params]
graph = "complete:n=100"
steps = 10000
runs = 4

[[experiment]]
name = "averaging"
model = "gossip-sim"
replicates = 4
[experiment.params]
graph = "torus:side=16"
steps = 50
runs = 64
[experiment.grid]
sigma = [0.5, 1.0]

[[experiment]]
name = "theory"
model = "bound complete-sum"
[experiment.grid]
n = { start = 100, stop = 10000, num = 3, spacing = "log", integer = true }
)";

/// Byte equality without printing both files on failure.
::testing::AssertionResult same_file(const fs::path& a, const fs::path& b) {
  const std::string x = read_text(a.string()), y = read_text(b.string());
  if (x == y) return ::testing::AssertionSuccess();
  std::size_t at = 0;
  while (at < x.size() && at < y.size() && x[at] == y[at]) ++at;
  return ::testing::AssertionFailure() << a << " and " << b << " differ from byte " << at << ": ..."
                                       << x.substr(at, 80) << "... vs ..." << y.substr(at, 80) << "...";
}

// 16 units of a few tenths of a second each: a study that can be killed in the middle of a unit.
const char* kSlowStudy = R"([study]
seed = 9
[[experiment]]
name = "walks"
model = "walk-sim"
replicates = 12
[experiment.params]
graph = "complete:n=100"
steps = 400000
runs = 4
[[experiment]]
name = "gossip"
model = "gossip-loss"
[experiment.params]
accounting = "theorem"
[experiment.grid]
graph = ["hypercube:dim=9", "er:n=400,c=2,seed={seed}"]
alpha = [2, 8]
)";

std::string netdp_run(const fs::path& study, const fs::path& out, const std::string& extra = "") {
  return "run " + study.string() + " --out " + out.string() + " --quiet " + extra;
}

TEST(StudyCli, UnitsEqualTheModelRunByHandAndResultsAreTidy) {
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  auto r = run_cli(netdp_run(study, dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // gossip/p0001 = hypercube:dim=6, alpha = 4: the same command by hand
  auto by_hand = run_cli("gossip-loss --graph hypercube:dim=6 --alpha 4 --sigma 1 --quiet --out " +
                         (dir / "hand").string());
  ASSERT_EQ(by_hand.exit_code, 0) << by_hand.err;
  EXPECT_TRUE(same_file(dir / "out/gossip/p0001/rep-0/loss.npy", dir / "hand/loss.npy"));
  const double mean_loss = read_json(dir / "hand/summary.json")["mean_loss"].get<double>();
  bool found = false;
  const auto rows = testing::read_csv_cells(dir / "out/results.csv");
  ASSERT_EQ(rows[0][0], "experiment");
  for (const auto& row : rows)
    if (row[1] == "p0001" && row[0] == "gossip" &&
        std::find(row.begin(), row.end(), "mean_loss") != row.end()) {
      const auto at = std::find(row.begin(), row.end(), "mean_loss") - row.begin();
      EXPECT_EQ(row[std::size_t(at) + 1], "1");  // replicates
      EXPECT_DOUBLE_EQ(std::stod(row[std::size_t(at) + 2]), mean_loss);
      found = true;
    }
  EXPECT_TRUE(found);
  const auto manifest = read_json(dir / "out/manifest.json");
  EXPECT_EQ(manifest["units"], 27);
  EXPECT_EQ(manifest["study"]["name"], "mixed");
  EXPECT_EQ(read_text((dir / "out/study.toml").string()), kStudy);
}

TEST(StudyCli, KilledSeveralTimesThenResumedGivesByteIdenticalResults) {
  ScratchDir dir;
  const auto study = dir.write("slow.toml", kSlowStudy);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "whole")).exit_code, 0);
  const fs::path out = dir / "killed";
  int kills = 0;
  // Fixed, uneven delays: some land in a unit, some between units, some while validating.
  for (const char* delay : {"0.35", "0.2", "0.5", "0.12", "0.4", "0.27", "0.6"}) {
    const std::string command =
        "bash -c '" + netdp_cli_path() + " " + netdp_run(study, out) + " >/dev/null 2>&1 & p=$!; sleep " +
        delay + "; kill -9 $p 2>/dev/null && echo killed; wait $p' > " + (dir / "kill.log").string();
    ASSERT_EQ(std::system(command.c_str()) == -1, false);
    if (read_text((dir / "kill.log").string()).find("killed") != std::string::npos) ++kills;
  }
  EXPECT_GE(kills, 3) << "the study finished before most kills; make its units longer";
  auto r = run_cli(netdp_run(study, out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(same_file(out / "results.csv", dir / "whole/results.csv"));
  EXPECT_EQ(read_json(out / "manifest.json")["units"], 16);
}

TEST(StudyCli, ARunKilledWhileWritingStudyTomlLeavesTheDirectoryFree) {
  // kill -9 between opening study.toml's temporary and renaming it leaves only that temporary behind (the
  // CI run that found this killed at 0.12 s); any other file still makes the directory someone else's.
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  fs::create_directories(dir / "out");
  dir.write("out/study.toml.tmp-12345", "[study]\nname = \"torn");
  auto r = run_cli(netdp_run(study, dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/study.toml.tmp-12345"));
  EXPECT_EQ(read_text((dir / "out/study.toml").string()), kStudy);
  fs::create_directories(dir / "other");
  dir.write("other/notes.txt", "mine");
  r = run_cli(netdp_run(study, dir / "other"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not empty and holds no study"), std::string::npos) << r.err;
}

TEST(StudyCli, ASecondRunOfTheSameShareIsRefusedWhileTheFirstWorks) {
  ScratchDir dir;
  const auto study = dir.write("slow.toml", kSlowStudy);
  const std::string background = "bash -c '" + netdp_cli_path() + " " + netdp_run(study, dir / "out") +
                                 " >/dev/null 2>&1 & echo $! > " + (dir / "pid").string() + "'";
  ASSERT_EQ(std::system(background.c_str()), 0);
  std::system("sleep 0.5");
  auto second = run_cli(netdp_run(study, dir / "out"));
  std::system(("kill -9 $(cat " + (dir / "pid").string() + ") 2>/dev/null; sleep 0.1").c_str());
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_NE(second.err.find("another netdp run is working on this share"), std::string::npos) << second.err;
  // the lock dies with its process: the study can be resumed at once
  auto resumed = run_cli(netdp_run(study, dir / "out"));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

TEST(StudyCli, TornUnitIsDetectedAndRedone) {
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "out")).exit_code, 0);
  const std::string before = read_text((dir / "out/results.csv").string());
  { std::ofstream truncate(dir / "out/gossip/p0002/rep-0/loss.npy", std::ios::trunc); }
  auto r = run_cli("run " + study + " --out " + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("redoing gossip/p0002/rep-0: loss.npy does not match its checksum"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("(1 run now)"), std::string::npos) << r.out;
  EXPECT_TRUE(read_text((dir / "out/results.csv").string()) == before);
}

TEST(StudyCli, ShardsAndMergeEqualOneRun) {
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "whole")).exit_code, 0);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "a", "--shard 0/2")).exit_code, 0);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "b", "--shard 1/2")).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "a/results.csv"));
  auto m = run_cli("merge " + (dir / "a").string() + " " + (dir / "b").string() + " --out " +
                   (dir / "m").string());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_TRUE(same_file(dir / "m/results.csv", dir / "whole/results.csv"));
  // shards sharing one directory: the last one to finish gathers the study
  ASSERT_EQ(run_cli(netdp_run(study, dir / "shared", "--shard 1/3")).exit_code, 0);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "shared", "--shard 0/3")).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "shared/results.csv"));
  ASSERT_EQ(run_cli(netdp_run(study, dir / "shared", "--shard 2/3")).exit_code, 0);
  EXPECT_TRUE(same_file(dir / "shared/results.csv", dir / "whole/results.csv"));
}

TEST(StudyCli, TwoCpuWorkersEqualOne) {
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "one")).exit_code, 0);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "two", "--workers 2")).exit_code, 0);
  EXPECT_TRUE(same_file(dir / "two/results.csv", dir / "one/results.csv"));
}

TEST(StudyCli, MpirunTwoRanksEqualsOneProcess) {
#ifndef NETDP_TEST_MPIEXEC
  GTEST_SKIP() << "this build has no MPI (install libopenmpi-dev and openmpi-bin)";
#else
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "one")).exit_code, 0);
  const std::string command = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                              NETDP_TEST_MPIEXEC + " --oversubscribe -np 2 " + netdp_cli_path() + " " +
                              netdp_run(study, dir / "mpi") + " > " + (dir / "mpi.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text((dir / "mpi.log").string());
  EXPECT_TRUE(same_file(dir / "mpi/results.csv", dir / "one/results.csv"));
  EXPECT_EQ(read_json(dir / "mpi/manifest.json")["ranks"], 2);
#endif
}

// Under MPI only rank 0 reports progress, counting every rank's units (docs/study.md "Progress"): one closing
// line "27/27 units" rather than one "14/14" and one "13/13" per rank.
TEST(StudyCli, MpirunProgressComesFromRankZeroWithTheCombinedCount) {
#ifndef NETDP_TEST_MPIEXEC
  GTEST_SKIP() << "this build has no MPI (install libopenmpi-dev and openmpi-bin)";
#else
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  const std::string command = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                              NETDP_TEST_MPIEXEC + " --oversubscribe -np 2 " + netdp_cli_path() + " run " +
                              study + " --out " + (dir / "mpi").string() + " 2> " +
                              (dir / "err.log").string() + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text((dir / "err.log").string());
  std::istringstream err(read_text((dir / "err.log").string()));
  int progress_lines = 0, closing_lines = 0;
  for (std::string line; std::getline(err, line);) {
    if (!line.starts_with("netdp run: ") || line.find(" units, ") == std::string::npos) continue;
    ++progress_lines;
    EXPECT_NE(line.find("/27 units"), std::string::npos) << "a rank's own count: " << line;
    closing_lines += line.find("27/27 units") != std::string::npos;
  }
  EXPECT_GE(progress_lines, 1);
  EXPECT_EQ(closing_lines, 1) << read_text((dir / "err.log").string());
#endif
}

TEST(StudyCli, ProgressIsABarOnATerminalPlainLinesOtherwiseAndNothingWhenQuiet) {
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  auto plain = run_cli("run " + study + " --out " + (dir / "plain").string());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("netdp run: 27/27 units"), std::string::npos) << plain.err;
  EXPECT_EQ(plain.err.find('\r'), std::string::npos);
  auto quiet = run_cli(netdp_run(study, dir / "quiet"));
  EXPECT_EQ(quiet.err, "");
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no `script` to give netdp a terminal";
  const std::string command = "script -qc '" + netdp_cli_path() + " run " + study + " --out " +
                              (dir / "tty").string() + "' /dev/null > " + (dir / "tty.log").string() +
                              " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string tty = read_text((dir / "tty.log").string());
  EXPECT_NE(tty.find("\rnetdp run [##############################] 27/27 units"), std::string::npos) << tty;
}

TEST(StudyCli, ModelWarningsSurfaceAsOneLine) {
  ScratchDir dir;
  // sigma^2 = 1 < 2 alpha (alpha - 1) = 4: below the weak-convexity condition of Thm 7.7, in both units
  const auto study = dir.write("w.toml",
                               "[[experiment]]\nname = \"w\"\nmodel = \"walk-loss\"\n"
                               "[experiment.params]\nsigma = 1.0\nsteps = 20\n"
                               "[experiment.grid]\ngraph = [\"hypercube:dim=4\", \"ring:n=12\"]\n");
  auto r = run_cli(netdp_run(study, dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find(
          "netdp run: 2 unit(s) reported warnings in their summary.json, e.g. w/p0000/rep-0: sigma^2 = 1 "
          "is below the weak-convexity condition"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("netdp: warning"), std::string::npos) << "units stay quiet: " << r.err;
  EXPECT_EQ(read_json(dir / "out/w/p0001/rep-0/summary.json")["warnings"].size(), 1u);
}

TEST(StudyCli, DryRunListsUnitsAndWritesNothing) {
  ScratchDir dir;
  const auto study = dir.write("s.toml", kStudy);
  auto r = run_cli("run " + study + " --dry-run --out " + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 experiment(s), 12 grid point(s), 27 unit(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("walks/p0000/rep-9"), std::string::npos);
  EXPECT_NE(r.out.find("devices: 1 CPU worker(s)"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(StudyCli, MalformedStudiesExitTwoNamingTheLine) {
  ScratchDir dir;
  const std::string head = "[[experiment]]\nname = \"e\"\nmodel = \"gossip-loss\"\n[experiment.params]\n";
  const std::vector<std::tuple<std::string, std::string>> table{
      {head + "graph = \"ring:n=8\"\nsigmaa = 1\n", "bad.toml:6: experiment 'e': unknown parameter 'sigmaa'"},
      {head + "graph = \"ring:n=8\"\nalpha = \"two\"\n", "bad.toml:6: experiment 'e': 'alpha' = \"two\""},
      {head + "graph = \"ring:n=8\"\ngap = \"third\"\n", "bad.toml:6: experiment 'e': 'gap' = \"third\""},
      {head + "graph = \"ring:n=8\"\nalpha = 0.5\n",
       "bad.toml:2: experiment 'e' point p0000 (graph=ring:n=8, alpha=0.5): alpha must be"},
      {head + "graph = \"ring:n=8\"\nsteps = 0\n",
       "bad.toml:2: experiment 'e' point p0000 (graph=ring:n=8, steps=0): steps must be >= 1"},
      {head + "graph = \"ringg:n=8\"\n", "bad.toml:2: experiment 'e' point p0000 (graph=ringg:n=8)"},
      {head + "sigma = 2\n", "bad.toml:2: experiment 'e' point p0000 (sigma=2): graph is required"},
      {head + "graph = \"ring:n=8\"\nquiet = true\n",
       "bad.toml:6: experiment 'e': 'quiet' is set by the runner"},
      {"[[experiment]]\nname = \"b\"\nmodel = \"bound complete-sum\"\n[experiment.params]\neps = -1\nn = "
       "[10]\n",
       "bad.toml:2: experiment 'b' point p0000 (eps=-1, n=10): complete-graph sum: epsilon must be finite "
       "and > 0"},
      {"[study]\nmemory_limit_gib = 0.001\n" + head + "graph = \"hypercube:dim=12\"\n",
       "bad.toml:2: memory_limit_gib = 0.001: unit e/p0000/rep-0"},
  };
  for (const auto& [text, message] : table) {
    const auto study = dir.write("bad.toml", text);
    auto r = run_cli("run " + study + " --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_NE(r.err.find(message), std::string::npos) << text << "\n-> " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out"));
  }
  auto missing = run_cli("run " + (dir / "nope.toml").string() + " --out " + (dir / "out").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read the study file"), std::string::npos);
  const auto study = dir.write("s.toml", kStudy);
  ASSERT_EQ(run_cli(netdp_run(study, dir / "taken", "--shard 0/27")).exit_code, 0);
  const auto other = dir.write("other.toml", std::string(kStudy) + "\n# changed\n");
  auto clash = run_cli(netdp_run(other, dir / "taken"));
  EXPECT_EQ(clash.exit_code, 2);
  EXPECT_NE(clash.err.find("holds the results of another study"), std::string::npos) << clash.err;
  EXPECT_EQ(run_cli(netdp_run(study, dir / "x", "--shard 2/2")).exit_code, 2);
  EXPECT_EQ(run_cli(netdp_run(study, dir / "x", "--workers -1")).exit_code, 2);
  auto no_device = run_cli(netdp_run(study, dir / "x", "--devices 7"));
  EXPECT_EQ(no_device.exit_code, 2);
  EXPECT_NE(no_device.err.find("--devices: GPU 7 does not answer"), std::string::npos) << no_device.err;
  EXPECT_FALSE(fs::exists(dir / "x"));
}

}  // namespace
}  // namespace netdp
