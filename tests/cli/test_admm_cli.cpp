// `netdp admm` end to end: files and columns, sigma equal to the calibration, the privacy of the summary,
// identical results for 1 and 2 threads, and bad input (exit 2, one line, no manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "netdp/accounting/admm_privacy.hpp"
#include "support/cli_runs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp

TEST(CliAdmm, WritesCurvesAndTheCalibratedSigmaForEverySetting) {
  ScratchDir dir;
  for (const std::string setting : {"centralized", "federated", "walk"}) {
    SCOPED_TRACE(setting);
    auto out = dir / setting;
    ASSERT_TRUE(run_cli_into("admm --setting " + setting +
                                 " --epsilon 2 --users 40 --runs 3 --steps 60 --synthetic-rows 600 "
                                 "--eval-every 20 --seed 4 --threads 2",
                             out, {"curves.csv", "summary.json", "manifest.json"}));
    const auto s = read_json(out / "summary.json");
    AdmmPrivacyParams p;
    p.setting = parse_admm_setting(setting);
    p.users = 40;
    p.sampled = 7;  // the largest m with m / 40 < 1/5
    p.steps = 60;
    p.step_size = 40;  // auto: n, prox step 1
    p.lipschitz = s["lipschitz"].get<double>();
    EXPECT_NEAR(p.lipschitz, std::sqrt(2.0), 1e-12);  // rows of norm 1 and the intercept
    EXPECT_DOUBLE_EQ(s["sigma"].get<double>(), calibrate_admm_sigma(p, 2.0));
    const std::string g = to_string(calibrated_guarantee(p.setting));
    EXPECT_EQ(s["calibrated_guarantee"], g);
    EXPECT_LE(s["privacy"][g]["epsilon"].get<double>(), 2.0);
    EXPECT_EQ(s["privacy"].contains("thm_8_9_federated_local"), setting == "federated");
    EXPECT_EQ(s["dim"], 9);
    const auto curves = read_csv_cells(out / "curves.csv");
    ASSERT_EQ(curves.size(), 5u);  // header, steps 0, 20, 40, 60
    expect_curves_from_zero_model(
        curves, {"step", "objective_mean", "objective_std", "accuracy_mean", "accuracy_std", "distance_mean",
                 "utility_bound", "max_participations_mean"});  // z_0 = 0
    EXPECT_EQ(curves[4][0], "60");
  }
}

TEST(CliAdmm, SameSeedGivesIdenticalCurvesForOneAndTwoThreads) {
  const std::string args =
      "admm --setting walk --objective least-squares --lipschitz 2 --sigma 0.05 --users 20 --runs 4 "
      "--steps 200 --synthetic-rows 300 --eval-every 50 --seed 9 --threads ";
  nlohmann::json s = expect_same_output(args + "1", args + "2", "curves.csv").a;
  EXPECT_EQ(s["sigma_source"], "given");
  EXPECT_TRUE(s["final"]["accuracy"]["mean"].is_null());  // least squares: no accuracy
}

TEST(CliAdmm, CsvDataWithoutNoiseReachesTheOptimum) {
  // Least squares on a CSV file, no noise: z_K reaches theta* (closed form), so phi(z_K) = phi* of the
  // summary; no Lipschitz constant given, so no privacy is reported.
  const CliRun run;
  std::string rows = "a,b,y\n";
  for (int i = 0; i < 60; ++i)
    rows += std::to_string((i * 7) % 11 - 5) + "," + std::to_string((i * 3) % 7) + "," +
            std::to_string(0.5 * (i % 5) - 1) + "\n";
  ASSERT_TRUE(
      run("admm --objective least-squares --sigma 0 --users 6 --steps 400 --relaxation 1 --l2 0.1 "
          "--eval-every 100 --data " +
              run.dir.write("d.csv", rows),
          {"curves.csv", "summary.json"}));
  const auto s = run.summary();
  EXPECT_EQ(s["train_rows"], 48);  // 6 users x floor(48 / 6)
  EXPECT_TRUE(s["privacy"].is_null());
  EXPECT_TRUE(s["lipschitz"].is_null());
  const double optimum = s["optimum"]["objective"].get<double>();
  EXPECT_NEAR(s["final"]["objective"]["mean"].get<double>(), optimum, 1e-10 * (1 + optimum));
  EXPECT_LT(s["final"]["distance"]["mean"].get<double>(), 1e-16);
}

TEST(CliAdmm, BadInputExitsWithCode2AndNoManifest) {
  ScratchDir dir;
  auto bad_labels = dir.write("bad.csv", "1,2,0.5\n3,4,1\n");
  const std::string common = " --steps 10 --synthetic-rows 200";  // 160 training rows, 100 users
  const std::string cases[] = {
      "--setting gossip",
      "--epsilon 0",
      "--delta 1",
      "--users 1",
      "--setting federated --sampled 0",
      "--setting federated --sampled 101",
      "--setting federated --sampled 20",  // m / n = 1/5: Thm E.9 needs m < n/5
      "--objective least-squares",         // no Lipschitz constant to calibrate with
      "--relaxation 0",
      "--relaxation 1.5",
      "--step-size -1",
      "--newton-steps 0",
      "--prox-scale half",
      "--conversion exact",
      "--subsampling-constant 0",
      "--data " + (dir / "missing.csv").string(),
      "--data " + bad_labels,
      "--users 500",                    // fewer synthetic rows than users
      "--users 190",                    // 160 training rows for 190 users
      "--epsilon 1e-9 --setting walk",  // no sigma reaches it (8.12's condition on sigma)
  };
  for (const auto& args : cases) expect_refused("admm " + args + common, dir / "bad");
}

}  // namespace
}  // namespace netdp
