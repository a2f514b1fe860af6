// `netdp walk-loss` end to end: outputs, calibration round trip (docs/math.md §5.8), collusion (5.5), bad
// input.
#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

nlohmann::json summary_of(const fs::path& dir) {
  return testing::read_json(dir / "summary.json");
}

TEST(CliWalkLoss, WritesTheSameLayoutAsGossipLoss) {
  ScratchDir dir;
  auto out = dir / "w";
  auto r =
      run_cli("walk-loss --graph ring:n=12 --steps 60 --method finite --sender known --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file :
       {"loss.npy", "by_distance.csv", "per_observer.csv", "summary.json", "manifest.json"})
    EXPECT_TRUE(fs::exists(out / file)) << file;
  auto loss = read_npy((out / "loss.npy").string());
  Graph g = ring_graph(12);
  WalkLossParams p;
  p.steps = 60;
  p.method = WalkLossMethod::finite;
  p.sender = SenderView::known;
  EXPECT_EQ(loss.values, walk_loss_matrix(g, gossip_matrix(g, Weighting::metropolis), p));
  auto s = summary_of(out);
  EXPECT_EQ(s["method"], "finite");
  EXPECT_EQ(s["sender"], "known");
  EXPECT_DOUBLE_EQ(s["contributions"].get<double>(), 5.0);  // T/n
  EXPECT_EQ(nlohmann::json::parse(read_text((out / "manifest.json").string()))["command"], "walk-loss");
}

TEST(CliWalkLoss, CalibrationMeetsTheTarget) {
  ScratchDir dir;
  for (const char* statistic : {"max-observer", "all-pairs"}) {
    auto out = dir / statistic;
    auto r = run_cli(
        std::string("walk-loss --graph er:n=60,c=1.5,seed=2 --steps 300 --clip --target-mean-loss 0.01 ") +
        "--target-statistic " + statistic + " --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto s = summary_of(out);
    const double sigma = s["calibration"]["sigma"].get<double>();
    EXPECT_DOUBLE_EQ(s["sigma"].get<double>(), sigma);
    // The new key beside the old one (docs/design_models.md "One name, one unit").
    EXPECT_DOUBLE_EQ(s["noise_multiplier"].get<double>(), sigma);
    EXPECT_DOUBLE_EQ(s["calibration"]["noise_multiplier"].get<double>(), sigma);
    // The losses written with the calibrated sigma meet the target.
    const double achieved = std::string(statistic) == "all-pairs" ? s["mean_loss"].get<double>()
                                                                  : s["max_mean_observer_loss"].get<double>();
    EXPECT_NEAR(achieved, 0.01, 1e-12);
    // sigma^2 = statistic(1) / target (losses scale as 1 / sigma^2).
    EXPECT_NEAR(sigma * sigma, s["calibration"]["statistic_at_sigma_1"].get<double>() / 0.01,
                1e-9 * sigma * sigma);
  }
}

TEST(CliWalkLoss, CollusionIsTheSumOfTheWorstObservers) {
  ScratchDir dir;
  auto out = dir / "c";
  auto r = run_cli("walk-loss --graph florentine --steps 150 --colluders 3 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto loss = read_npy((out / "loss.npy").string());
  auto csv = read_text((out / "collusion.csv").string());
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "u,worst_coalition_loss");
  std::istringstream lines(csv.substr(csv.find('\n') + 1));
  std::string line;
  for (int u = 0; u < 15; ++u) {
    ASSERT_TRUE(std::getline(lines, line));
    std::vector<double> row;
    for (int v = 0; v < 15; ++v)
      if (v != u) row.push_back(loss.values[u * 15 + v]);
    std::sort(row.begin(), row.end(), std::greater<>());
    EXPECT_NEAR(std::stod(line.substr(line.find(',') + 1)), row[0] + row[1] + row[2], 1e-14) << u;
  }
}

TEST(CliWalkLoss, BadInputFailsWithExitCode2) {
  ScratchDir dir;
  auto two = dir.write("two.txt", "0 1\n2 3\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"walk-loss --graph ring:n=6 --steps 5 --alpha 1", "alpha"},
      {"walk-loss --graph ring:n=6 --steps 0", "steps"},
      {"walk-loss --graph ring:n=6 --steps 5 --noise-multiplier -1", "noise-multiplier"},
      {"walk-loss --graph file:" + two + " --steps auto", "connected"},
      {"walk-loss --graph file:" + two + " --steps 5", "connected"},
      {"walk-loss --graph ring:n=6 --steps auto --target-mean-loss 0.1", "needs steps T"},
      {"walk-loss --graph ring:n=6 --steps 5 --colluders 6", "colluders"},
      {"walk-loss --graph ring:n=6 --steps 5 --method closed", "method"},
      {"walk-loss --graph ring:n=6 --steps 5 --solver lanczos", "solver"},
      {"walk-loss --graph ring:n=6 --steps 5 --tolerance 0", "tolerance"},
      {"walk-loss --graph ring:n=6 --steps 5 --tolerance 2", "tolerance"},
  };
  for (const auto& [args, fragment] : cases) {
    auto out = dir / "out";
    auto r = run_cli(args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
}

// --solver (docs/walk_loss.md "Solvers"): summary.json says which solver ran, why, its degree, interval and
// error bound; the chebyshev losses are those of the library and within the bound of the eigen ones.
TEST(CliWalkLoss, SummaryReportsTheSolverAndItsErrorBound) {
  ScratchDir dir;
  const std::string graph = "walk-loss --graph hypercube:dim=5 --steps 200 --out ";
  auto r = run_cli(graph + (dir / "c").string() + " --solver chebyshev --tolerance 1e-6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli(graph + (dir / "e").string() + " --solver eigen");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli(graph + (dir / "a").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = summary_of(dir / "c"), e = summary_of(dir / "e"), a = summary_of(dir / "a");
  EXPECT_EQ(c["solver"], "chebyshev");
  EXPECT_EQ(c["solver_rule"], "given");
  EXPECT_GT(c["chebyshev"]["degree"].get<int>(), 0);
  EXPECT_LT(c["chebyshev"]["interval"][1].get<double>(), 1.0);
  const double bound = c["method_error_bound"].get<double>();
  EXPECT_GT(bound, 0.0);
  EXPECT_EQ(e["solver"], "eigen");
  EXPECT_EQ(e["method_error_bound"].get<double>(), 0.0);
  EXPECT_EQ(a["solver"], "eigen");  // n = 32: auto keeps the dense solver
  EXPECT_NE(a["solver_rule"].get<std::string>().find("auto"), std::string::npos);
  const auto lc = read_npy((dir / "c" / "loss.npy").string()),
             le = read_npy((dir / "e" / "loss.npy").string());
  double worst = 0;
  for (std::size_t i = 0; i < lc.values.size(); ++i)
    worst = std::max(worst, std::abs(lc.values[i] - le.values[i]));
  EXPECT_LE(worst, bound);
}

// --no-matrix (both loss commands): the statistics files are those of the run with the matrix, loss.npy is
// absent.
TEST(CliLossCommands, NoMatrixKeepsEveryStatisticAndDropsLossNpy) {
  ScratchDir dir;
  for (const std::string command : {"gossip-loss --steps 6", "walk-loss --steps 40 --clip"}) {
    const std::string base = command + " --graph hypercube:dim=5 --quiet --out ";
    auto with = run_cli(base + (dir / "with").string());
    auto without = run_cli(base + (dir / "without").string() + " --no-matrix");
    ASSERT_EQ(with.exit_code, 0) << with.err;
    ASSERT_EQ(without.exit_code, 0) << without.err;
    EXPECT_TRUE(fs::exists(dir / "with/loss.npy"));
    EXPECT_FALSE(fs::exists(dir / "without/loss.npy")) << command;
    for (const char* file : {"by_distance.csv", "per_observer.csv"})
      EXPECT_EQ(read_text((dir / "with" / file).string()), read_text((dir / "without" / file).string()))
          << file;
    auto a = testing::read_json(dir / "with/summary.json"),
         b = testing::read_json(dir / "without/summary.json");
    EXPECT_EQ(a["mean_loss"], b["mean_loss"]);
    EXPECT_EQ(a["max_loss"], b["max_loss"]);
    EXPECT_TRUE(fs::exists(dir / "without/manifest.json"));
    fs::remove_all(dir / "with");
    fs::remove_all(dir / "without");
  }
}

TEST(CliWalkLoss, WeakConvexityWarningOnStderrUnlessQuietAndAlwaysInTheSummary) {
  ScratchDir dir;
  const std::string base = "walk-loss --graph ring:n=8 --steps 10 --noise-multiplier 1 --alpha 2 --out ";
  auto loud = run_cli(base + (dir / "loud").string());
  ASSERT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_NE(loud.err.find("netdp: warning: sigma^2 = 1 is below the weak-convexity condition"),
            std::string::npos);
  auto quiet = run_cli(base + (dir / "quiet").string() + " --quiet");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(testing::read_json(dir / "quiet/summary.json")["warnings"].size(), 1u);
  // The defaults (noise multiplier 1, the reference figures') are below the condition too: said every time.
  auto defaults = run_cli("walk-loss --graph ring:n=8 --steps 10 --out " + (dir / "defaults").string());
  ASSERT_EQ(defaults.exit_code, 0) << defaults.err;
  EXPECT_NE(defaults.err.find("netdp: warning: sigma^2 = 1 is below the weak-convexity condition"),
            std::string::npos);
  auto fine = run_cli("walk-loss --graph ring:n=8 --steps 10 --noise-multiplier 3 --alpha 2 --out " +
                      (dir / "fine").string());
  EXPECT_EQ(fine.err.find("warning"), std::string::npos);
  EXPECT_TRUE(testing::read_json(dir / "fine/summary.json")["warnings"].empty());
}

// OpenBLAS's threaded GEMM and LAPACK change the last bits with its thread count; netdp calls it
// single-threaded, so the environment's OPENBLAS_NUM_THREADS (or an MPI rank's core binding) cannot change
// any result.
TEST(CliLossCommands, ResultsDoNotDependOnOpenBlasThreads) {
  ScratchDir dir;
  for (const std::string command :
       {"walk-loss --graph hypercube:dim=8 --clip", "gossip-loss --graph complete:n=300 --accounting theorem",
        "gossip-loss --graph er:n=1500,c=2,seed=3 --accounting theorem",
        "gossip-loss --graph er:n=300,c=2,seed=3 --steps 12"}) {  // the last: the exact accountant's GEMMs
    ::setenv("OPENBLAS_NUM_THREADS", "1", 1);                     // inherited by the child process
    auto one = run_cli(command + " --quiet --threads 1 --out " + (dir / "one").string());
    ::unsetenv("OPENBLAS_NUM_THREADS");
    auto two = run_cli(command + " --quiet --threads 2 --out " + (dir / "two").string());
    ASSERT_EQ(one.exit_code, 0) << one.err;
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_TRUE(read_text((dir / "one/loss.npy").string()) == read_text((dir / "two/loss.npy").string()))
        << command;
    auto a = testing::read_json(dir / "one/summary.json"), b = testing::read_json(dir / "two/summary.json");
    EXPECT_EQ(a["lambda_2"], b["lambda_2"]) << command;
    EXPECT_EQ(a["lambda_min"], b["lambda_min"]) << command;
    fs::remove_all(dir / "one");
    fs::remove_all(dir / "two");
  }
}

}  // namespace
}  // namespace netdp
