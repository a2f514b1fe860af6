// `netdp walk-sgd` end to end: files and columns, sigma equal to the calibration, agreement with the library,
// CSV data, and bad input (exit 2, one line, no manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "netdp/jobs/walk_sgd_job.hpp"
#include "support/cli_runs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

TEST(CliWalkSgd, WritesCurvesAndTheCalibratedSigma) {
  const auto c = calibrate_walk_sgd(WalkSgdVariant::network, 50, code_sigma_search(1, 1e-6, 400, 0.4));
  const CliRun run(
      "walk-sgd --graph complete:n=50 --variant network --epsilon 1 --runs 3 --steps 400 "
      "--synthetic-rows 600 --eval-every 100 --seed 4 --threads 2");
  ASSERT_TRUE(run.ok);
  const auto s = run.summary();
  EXPECT_DOUBLE_EQ(s["sigma"].get<double>(), c.sigma);
  EXPECT_EQ(s["cap"].get<std::int64_t>(), c.cap);
  EXPECT_EQ(s["dim"], 9);                // 8 features and the intercept
  EXPECT_EQ(s["examples_per_user"], 9);  // 480 training rows / 50 users
  const auto curves = read_csv_cells(run.out / "curves.csv");
  ASSERT_EQ(curves.size(), 6u);  // header, steps 0, 100, 200, 300, 400
  expect_curves_from_zero_model(
      curves, {"step", "objective_mean", "objective_std", "objective_min", "objective_max", "accuracy_mean",
               "accuracy_std", "accuracy_min", "accuracy_max", "max_contributions_mean"});  // x_0 = 0
  EXPECT_EQ(curves[5][0], "400");
  EXPECT_LE(std::stod(curves[5][9]), double(c.cap));
}

TEST(CliWalkSgd, ReadsCsvDataAndAGivenSigma) {
  const CliRun run;
  std::string rows = "a,b,label\n";
  for (int i = 0; i < 40; ++i)
    rows += std::to_string(i % 7) + "," + std::to_string((i * 3) % 5) + "," + (i % 2 ? "1" : "-1") + "\n";
  ASSERT_TRUE(run("walk-sgd --graph ring:n=8 --variant centralized --sigma 0 --runs 2 --steps 50 --data " +
                      run.dir.write("d.csv", rows),
                  {"curves.csv", "summary.json"}));
  const auto s = run.summary();
  EXPECT_EQ(s["sigma"], 0.0);
  EXPECT_EQ(s["sigma_source"], "given");
  EXPECT_EQ(s["dim"], 3);
  EXPECT_EQ(s["train_rows"], 32);  // 8 users x floor(32 / 8)
  EXPECT_EQ(s["test_rows"], 8);
  // Without noise the runs differ only by their walks.
  EXPECT_LT(s["final"]["objective"]["mean"].get<double>(), std::log(2.0));
}

// Found by the data_csv fuzz target: the learning split read labels that quadratic rows do not have, so
// walk-sgd --objective quadratic crashed (synthetic or CSV data); and a column near the largest double gave
// NaN features.
TEST(CliWalkSgd, QuadraticRowsAndHugeColumnsRun) {
  ScratchDir dir;
  auto data = dir.write("huge.csv", "1e308,1\n1e308,2\n-1e308,3\n1e308,4\n2e307,5\n-3e307,6\n");
  for (const std::string& data_flag : {std::string(), " --data " + data}) {
    auto out = dir / ("quadratic" + std::to_string(data_flag.size()));
    ASSERT_TRUE(run_cli_into(
        "walk-sgd --graph ring:n=2 --objective quadratic --variant centralized --sigma 0 --runs 1 "
        "--steps 10 --synthetic-rows 20" +
            data_flag,
        out, {"curves.csv", "summary.json"}));
    const auto s = read_json(out / "summary.json");
    EXPECT_TRUE(std::isfinite(s["final"]["objective"]["mean"].get<double>())) << data_flag;
  }
}

TEST(CliWalkSgd, BadInputExitsWithCode2AndNoManifest) {
  ScratchDir dir;
  auto bad_labels = dir.write("bad.csv", "1,2,0.5\n3,4,1\n");
  const std::string common = " --steps 10 --synthetic-rows 200 --out ";
  const std::string cases[] = {
      "--graph complete:n=10 --variant federated",
      "--graph complete:n=10 --variant network --epsilon 0",
      "--graph complete:n=10 --variant network --delta 1",
      "--graph complete:n=10 --variant network --data " + (dir / "missing.csv").string(),
      "--graph complete:n=10 --variant network --data " + bad_labels,
      "--graph complete:n=10 --variant network --batch 100",
      "--graph complete:n=500 --variant network",  // 160 training rows for 500 users
      "--graph complete:n=10 --variant local --step-size -1",
      "--graph complete:n=10 --variant local --clip-order later",
      "--graph bogus:n=3 --variant local",
      "--variant local",
      "--graph complete:n=10 --variant local --target-mean-loss 1",
      "--graph complete:n=10 --variant network --target-mean-loss 1 --sigma 2",
      "--graph star:n=10 --variant network --target-mean-loss 1",  // uniform on a star: not symmetric
      "--graph complete:n=10 --variant network --after-cap later",
      "--graph complete:n=10 --variant network --node-data coordinates --objective quadratic",
      "--graph rgg:n=10,r=0.6 --variant network --node-data coordinates",  // logistic
  };
  int i = 0;
  for (const auto& args : cases) {
    auto out = dir / ("case" + std::to_string(i++));
    auto r = run_cli("walk-sgd " + args + common + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
}

TEST(CliWalkSgd, MeanLossCalibrationOnTheCompleteGraph) {
  // W = J/n: eps_{u->v}(1) = (T/n) alpha ln(T) / n, the worst observer's mean (n-1)/n of it (docs/math.md
  // §5.3, §5.8); sigma = 2 L sqrt(statistic(1) / target).
  ScratchDir dir;
  auto out = dir / "mean";
  ASSERT_TRUE(run_cli_into(
      "walk-sgd --graph complete:n=50 --variant network --target-mean-loss 0.5 --runs 2 --steps 400 "
      "--synthetic-rows 600 --eval-every 200",
      out, {"curves.csv", "summary.json"}));
  const auto s = read_json(out / "summary.json");
  const double at_one = (400.0 / 50) * 2 * std::log(400.0) / 50 * 49 / 50;
  EXPECT_EQ(s["sigma_source"], "mean-loss");
  EXPECT_NEAR(s["calibration"]["statistic_at_one"].get<double>(), at_one, 1e-9);
  EXPECT_NEAR(s["sigma"].get<double>(), 0.8 * std::sqrt(at_one / 0.5), 1e-9);
  EXPECT_EQ(s["cap"], 10);  // ceil(1.2 T / n), as the search's cap
}

TEST(CliWalkSgd, HeterogeneousDataByDistance) {
  ScratchDir dir;
  auto out = dir / "hetero";
  ASSERT_TRUE(run_cli_into(
      "walk-sgd --graph rgg:n=30,r=0.5,seed=1 --weights metropolis --variant network --objective quadratic "
      "--node-data coordinates --sigma 0.3 --cap 0 --runs 2 --steps 300 --eval-every 100 --step-size 0.2 "
      "--distance-quantiles 4",
      out, {"curves.csv", "summary.json", "by_distance.csv"}));
  const auto rows = read_csv_cells(out / "by_distance.csv");
  ASSERT_EQ(rows.size(), 1u + 4 * 4);  // 4 classes x steps 0, 100, 200, 300
  EXPECT_EQ(rows[0], (std::vector<std::string>{"quantile", "distance_min", "distance_max", "pairs",
                                               "privacy_mean", "step", "discrepancy_mean"}));
  std::int64_t pairs = 0;
  for (std::size_t i = 1; i < rows.size(); i += 4) pairs += std::stoll(rows[i][3]);
  EXPECT_EQ(pairs, 30 * 29 / 2);
  for (std::size_t i = 5; i < rows.size(); ++i)  // classes in increasing distance
    EXPECT_GE(std::stod(rows[i][1]), std::stod(rows[i - 4][2]));
  EXPECT_EQ(std::stod(rows[1][6]), 0.0);  // step 0: every estimate is x_0
  EXPECT_GT(std::stod(rows[1][4]), 0.0);
  EXPECT_EQ(read_json(out / "summary.json")["node_data"], "coordinates");
}

}  // namespace
}  // namespace netdp
