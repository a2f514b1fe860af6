// The bad-input catalogue (docs/reliability.md §1) of the gossip and learning commands: gossip-sim,
// muffliato-gd, walk-sim, walk-sgd, muffliato-sgd and admm. Each refused case exits 2 with one short line
// naming the fault and leaves no output directory (tests/support/bad_inputs.hpp); each run that only the
// work can stop exits 1, writes no NaN and leaves the earlier result whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/bad_inputs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp, bad_inputs.hpp
namespace fs = std::filesystem;

/// The files the cases read: W files on ring:n=6, data CSVs, a disconnected graph.
struct Inputs {
  std::string two_components, identity_w, reducible_w, heavy_w, one_sided_w, small_w, nan_csv, inf_csv,
      short_row_csv, label_csv, beyond_csv;
  explicit Inputs(const ScratchDir& dir) {
    two_components = dir.write("two_components.txt", "0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n");
    std::string identity, heavy, one_sided;
    for (int i = 0; i < 6; ++i) {
      const int next = (i + 1) % 6, previous = (i + 5) % 6;
      identity += std::to_string(i) + " " + std::to_string(i) + " 1\n";
      // rows summing to 1.5: not stochastic
      heavy += std::to_string(i) + " " + std::to_string(i) + " 0.9\n" + std::to_string(i) + " " +
               std::to_string(next) + " 0.3\n" + std::to_string(i) + " " + std::to_string(previous) +
               " 0.3\n";
      // rows summing to 1, but W is not symmetric
      one_sided += std::to_string(i) + " " + std::to_string(i) + " 0.5\n" + std::to_string(i) + " " +
                   std::to_string(next) + " 0.5\n";
    }
    identity_w = dir.write("identity_w.txt", identity);
    heavy_w = dir.write("heavy_w.txt", heavy);
    one_sided_w = dir.write("one_sided_w.txt", one_sided);
    // {0, 1, 2} and {3, 4, 5} never exchange: symmetric, doubly stochastic, on the ring's edges, reducible.
    reducible_w = dir.write("reducible_w.txt",
                            "0 0 0.5\n0 1 0.5\n1 0 0.5\n1 2 0.5\n2 1 0.5\n2 2 0.5\n"
                            "3 3 0.5\n3 4 0.5\n4 3 0.5\n4 5 0.5\n5 4 0.5\n5 5 0.5\n");
    small_w = dir.write("small_w.txt", "0 0 0.5\n0 1 0.5\n1 0 0.5\n1 1 0.5\n");  // 2 x 2 for 6 nodes
    std::string rows = "x1,x2,y\n";
    for (int i = 0; i < 40; ++i) rows += std::to_string(i % 7) + "," + std::to_string(i % 3) + "," + "1\n";
    nan_csv = dir.write("nan.csv", "x1,x2,y\n1,2,1\nnan,1,-1\n" + rows.substr(8));
    inf_csv = dir.write("inf.csv", "x1,x2,y\n1,2,1\n3,inf,-1\n" + rows.substr(8));
    short_row_csv = dir.write("short_row.csv", "x1,x2,y\n1,2,1\n3,-1\n" + rows.substr(8));
    label_csv = dir.write("label.csv", "x1,x2,y\n1,2,1\n3,4,0.5\n" + rows.substr(8));
    // No header: 1e400 is a number beyond a double, not a header's text (it used to be skipped as one).
    beyond_csv = dir.write("beyond.csv", "1e400,2,1\n" + rows.substr(8));
  }
};

TEST(BadInputsLearning, GossipSimRefusesBeforeWork) {
  ScratchDir dir;
  const Inputs in(dir);
  const std::string base = "gossip-sim --graph ring:n=6 --steps 3";
  expect_refused(
      dir,
      {
          {"steps beyond 32 bits", "gossip-sim --graph ring:n=6 --steps 4294967297", "steps"},
          {"runs beyond 64 bits", base + " --runs 99999999999999999999", "runs"},
          {"steps with trailing garbage", "gossip-sim --graph ring:n=6 --steps 3x", "steps"},
          {"sigma inf", base + " --sigma inf", "sigma"},
          {"sigma nan", base + " --sigma nan", "sigma"},
          {"dropout without protocol dropout", base + " --dropout 0.2",
           "--dropout is only used by --protocol dropout"},
          {"er-c without protocol er-per-round", base + " --er-c 2",
           "--er-c is only used by --protocol er-per-round"},
          {"quantiles without privacy", base + " --quantiles 0.5", "--quantiles is only used by --privacy"},
          {"cap with exact accounting", base + " --privacy --cap none",
           "--cap is only used by --accounting theorem"},
          {"privacy source beyond n", base + " --privacy --source 6", "source"},
          // gossip-loss --alpha 1e308 wrote NaN means: a one-message loss whose sum over the run overflows
          {"privacy alpha 1e308", base + " --privacy --alpha 1e308",
           "--alpha Delta^2 / (2 sigma^2) = 5e+307"},
          {"privacy sigma 1e-200", base + " --privacy --sigma 1e-200",
           "--sigma: alpha Delta^2 / (2 sigma^2) = inf"},
          {"unknown protocol", base + " --protocol push-sum", "protocol"},
          {"W file not stochastic", base + " --weights file:" + in.heavy_w, "weights"},
          {"W file not symmetric", base + " --weights file:" + in.one_sided_w, "symmetric"},
          {"W file of the wrong size", base + " --weights file:" + in.small_w, "weights"},
          {"threads beyond what OpenMP allows", base + " --threads 100000", "threads must be at most"},
          {"memory-limit beyond 2^63 bytes", base + " --memory-limit 1e30", "memory-limit"},
      });
}

TEST(BadInputsLearning, MuffliatoGdRefusesBeforeWork) {
  ScratchDir dir;
  const Inputs in(dir);
  const std::string base = "muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2";
  const std::string logistic = base + " --objective logistic --data ";
  expect_refused(
      dir, {
               {"cuda for an accountant with no CUDA twin",
                base + " --dim 2 --gradient-noise 1 --accounting theorem --device cuda",
                "only the exact accountant"},
               {"step-size inf", base + " --dim 2 --step-size inf", "step-size"},
               {"steps beyond 32 bits",
                "muffliato-gd --graph ring:n=6 --steps 4294967297 --gossip-rounds 2 --dim 2", "steps"},
               {"missing data file", logistic + (dir / "missing.csv").string(), "cannot open"},
               {"nan in the data", logistic + in.nan_csv, "line 3: value 1 is not finite"},
               {"inf in the data", logistic + in.inf_csv, "line 3: value 2 is not finite"},
               {"1e400 on the first line", logistic + in.beyond_csv,
                "beyond.csv, line 1: value 1 (1e400) is beyond the range of a double"},
               {"a short data row", logistic + in.short_row_csv, "line 3"},
               {"a label neither -1 nor +1", logistic + in.label_csv, "label must be -1 or +1"},
               {"W file not symmetric", base + " --dim 2 --weights file:" + in.one_sided_w, "symmetric"},
               {"privacy source beyond n", base + " --dim 2 --gradient-noise 1 --source 9", "source"},
               {"er-c 0", base + " --dim 2 --er-c 0", "er-c"},
               {"unknown objective", base + " --dim 2 --objective cubic", "objective"},
           });
}

TEST(BadInputsLearning, WalkSimRefusesBeforeWork) {
  ScratchDir dir;
  const Inputs in(dir);
  const std::string base = "walk-sim --graph ring:n=6 --steps 10 --runs 2";
  expect_refused(
      dir, {
               {"disconnected graph", "walk-sim --steps 10 --runs 2 --graph file:" + in.two_components,
                "walk-sim needs a connected graph"},
               {"W = I on a connected ring", base + " --weights file:" + in.identity_w, "W = I"},
               {"a reducible W on a connected ring", base + " --weights file:" + in.reducible_w,
                "the walk is reducible"},
               {"W rows summing to 1.5", base + " --weights file:" + in.heavy_w, "weights"},
               {"start beyond n", base + " --start node:6", "node:6"},
               {"eps0 inf", base + " --eps0 inf", "eps0"},
               {"delta 1", base + " --delta 1", "delta"},
               {"quantile above 1", base + " --quantiles 0.5,1.5", "quantiles"},
               {"steps beyond 64 bits", "walk-sim --graph ring:n=6 --runs 2 --steps 99999999999999999999",
                "steps"},
               {"directed ring on a complete graph",
                "walk-sim --graph complete:n=5 --steps 10 --runs 2 --weights directed-ring", "directed-ring"},
               {"unknown mechanism", base + " --mechanism laplace", "mechanism"},
           });
}

TEST(BadInputsLearning, WalkSgdRefusesBeforeWork) {
  ScratchDir dir;
  const Inputs in(dir);
  const std::string base = "walk-sgd --graph ring:n=6 --steps 20 --synthetic-rows 60";
  expect_refused(
      dir,
      {
          {"disconnected graph", "walk-sgd --steps 20 --synthetic-rows 60 --graph file:" + in.two_components,
           "walk-sgd needs a connected graph"},
          {"mean-loss target for the local variant", base + " --target-mean-loss 0.5 --variant local",
           "network variant"},
          {"mean-loss target and sigma", base + " --target-mean-loss 0.5 --sigma 1", "exclude each other"},
          {"nan in the data", base + " --data " + in.nan_csv, "nan.csv, line 3: value 1 is not finite"},
          {"a short data row", base + " --data " + in.short_row_csv, "line 3"},
          {"coordinates without objective quadratic", base + " --node-data coordinates",
           "needs objective quadratic"},
          {"synthetic-rows beyond 32 bits",
           "walk-sgd --graph ring:n=6 --steps 20 --synthetic-rows 4294967896",
           "--synthetic-rows: expected an integer in [-2147483648, 2147483647]"},
          {"synthetic rows beyond the memory",
           "walk-sgd --graph ring:n=6 --steps 20 --synthetic-rows 2000000000", "needs about"},
          {"epsilon inf", base + " --epsilon inf", "epsilon"},
          {"step-size beyond a double", base + " --step-size 1e400", "step-size"},
          {"W rows summing to 1.5", base + " --weights file:" + in.heavy_w, "weights"},
          {"threads beyond what OpenMP allows", base + " --threads 100000", "threads must be at most"},
      });
}

TEST(BadInputsLearning, MuffliatoSgdRefusesBeforeWork) {
  ScratchDir dir;
  const Inputs in(dir);
  const std::string base = "muffliato-sgd --graph ring:n=6 --steps 2 --synthetic-rows 60";
  expect_refused(
      dir,
      {
          {"neither sigma nor a target", base, "give target-mean-loss > 0 or sigma"},
          {"gossip-steps beyond 32 bits", base + " --sigma 1 --gossip-steps 4294967297", "gossip-steps"},
          {"W file not symmetric", base + " --sigma 1 --weights file:" + in.one_sided_w, "symmetric"},
          {"nan in the data", base + " --sigma 1 --data " + in.nan_csv, "value 1 is not finite"},
          {"participations beyond 2^23",
           "muffliato-sgd --graph ring:n=6 --synthetic-rows 60 --sigma 1 --steps 9000000", "steps"},
          {"synthetic rows beyond the memory",
           "muffliato-sgd --graph ring:n=6 --steps 2 --sigma 1 --synthetic-rows 2000000000", "needs about"},
      });
}

TEST(BadInputsLearning, AdmmRefusesBeforeWork) {
  ScratchDir dir;
  const Inputs in(dir);
  const std::string base = "admm --users 10 --steps 5 --synthetic-rows 100";
  expect_refused(dir,
                 {
                     {"synthetic-rows beyond 32 bits (trained on 600 rows)",
                      "admm --users 10 --steps 5 --synthetic-rows 4294967896", "got '4294967896'"},
                     {"sampled above users", base + " --setting federated --sampled 11", "sampled"},
                     {"least-squares without lipschitz", base + " --objective least-squares", "lipschitz"},
                     {"fewer rows than users", "admm --users 10 --steps 5 --synthetic-rows 5",
                      "synthetic-rows must be >= users"},
                     {"nan in the data", base + " --data " + in.nan_csv, "value 1 is not finite"},
                     {"epsilon nan", base + " --epsilon nan", "epsilon"},
                     {"relaxation 2", base + " --relaxation 2", "relaxation"},
                     {"unknown conversion", base + " --conversion weird", "conversion"},
                 });
}

/// Every file under `dir`, read whole.
std::string all_text(const fs::path& dir) {
  std::string text;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) {
      std::ifstream in(e.path());
      std::stringstream s;
      s << in.rdbuf();
      text += s.str();
    }
  return text;
}

// What only the work can tell: a run whose running quantities overflow stops with exit 1 and one line naming
// the quantity and the option, writes no NaN, and leaves the earlier result in --out whole.
TEST(BadInputsLearning, OverflowStopsTheRunAndKeepsTheEarlierResult) {
  ScratchDir dir;
  struct Case {
    const char* name;
    std::string good, bad;  // the same command, the second overflowing
    const char* message;
  };
  const std::vector<Case> cases = {
      {"walk-sgd step-size 1e300", "walk-sgd --graph ring:n=6 --steps 40 --synthetic-rows 60",
       "walk-sgd --graph ring:n=6 --steps 40 --synthetic-rows 60 --step-size 1e300", "step-size"},
      {"muffliato-gd alpha 1e308",
       "muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2 --dim 2 --gradient-noise 1",
       "muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2 --dim 2 --gradient-noise 1 --alpha 1e308",
       "the mean pairwise loss"},
      {"muffliato-gd step-size 1e308", "muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2 --dim 2",
       "muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2 --dim 2 --step-size 1e308", "step-size"},
      {"muffliato-sgd step-size 1e308",
       "muffliato-sgd --graph ring:n=6 --steps 2 --synthetic-rows 60 --sigma 1",
       "muffliato-sgd --graph ring:n=6 --steps 2 --synthetic-rows 60 --sigma 1 --step-size 1e308",
       "step-size"},
      {"gossip-sim sigma 1e200", "gossip-sim --graph ring:n=6 --steps 3",
       "gossip-sim --graph ring:n=6 --steps 3 --sigma 1e200", "sigma"},
      {"admm sigma 1e200", "admm --users 10 --steps 5 --synthetic-rows 100",
       "admm --users 10 --steps 5 --synthetic-rows 100 --sigma 1e200", "sigma"},
      {"muffliato-sgd sigma 1e200", "muffliato-sgd --graph ring:n=6 --steps 2 --synthetic-rows 60 --sigma 1",
       "muffliato-sgd --graph ring:n=6 --steps 2 --synthetic-rows 60 --sigma 1e200", "sigma"},
  };
  for (const auto& c : cases) {
    const fs::path out = dir / (std::string("out-") + std::to_string(&c - cases.data()));
    const CliResult good = run_cli(c.good + " --quiet --out " + out.string());
    ASSERT_EQ(good.exit_code, 0) << c.name << ": " << good.err;
    const std::string before = all_text(out);
    ASSERT_NE(before.find("\"model\""), std::string::npos) << c.name;
    const CliResult bad = run_cli(c.bad + " --quiet --out " + out.string());
    EXPECT_EQ(bad.exit_code, 1) << c.name << ": " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << c.name << ": " << bad.err;
    EXPECT_NE(bad.err.find(c.message), std::string::npos) << c.name << ": " << bad.err;
    EXPECT_TRUE(bad.err.find(" is infinite") != std::string::npos ||
                bad.err.find(" is NaN") != std::string::npos)
        << c.name << ": " << bad.err;
    const std::string after = all_text(out);
    // The files are the earlier run's, byte for byte: the refused run wrote nothing (no NaN) into --out.
    EXPECT_EQ(after, before) << c.name << ": the earlier result must stay whole";
    EXPECT_EQ(after.find("inf"), std::string::npos) << c.name;  // nor an infinite value
    for (const auto& e :
         fs::directory_iterator(dir.path()))  // no staging sibling (.out-N.tmp-PID) left behind
      EXPECT_NE(e.path().filename().string().rfind("." + out.filename().string() + ".", 0), 0u)
          << c.name << ": " << e.path();
  }
}

}  // namespace
}  // namespace netdp
