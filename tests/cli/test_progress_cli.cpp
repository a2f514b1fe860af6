// Progress lines of the learning models and attack dgd on the command line (src/core/progress.hpp,
// docs/python.md "Progress and Ctrl-C"): each run reports its runs (attack dgd also its estimators) on stderr
// unless --quiet. NETDP_PROGRESS_SECONDS=0 prints every update from the start, so runs of a fraction of a
// second show their lines; without it the first line comes after 3 seconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using testing::CliResult;
using testing::run_cli;
using testing::ScratchDir;

struct Case {
  std::string command;              // model and options, without --out
  std::vector<std::string> stages;  // the progress lines' labels, in order
};

std::vector<Case> cases() {
  return {
      {"walk-sgd --graph complete:n=20 --variant network --epsilon 1 --steps 400 --runs 3 --seed 3",
       {"walk-sgd"}},
      {"walk-sgd --graph rgg:n=30,r=0.5,seed=1 --weights metropolis --variant network --objective quadratic "
       "--node-data coordinates --sigma 0.3 --cap 0 --runs 2 --steps 300 --eval-every 100 --step-size 0.2",
       {"walk-sgd", "walk-sgd by distance"}},
      {"admm --setting walk --epsilon 2 --users 40 --runs 3 --steps 60 --synthetic-rows 600 --eval-every 20 "
       "--seed 4",
       {"admm"}},
      {"mf-sgd --graph er:n=10,p=0.4,seed=1 --steps 8 --participation cyclic:b=2,k=4 --correlation antipgd "
       "--noise-multiplier 2 --runs 3 --synthetic-rows 400 --eval-every 4",
       {"mf-sgd"}},
      {"muffliato-sgd --graph ring:n=20 --target-mean-loss 0.5 --steps 4 --gossip-steps 3 --runs 3 "
       "--synthetic-rows 400",
       {"muffliato-sgd"}},
      {"muffliato-gd --graph ring:n=8 --steps 5 --gossip-rounds 2 --dim 2 --samples 4 --gradient-noise 0.1 "
       "--runs 3 "
       "--seed 3",
       {"muffliato-gd"}},
      {"attack dgd --graph florentine --weights max-degree --attackers 0 --steps 5 --objective least-squares "
       "--dim 3 --sigma 0.01 --runs 2",
       {"attack dgd estimators", "attack dgd"}},
  };
}

/// The lines of `text` that start with "STAGE: ".
std::vector<std::string> lines_of(const std::string& text, const std::string& stage) {
  std::vector<std::string> out;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string line = text.substr(begin, end - begin);
    if (line.rfind(stage + ": ", 0) == 0) out.push_back(line);
    begin = end + 1;
  }
  return out;
}

TEST(ProgressCli, EveryLearningModelAndAttackDgdPrintsItsProgressUnlessQuiet) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.command);
    ScratchDir dir;
    const CliResult shown =
        run_cli(c.command + " --out " + (dir / "shown").string(), "NETDP_PROGRESS_SECONDS=0 ");
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    std::size_t previous = 0;
    for (const std::string& stage : c.stages) {
      const std::vector<std::string> lines = lines_of(shown.err, stage);
      ASSERT_GE(lines.size(), 2u) << shown.err;  // at least the last share and the closing line
      EXPECT_NE(lines[lines.size() - 2].find(": 100% of the "), std::string::npos) << shown.err;
      EXPECT_EQ(lines.back().rfind(stage + ": done in ", 0), 0u) << shown.err;
      const std::size_t at = shown.err.find(stage + ": ");
      EXPECT_GE(at, previous) << "stages out of order: " << shown.err;
      previous = at;
    }
    const CliResult quiet =
        run_cli(c.command + " --quiet --out " + (dir / "quiet").string(), "NETDP_PROGRESS_SECONDS=0 ");
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
  }
}

// Defect 5 of the reliability issue: a study's validation (every grid point's checks, docs/study.md
// "Validation") shows its progress too, --dry-run included, and nothing under --quiet.
TEST(ProgressCli, StudyValidationShowsItsProgressUnlessQuiet) {
  ScratchDir dir;
  std::string sizes;
  for (int n = 100; n < 140; ++n) sizes += (sizes.empty() ? "" : ", ") + std::to_string(n);
  const std::string study = dir.write("grid.toml",
                                      "[[experiment]]\nname = \"b\"\nmodel = \"bound complete-sum\"\n"
                                      "[experiment.params]\nn = [" +
                                          sizes + "]\n");
  const CliResult shown = run_cli("run " + study + " --dry-run", "NETDP_PROGRESS_SECONDS=0 ");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const std::vector<std::string> lines = lines_of(shown.err, "netdp run: checking the study");
  ASSERT_GE(lines.size(), 2u) << shown.err;
  EXPECT_NE(lines[lines.size() - 2].find(": 100% of the grid points"), std::string::npos) << shown.err;
  EXPECT_EQ(lines.back().rfind("netdp run: checking the study: done in ", 0), 0u) << shown.err;
  // The grid's expansion before it (every 1024 units and at the end: 40 units, one share and the closing
  // line).
  const std::vector<std::string> expanding = lines_of(shown.err, "netdp run: expanding the study");
  ASSERT_EQ(expanding.size(), 2u) << shown.err;
  EXPECT_NE(expanding[0].find(": 100% of the units"), std::string::npos) << shown.err;
  EXPECT_LT(shown.err.find("netdp run: expanding the study"),
            shown.err.find("netdp run: checking the study"));
  const CliResult quiet = run_cli("run " + study + " --dry-run --quiet", "NETDP_PROGRESS_SECONDS=0 ");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_TRUE(lines_of(quiet.err, "netdp run: checking the study").empty()) << quiet.err;
  EXPECT_TRUE(lines_of(quiet.err, "netdp run: expanding the study").empty()) << quiet.err;
}

// Defect 5 of the reliability issue: gossip-loss with --steps auto on a graph without a closed-form spectrum
// (n > 1024, not circulant) runs Lanczos first; that phase has its line too, before the losses'. Lanczos
// stops when it converges, so its last share is below 100%.
TEST(ProgressCli, TheLanczosSpectrumShowsItsProgressUnlessQuiet) {
  ScratchDir dir;
  const std::string command =
      "gossip-loss --graph er:n=1100,c=3,seed=1 --steps auto --accounting theorem --no-matrix --threads 2";
  const CliResult shown =
      run_cli(command + " --out " + (dir / "shown").string(), "NETDP_PROGRESS_SECONDS=0 ");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const std::vector<std::string> lines = lines_of(shown.err, "spectrum (Lanczos)");
  ASSERT_GE(lines.size(), 2u) << shown.err;
  EXPECT_NE(lines.front().find("% of its step limit"), std::string::npos) << shown.err;
  EXPECT_EQ(lines.back().rfind("spectrum (Lanczos): done in ", 0), 0u) << shown.err;
  EXPECT_LT(shown.err.find("spectrum (Lanczos): "), shown.err.find("gossip-loss: ")) << shown.err;
  const CliResult quiet =
      run_cli(command + " --quiet --out " + (dir / "quiet").string(), "NETDP_PROGRESS_SECONDS=0 ");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

}  // namespace
}  // namespace netdp
