// The bad-input catalogue (docs/reliability.md): every input a user or a hostile tester can give that netdp
// must refuse before any work starts. Each case: exit code 2, exactly one line on stderr naming the fault,
// and no output directory left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

struct BadInput {
  const char* name;
  std::string args;     // netdp ARGS --out OUT
  const char* message;  // a fragment the error line must contain
};

// Every case runs under `ulimit -d 4 GiB` (a data-segment limit: netdp counts it as the memory available,
// src/core/memory_info.cpp), so the memory refusals hold on any machine, whatever its free memory.
CliResult run_limited(const std::string& args) {
  return run_cli(args, "ulimit -d 4194304; ");
}

void expect_refused(const ScratchDir& dir, const std::vector<BadInput>& cases) {
  for (const auto& c : cases) {
    auto out = dir / (std::string("out-") + std::to_string(&c - cases.data()));
    auto r = run_limited(c.args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_LE(r.err.size(), 400u) << c.name << ": the message must stay short";
    EXPECT_FALSE(fs::exists(out)) << c.name << ": an output directory was left behind";
  }
}

// Defect 1: a file never makes netdp allocate from a declared size or an id larger than the memory at hand.
TEST(BadInputs, GraphFilesNeverAllocateBeyondTheMemory) {
  ScratchDir dir;
  auto huge_mtx = dir.write("huge.mtx",
                            "%%MatrixMarket matrix coordinate pattern symmetric\n"
                            "2000000000 2000000000 1\n1 2\n");
  auto many_entries = dir.write("entries.mtx",
                                "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                "3 3 2000000000\n1 2\n");
  auto huge_id = dir.write("huge_id.txt", "0 1\n1 2000000000\n");
  auto huge_w = dir.write("huge_w.txt", "0 0 1\n2000000000 2000000000 1\n");
  auto ring = dir.write("ring.txt", "0 1\n1 2\n2 0\n");
  // Found by the npy fuzz target: a .npy header announcing 2e9 x 2e9 float64 entries, and no data.
  auto huge_npy = source_path("tests/fuzz/corpus/npy/huge_shape.npy");
  expect_refused(dir, {
                          {"MatrixMarket declaring 2e9 rows", "graph --graph file:" + huge_mtx, "GiB"},
                          {"MatrixMarket declaring 2e9 entries in 3 lines",
                           "graph --graph file:" + many_entries, "entries announced"},
                          {"edge list with id 2e9", "graph --graph file:" + huge_id, "GiB"},
                          {"weight file with id 2e9",
                           "gossip-loss --steps 2 --graph file:" + ring + " --weights file:" + huge_w, "GiB"},
                          {".npy declaring 2e9 x 2e9 entries",
                           "mf-factorize --graph ring:n=4 --steps 4 --correlation file:" + huge_npy,
                           "the shape announces more data than the file's 0 bytes"},
                      });
}

// Defect 7: what a message quotes from the input is cut to ~80 printable characters.
TEST(BadInputs, MessagesQuoteAtMostAShortPrintableExcerpt) {
  ScratchDir dir;
  auto long_line = dir.write("long.txt", "0 1\n" + std::string(100000, '7') + "x 2\n");
  auto binary = dir.write("binary.txt", std::string("0 1\n\x01\xff garbage\n"));
  auto long_token = std::string(5000, 'z');
  expect_refused(
      dir, {
               {"a 100 kB line", "graph --graph file:" + long_line, "..."},
               {"binary garbage", "graph --graph file:" + binary, "?? garbage"},
               {"a directory as a graph file", "graph --graph file:" + dir.path().string(), "is a directory"},
               {"a 5000-character option value", "gossip-loss --graph ring:n=5 --steps " + long_token, "..."},
           });
}

// Defect 4 / 7: the command line names what is wrong and where to read more.
TEST(BadInputs, CommandLineErrorsNameTheCommandAndItsHelp) {
  ScratchDir dir;
  expect_refused(dir, {
                          {"unknown command", "foo", "unknown command 'foo'"},
                          {"unknown option of a command", "gossip-loss --graph ring:n=5 --colour blue",
                           "netdp gossip-loss --help"},
                          {"unknown option of a nested command", "bound sgd-sigma --colour blue",
                           "netdp bound sgd-sigma --help"},
                          {"negative seed", "gossip-sim --graph ring:n=5 --steps 2 --seed -1", "seed"},
                      });
}

// Defect 1: a graph generator is sized from its keys and refused before it builds anything.
TEST(BadInputs, GeneratorsNeverBuildBeyondTheMemory) {
  ScratchDir dir;
  expect_refused(dir,
                 {
                     {"complete graph of 1e5 nodes (5e9 edges)", "graph --graph complete:n=100000", "GiB"},
                     {"2-D grid of 1e10 nodes", "gossip-loss --steps 2 --graph grid:n=100000", "GiB"},
                     {"hypercube of 2^40 nodes", "walk-loss --steps 2 --graph hypercube:dim=40", "GiB"},
                 });
}

// Defect 4 and 7: values that depend on the graph are checked against it before anything is written.
TEST(BadInputs, ValuesThatDependOnTheGraphAreCheckedFirst) {
  ScratchDir dir;
  expect_refused(
      dir,
      {
          {"source beyond n", "gossip-loss --graph ring:n=5 --steps 2 --source 9", "source"},
          {"more colluders than nodes", "walk-loss --graph ring:n=5 --steps 2 --colluders 100",
           "colluders must be between 0 and n - 1 = 4"},
          {"walk start beyond n", "walk-sim --graph ring:n=5 --steps 2 --runs 4 --start node:7", "node:7"},
          {"attacker beyond n", "attack gossip --graph ring:n=5 --steps 3 --attackers 7",
           "node 7 is out of range"},
          {"noise that overflows the objective",
           "muffliato-gd --graph ring:n=5 --steps 2 --gossip-rounds 2 --dim 2 --sigma 1e308", "sigma"},
      });
}

// Defect 2: a study's validation runs each model's own checks at every grid point, so that --dry-run is a
// guarantee; a refused study leaves nothing (no .lock, no study.toml).
TEST(BadInputs, StudyValidationRunsEachModelsChecksAtEveryPoint) {
  ScratchDir dir;
  const auto study = [&](const std::string& name, const std::string& model, const std::string& params,
                         const std::string& grid) {
    return dir.write(name, "[[experiment]]\nname = \"e\"\nmodel = \"" + model + "\"\n[experiment.params]\n" +
                               params + (grid.empty() ? "" : "[experiment.grid]\n" + grid));
  };
  const auto graph_number = study("graph_number.toml", "gossip-loss", "steps = 2\ngraph = 5\n", "");
  const auto graph_list =
      study("graph_list.toml", "gossip-loss", "steps = 2\n", "graph = [\"ring:n=5\", 1]\n");
  const auto source =
      study("source.toml", "gossip-loss", "steps = 2\ngraph = \"ring:n=5\"\nsource = 9\n", "");
  const auto start =
      study("start.toml", "walk-sim", "steps = 2\nruns = 4\ngraph = \"ring:n=5\"\nstart = \"node:7\"\n", "");
  const auto generator =
      study("generator.toml", "walk-loss", "steps = 2\n", "graph = [\"ring:n=5\", \"complete:n=100000\"]\n");
  std::vector<BadInput> cases;
  for (const char* flags : {" --dry-run", ""}) {
    cases.push_back({"graph = 5", "run " + graph_number + flags, "unknown graph family '5'"});
    cases.push_back({"graph = [\"ring:n=5\", 1]", "run " + graph_list + flags, "graph=1): graph spec '1'"});
    cases.push_back({"source = 9 on n = 5", "run " + source + flags, "source"});
    cases.push_back({"start = node:7 on n = 5", "run " + start + flags, "node:7"});
    cases.push_back({"complete:n=100000 at a grid point", "run " + generator + flags, "GiB"});
  }
  // device = "cuda" is refused where no CUDA device answers (skipped on a machine with one).
  ScratchDir probe;
  if (run_cli("gossip-loss --graph ring:n=5 --steps 1 --device cuda --out " + (probe / "o").string())
          .exit_code != 0) {
    const auto cuda =
        study("cuda.toml", "gossip-loss", "steps = 2\ngraph = \"ring:n=5\"\ndevice = \"cuda\"\n", "");
    cases.push_back({"device = cuda without a GPU", "run " + cuda + " --dry-run", "cuda"});
    cases.push_back({"device = cuda without a GPU", "run " + cuda, "cuda"});
  }
  expect_refused(dir, cases);
}

// Defect 8: `netdp --help` lists the exit codes; options with a fixed set of values show them as {a|b}.
TEST(BadInputs, HelpShowsExitCodesAndChoices) {
  const auto top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("Exit codes: 0 success; 2 bad input"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("130 / 143"), std::string::npos) << top.out;
  for (const char* command : {"gossip-loss", "walk-sim", "bound sgd-sigma"}) {
    const auto help = run_cli(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_EQ(help.out.find(":{"), std::string::npos) << command << ": choices as TEXT:{a,b}\n" << help.out;
  }
  EXPECT_NE(run_cli("gossip-loss --help").out.find("{second|abs}"), std::string::npos);
}

// Defect 3: a rerun into the same directory leaves nothing of the earlier run that could look like its own.
TEST(Outputs, RerunRemovesTheEarlierRunsFilesAndTemporaries) {
  ScratchDir dir;
  auto out = dir / "run";
  ASSERT_TRUE(run_cli_into("gossip-loss --graph ring:n=10 --steps 2", out, {"loss.npy", "manifest.json"}));
  dir.write("run/loss.npy.tmp-999999", "a killed run's temporary");
  dir.write("run/edges.txt.tmp", "a killed graph run's temporary");
  dir.write("run/notes.txt", "the user's own file");
  ASSERT_TRUE(run_cli_into("gossip-loss --graph ring:n=10 --steps 2 --no-matrix", out, {"manifest.json"}));
  EXPECT_FALSE(fs::exists(out / "loss.npy")) << "a stale matrix beside the manifest of a --no-matrix run";
  EXPECT_FALSE(fs::exists(out / "loss.npy.tmp-999999"));
  EXPECT_FALSE(fs::exists(out / "edges.txt.tmp"));
  EXPECT_TRUE(fs::exists(out / "notes.txt")) << "files the manifest did not list are not netdp's to remove";
  for (const auto& name : read_json(out / "manifest.json")["files"])
    EXPECT_TRUE(fs::exists(out / name.get<std::string>())) << name;
}

}  // namespace
}  // namespace netdp
