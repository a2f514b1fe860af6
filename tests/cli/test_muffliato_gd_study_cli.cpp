// `netdp run` with muffliato-gd: the Fig. 6.1c pair of experiments (Muffliato-GD on fresh ER graphs and the
// exact-averaging baseline, docs/muffliato_gd.md "Federated baseline") sees the same data and noise draws
// with `common-seed`, and different ones with the study's per-unit seeds (the confounder it removes).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

/// The two experiments of examples/fig6_1c_muffliato_gd_time_varying_er at n = 60; `seed_line` goes into
/// both experiments' parameters.
std::string pair_study(const std::string& seed_line) {
  const std::string common = R"(objective = "logistic"
dim = 4
steps = 3
gossip-rounds = 6
step-size = 0.7
gradient-noise = 1.5
clip = 0.4
reference-code = true
runs = 3
graph = "er:n=60,c=2,seed=1"
)" + seed_line + "\n";
  return "[study]\nname = \"pair\"\nseed = 3\n\n[[experiment]]\nname = \"er\"\nmodel = \"muffliato-gd\"\n"
         "[experiment.params]\ner-c = 1.0\n" +
         common +
         "\n[[experiment]]\nname = \"federated\"\nmodel = \"muffliato-gd\"\n[experiment.params]\n"
         "averaging = \"exact\"\n" +
         common;
}

struct Pair {
  nlohmann::json er, federated;
  std::vector<std::vector<std::string>> er_curves, federated_curves;
};

Pair run_pair(const ScratchDir& dir, const std::string& name, const std::string& seed_line) {
  const fs::path study = dir / (name + ".toml"), out = dir / name;
  std::ofstream(study) << pair_study(seed_line);
  const auto r = run_cli("run " + study.string() + " --out " + out.string() + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const fs::path er = out / "er" / "p0000" / "rep-0", fed = out / "federated" / "p0000" / "rep-0";
  return {read_json(er / "summary.json"), read_json(fed / "summary.json"), read_csv_cells(er / "curves.csv"),
          read_csv_cells(fed / "curves.csv")};
}

double cell(const std::vector<std::vector<std::string>>& csv, std::size_t row, const std::string& column) {
  for (std::size_t c = 0; c < csv[0].size(); ++c)
    if (csv[0][c] == column) return std::strtod(csv[row][c].c_str(), nullptr);
  ADD_FAILURE() << "no column " << column;
  return NAN;
}

TEST(CliMuffliatoGdStudy, CommonSeedGivesTheBaselineTheSameDataAndNoise) {
  ScratchDir dir;
  const Pair same = run_pair(dir, "same", "common-seed = 11");
  EXPECT_EQ(same.er["seed"], 11);
  EXPECT_EQ(same.federated["seed"], 11);
  EXPECT_EQ(same.er["averaging"], "gossip");
  EXPECT_EQ(same.federated["averaging"], "exact");
  // Same data: the optimum of the logistic loss over all examples is a function of the data alone (bits).
  EXPECT_EQ(same.er["optimum"]["value"].get<double>(), same.federated["optimum"]["value"].get<double>());
  // Same noise: from theta = 0 every node's first update is the same in both units; gossip keeps their
  // average (W doubly stochastic, P_K(1) = 1) and exact averaging takes it, so the objective of the average
  // iterate at t = 1 (row 2) agrees to rounding. Different noise moves it by ~1e-2 here (the control below).
  const double er1 = cell(same.er_curves, 2, "objective_mean"),
               fed1 = cell(same.federated_curves, 2, "objective_mean");
  EXPECT_NEAR(er1, fed1, 1e-12 * std::abs(fed1));
  EXPECT_EQ(cell(same.er_curves, 2, "accuracy_mean"), cell(same.federated_curves, 2, "accuracy_mean"));

  // Control: `seed` alone is replaced by each unit's own seed, so the two experiments draw differently.
  const Pair own = run_pair(dir, "own", "seed = 11");
  EXPECT_NE(own.er["seed"], own.federated["seed"]);
  EXPECT_NE(own.er["optimum"]["value"].get<double>(), own.federated["optimum"]["value"].get<double>());
  EXPECT_GT(
      std::abs(cell(own.er_curves, 2, "objective_mean") - cell(own.federated_curves, 2, "objective_mean")),
      1e-6);
}

TEST(CliMuffliatoGdStudy, CommonSeedOnTheCommandLineIsTheSeed) {
  const std::string args =
      "muffliato-gd --graph ring:n=12 --objective logistic --dim 3 --steps 2 "
      "--gossip-rounds 2 --gradient-noise 1 --runs 2 --quiet ";
  SummaryPair runs = expect_same_output(args + "--seed 7", args + "--seed 2 --common-seed 7", "curves.csv");
  EXPECT_EQ(runs.b["seed"], 7);
}

}  // namespace
}  // namespace netdp
