// netdp mf-sgd from the command line (docs/mf.md "netdp mf-sgd"): the files, columns and keys, CSV data,
// per-node correlations, and bad input exiting 2 with one line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_support.hpp"

namespace netdp::testing {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(MfSgdCli, WritesCurvesAndPrivacy) {
  ScratchDir dir;
  const auto out = dir / "sgd";
  ASSERT_TRUE(run_cli_into(
      "mf-sgd --graph er:n=10,p=0.4,seed=1 --steps 8 --participation cyclic:b=2,k=4 "
      "--correlation antipgd --noise-multiplier 2 --runs 3 --synthetic-rows 400 --eval-every 4 --quiet",
      out, {"curves.csv", "C.npy", "summary.json"}));
  EXPECT_EQ(first_line(out / "curves.csv"),
            "step,objective_mean,objective_std,objective_min,objective_max,test_loss_mean,test_loss_std,"
            "test_loss_min,test_loss_max,accuracy_mean,accuracy_std,accuracy_min,accuracy_max,consensus_mean,"
            "consensus_std,consensus_min,consensus_max");
  std::ifstream in(out / "curves.csv");
  std::string line;
  std::vector<std::string> steps;
  std::getline(in, line);
  while (std::getline(in, line)) steps.push_back(line.substr(0, line.find(',')));
  EXPECT_EQ(steps, (std::vector<std::string>{"0", "4", "8"}));
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["model"], "mf-sgd");
  EXPECT_EQ(s["correlation_name"], "ANTIPGD");
  EXPECT_EQ(s["runs"], 3);
  EXPECT_DOUBLE_EQ(s["privacy"]["mu"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["privacy"]["rdp"].get<double>(), 2 * 0.25 / 2);
  EXPECT_GT(s["privacy"]["epsilon"].get<double>(), 0.0);
  // The noise scale is clip sigma sens_Pi(C) (clip 1).
  EXPECT_DOUBLE_EQ(s["noise_std"].get<double>(), 2 * s["sensitivity"].get<double>());
  EXPECT_TRUE(s["final"]["accuracy"]["mean"].is_null());  // least squares
  EXPECT_LT(s["final"]["objective"]["mean"].get<double>(), 1e300);
}

TEST(MfSgdCli, CsvDataAndPerNodeCorrelation) {
  ScratchDir dir;
  std::ostringstream csv;
  csv << "x1,x2,y\n";
  for (int i = 0; i < 60; ++i)
    csv << std::sin(i) << ',' << std::cos(3 * i) << ',' << (0.5 * std::sin(i) - std::cos(3 * i)) << '\n';
  const std::string data = dir.write("rows.csv", csv.str());
  const auto out = dir / "csv";
  ASSERT_TRUE(
      run_cli_into("mf-sgd --graph path:n=4 --steps 4 --participation cyclic:b=2,k=2 "
                   "--correlation mafalda-l --noise-multiplier 0 --runs 1 --data " +
                       data + " --quiet",
                   out, {"curves.csv", "C.npy", "summary.json"}));
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["train_rows"], 48);
  EXPECT_EQ(s["correlation_name"], "MAFALDA-L-SGD");
  EXPECT_TRUE(s["privacy"]["epsilon"].is_null());  // sigma 0: no noise
  const NpyArray c = read_npy((out / "C.npy").string());
  EXPECT_EQ(c.shape, (std::vector<std::int64_t>{16, 4}));  // one 4 x 4 C per node
  // Noiseless: the final objective is below the one at theta_0 = 0 (the second column of the first row).
  std::ifstream in(out / "curves.csv");
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  const double start = std::stod(line.substr(line.find(',') + 1));
  EXPECT_LT(s["final"]["objective"]["mean"].get<double>(), start);
}

TEST(MfSgdCli, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"mf-sgd --steps 4", "graph"},
      {"mf-sgd --graph path:n=4 --steps 4 --step-size 0", "step-size"},
      {"mf-sgd --graph path:n=4 --steps 4 --clip -1", "clip"},
      {"mf-sgd --graph path:n=4 --steps 4 --noise-multiplier -1", "noise-multiplier"},
      {"mf-sgd --graph path:n=4 --steps 4 --delta 2", "delta"},
      {"mf-sgd --graph path:n=4 --steps 4 --objective hinge", "objective"},
      {"mf-sgd --graph path:n=4 --steps 4 --data /nonexistent.csv", "data"},
      {"mf-sgd --graph path:n=4 --steps 40 --participation single --synthetic-rows 50", "participation"},
      {"mf-sgd --graph path:n=4 --steps 4 --correlation best", "correlation"},
  };
  for (const auto& [args, fragment] : cases) expect_refused(args, dir / "out", fragment);
}

}  // namespace
}  // namespace netdp::testing
