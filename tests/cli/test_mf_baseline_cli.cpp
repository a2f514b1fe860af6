// netdp mf-loss --baseline muffliato (docs/mf.md "The Muffliato baseline"): the files, the hand-calculated
// path of docs/math.md §6.5's formula, the statistics by distance, and bad input exiting 2 with one line.
#include <gtest/gtest.h>

#include <cmath>

#include "support/test_support.hpp"

namespace netdp::testing {
namespace {

TEST(MfBaselineCli, WritesTheBaselineBesideTheMfLosses) {
  ScratchDir dir;
  const auto out = dir / "path";
  ASSERT_TRUE(run_cli_into(
      "mf-loss --graph path:n=3 --steps 2 --trust pndp --attackers 0 --alpha 3 --noise-multiplier 2 "
      "--baseline "
      "muffliato "
      "--quiet",
      out, {"loss.npy", "by_distance.csv", "baseline_loss.npy", "baseline_by_distance.csv", "summary.json"}));
  // Path 0 - 1 - 2, W = D^-1 (A + I), T = 2 (the hand calculation of tests/unit/test_mf_baseline.cpp):
  // S(1 -> 0) = 2 + 210/143 is capped at T = 2, S(2 -> 0) = 9/11; factor alpha / (2 sigma^2) = 3/8.
  const NpyArray b = read_npy((out / "baseline_loss.npy").string());
  ASSERT_EQ(b.shape, (std::vector<std::int64_t>{1, 3}));
  EXPECT_TRUE(std::isinf(b.values[0]));
  EXPECT_DOUBLE_EQ(b.values[1], 0.75);
  EXPECT_NEAR(b.values[2], 3.0 / 8 * 9 / 11, 1e-15);
  const auto summary = read_json(out / "summary.json");
  const auto& base = summary["baseline"];
  EXPECT_EQ(base["name"], "muffliato_mfdl");
  EXPECT_DOUBLE_EQ(base["cap"].get<double>(), 0.75);
  EXPECT_EQ(base["capped_pairs"], 1);
  EXPECT_EQ(base["pairs"], 2);
  EXPECT_NEAR(base["mean_loss"].get<double>(), (0.75 + 3.0 / 8 * 9 / 11) / 2, 1e-15);
  ASSERT_EQ(base["by_distance"].size(), 2u);
  EXPECT_EQ(base["by_distance"][1]["distance"], 2);
  EXPECT_NEAR(base["by_distance"][1]["mean"].get<double>(), 3.0 / 8 * 9 / 11, 1e-15);
  const auto rows = read_csv_cells(out / "baseline_by_distance.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"distance", "pairs", "mean", "min", "max"}));
  EXPECT_EQ(rows[1][0], "1");
  EXPECT_EQ(std::stod(rows[1][2]), 0.75);
  // The MF outputs are unchanged by the option.
  const auto plain = dir / "plain";
  ASSERT_TRUE(
      run_cli_into("mf-loss --graph path:n=3 --steps 2 --attackers 0 --alpha 3 --noise-multiplier 2 --quiet",
                   plain, {"loss.npy"}));
  EXPECT_EQ(read_npy((plain / "loss.npy").string()).values, read_npy((out / "loss.npy").string()).values);
  EXPECT_FALSE(read_json(plain / "summary.json").contains("baseline"));
}

TEST(MfBaselineCli, FlorentineSaturatesAtTheCap) {
  // docs/math.md Appendix Z item 10: T = 10, alpha = 2, sigma = 1: 10 at every distance.
  ScratchDir dir;
  const auto out = dir / "florentine";
  ASSERT_TRUE(run_cli_into("mf-loss --graph florentine --steps 10 --attackers 0 --baseline muffliato --quiet",
                           out, {"baseline_by_distance.csv"}));
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["baseline"]["capped_pairs"], 14);
  for (const auto& row : summary["baseline"]["by_distance"]) {
    EXPECT_EQ(row["min"].get<double>(), 10.0);
    EXPECT_EQ(row["max"].get<double>(), 10.0);
  }
}

TEST(MfBaselineCli, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  expect_refused("mf-loss --graph florentine --baseline gossip", dir / "out", "baseline");
  expect_refused("mf-loss --graph florentine --trust ldp --baseline muffliato", dir / "out", "baseline");
}

}  // namespace
}  // namespace netdp::testing
