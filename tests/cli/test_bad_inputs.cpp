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
  expect_refused(dir, {
                          {"MatrixMarket declaring 2e9 rows", "graph --graph file:" + huge_mtx, "GiB"},
                          {"MatrixMarket declaring 2e9 entries in 3 lines",
                           "graph --graph file:" + many_entries, "entries announced"},
                          {"edge list with id 2e9", "graph --graph file:" + huge_id, "GiB"},
                          {"weight file with id 2e9",
                           "gossip-loss --steps 2 --graph file:" + ring + " --weights file:" + huge_w, "GiB"},
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
