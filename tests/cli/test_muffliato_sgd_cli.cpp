// `netdp muffliato-sgd` end to end: files and columns, sigma from the eq. 6.4 mean loss (accounting theorem)
// and from the LDP composition (the default) by hand, both values reported, and bad input (exit 2, one line,
// no manifest).
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
      "--runs 3 --synthetic-rows 400 --threads 2 --accounting theorem");
  ASSERT_TRUE(run.ok);
  const auto s = run.summary();
  EXPECT_NEAR(s["calibration"]["statistic_at_one"].get<double>(), at_one, 1e-12);
  EXPECT_NEAR(s["sigma"].get<double>(), 0.8 * std::sqrt(at_one / 0.5), 1e-12);
  EXPECT_NEAR(s["mean_loss"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(s["gossip_steps"], 3);
  const auto curves = read_csv_cells(run.out / "curves.csv");
  ASSERT_EQ(curves.size(), 6u);  // header, participations 0..4
  expect_curves_from_zero_model(
      curves, {"step", "objective_mean", "objective_std", "accuracy_mean", "accuracy_std", "consensus_mean"});
}

// The default accounting (docs/muffliato_sgd.md "Accounting"): the LDP composition, every pair P alpha
// Delta^2 / (2 sigma^2). Ring n = 20, P = 4, alpha = 2, Delta = 2 L = 0.8: the worst observer's mean at
// multiplier 1 is (n - 1)/n P alpha / 2 = 3.8, so sigma = 0.8 sqrt(3.8 / 0.5) spends exactly the target; the
// mean over ordered pairs is P alpha / 2 = 4. Eq. 6.4's value (1.2 at multiplier 1, K d = 6 < n - 1) is
// reported beside it and is smaller; accounting theorem warns on stderr and in summary.json, ldp does not.
TEST(CliMuffliatoSgd, LdpCalibrationIsExactAndAtLeastTheTheorem) {
  ScratchDir dir;
  const std::string common =
      "muffliato-sgd --graph ring:n=20 --target-mean-loss 0.5 --steps 4 --gossip-steps 3 --runs 1 "
      "--synthetic-rows 400 --delta 1e-5";
  auto out = dir / "ldp";
  auto r = run_cli(common + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = read_json(out / "summary.json");
  const double sigma = 0.8 * std::sqrt(3.8 / 0.5);
  EXPECT_EQ(s["accounting"], "ldp");
  EXPECT_NEAR(s["sigma"].get<double>(), sigma, 1e-12 * sigma);
  EXPECT_NEAR(s["mean_loss"].get<double>(), 0.5, 1e-12);
  const auto& ldp = s["privacy"]["ldp"];
  EXPECT_NEAR(ldp["mean_loss"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(ldp["pair_loss"].get<double>(), 4 * 2 * 0.64 / (2 * sigma * sigma), 1e-12);
  const double mu = 2 * 0.8 / sigma;  // sqrt(P) Delta / sigma
  EXPECT_NEAR(ldp["mu"].get<double>(), mu, 1e-12);
  // epsilon at delta on the analytic Gaussian curve: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu -
  // mu/2).
  const double eps = ldp["epsilon_at_delta"]["epsilon"].get<double>();
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  EXPECT_NEAR(phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2), 1e-5, 1e-10);
  const auto& thm = s["privacy"]["theorem"];
  EXPECT_NEAR(thm["mean_loss"].get<double>(), 1.2 * 0.64 / (sigma * sigma), 1e-12);
  EXPECT_GE(ldp["mean_loss"].get<double>(), thm["mean_loss"].get<double>());
  EXPECT_FALSE(s.contains("warnings"));
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_EQ(read_json(out / "manifest.json")["parameters"]["accounting"], "ldp");

  auto pairs = dir / "pairs";  // the mean over ordered pairs: every pair's loss, P alpha / 2 at multiplier 1
  r = run_cli(common + " --target-statistic all-pairs --out " + pairs.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  s = read_json(pairs / "summary.json");
  EXPECT_NEAR(s["sigma"].get<double>(), 0.8 * std::sqrt(4.0 / 0.5), 1e-12);
  EXPECT_NEAR(s["privacy"]["ldp"]["pair_loss"].get<double>(), 0.5, 1e-12);

  auto thm_out = dir / "theorem";  // the same target by eq. 6.4: less noise, and the valid bound above it
  r = run_cli(common + " --accounting theorem --out " + thm_out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  s = read_json(thm_out / "summary.json");
  EXPECT_NEAR(s["sigma"].get<double>(), 0.8 * std::sqrt(1.2 / 0.5), 1e-12);
  EXPECT_NEAR(s["privacy"]["theorem"]["mean_loss"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(s["privacy"]["ldp"]["mean_loss"].get<double>(), 0.5 * 3.8 / 1.2, 1e-12);
  ASSERT_EQ(s["warnings"].size(), 1u);
  EXPECT_NE(s["warnings"][0].get<std::string>().find("not an upper bound"), std::string::npos);
  EXPECT_NE(r.err.find("netdp: warning: the mean loss of eq. 6.4"), std::string::npos) << r.err;

  // After-noise clipping: the default Delta = 2 L does not bound what is released; said, not hidden.
  auto after = dir / "after";
  r = run_cli(common + " --clip-order after-noise --out " + after.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_json(after / "summary.json")["warnings"][0].get<std::string>().find("after-noise"),
            std::string::npos);
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
      "--graph ring:n=10 --sigma 1 --accounting exact",  // no exact view: logistic with clipping
      "--graph ring:n=10 --sigma 1 --delta 1",
      "--graph ring:n=10 --sigma 1 --clip 0",  // Delta = 2 L = 0 would claim no loss
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
