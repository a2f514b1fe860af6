// `netdp muffliato-sgd` end to end: files and columns, sigma from the eq. 6.4 mean loss by hand, and bad
// input (exit 2, one line, no manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "support/cli_runs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

TEST(CliMuffliatoSgd, CalibratesToTheMeanLoss) {
  // Ring: d_v = 2. eps_bar(1) = P alpha K d / (2 n) = 4 * 2 * 3 * 2 / 40 = 1.2; sigma = 2 L sqrt(1.2 / 0.5).
  const double at_one = 4 * 2 * 3 * 2 / 40.0;
  const CliRun run(
      "muffliato-sgd --graph ring:n=20 --target-mean-loss 0.5 --steps 4 --gossip-steps 3 "
      "--runs 3 --synthetic-rows 400 --threads 2");
  ASSERT_TRUE(run.ok);
  const auto s = run.summary();
  EXPECT_NEAR(s["calibration"]["statistic_at_one"].get<double>(), at_one, 1e-12);
  EXPECT_NEAR(s["sigma"].get<double>(), 0.8 * std::sqrt(at_one / 0.5), 1e-12);
  EXPECT_NEAR(s["mean_loss"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(s["gossip_steps"], 3);
  const auto curves = read_csv_cells(run.out / "curves.csv");
  ASSERT_EQ(curves.size(), 6u);  // header, participations 0..4
  for (const char* column :
       {"step", "objective_mean", "objective_std", "accuracy_mean", "accuracy_std", "consensus_mean"})
    EXPECT_NE(std::find(curves[0].begin(), curves[0].end(), column), curves[0].end()) << column;
  EXPECT_NEAR(std::stod(curves[1][1]), std::log(2.0), 1e-12);  // theta = 0
}

TEST(CliMuffliatoSgd, BadInputExitsWithCode2AndNoManifest) {
  ScratchDir dir;
  const std::string common = " --steps 2 --synthetic-rows 200 --out ";
  const std::string cases[] = {
      "--graph ring:n=10",  // neither sigma nor target
      "--graph ring:n=10 --sigma 1 --target-mean-loss 1",
      "--graph ring:n=10 --sigma 1 --step-size 0",
      "--graph ring:n=10 --sigma 1 --gossip-steps 0",
      "--graph ring:n=10 --sigma 1 --weights bogus",
      "--graph ring:n=500 --sigma 1",  // 160 training rows for 500 users
      "--graph ring:n=10 --sigma 1 --clip-order later",
      "--graph ring:n=10 --target-mean-loss -1",
  };
  int i = 0;
  for (const auto& args : cases) {
    auto out = dir / ("case" + std::to_string(i++));
    auto r = run_cli("muffliato-sgd " + args + common + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
}

}  // namespace
}  // namespace netdp
