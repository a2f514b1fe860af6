// The bad-input catalogue (docs/reliability.md §1) of the bounds, gossip-er-bound, graph, attack gossip,
// attack dgd, mf-loss, mf-factorize and mf-sgd: each refused case exits 2 with one short line naming the
// fault before any work and leaves no output directory; each run that only the work can stop (a quantity
// overflowing) exits 1 with no NaN in any file and the earlier result whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "netdp/mf/mf_correlation.hpp"
#include "support/bad_inputs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

/// A .npy float64 matrix of `rows` x `cols` entries `values` in the scratch directory.
std::string npy(const ScratchDir& dir, const std::string& name, std::int64_t rows, std::int64_t cols,
                std::vector<double> values) {
  mf::Matrix m(rows, cols);
  m.a = std::move(values);
  const std::string path = (dir / name).string();
  mf::write_npy_matrix(path, m);
  return path;
}

/// Every file of a directory, by name, with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = read_text(entry.path().string());
  return files;
}

/// No text file holds "nan" and no .npy file a NaN.
void expect_no_nan(const fs::path& dir) {
  for (const auto& [name, bytes] : snapshot(dir)) {
    if (name.ends_with(".npy")) {
      for (double x : read_npy((dir / name).string()).values) EXPECT_FALSE(std::isnan(x)) << name;
    } else {
      EXPECT_EQ(bytes.find("nan"), std::string::npos) << name;  // format_double's NaN (JSON has none)
    }
  }
}

/// Runs `good` into OUT, then `bad` into the same OUT: the second exits 1 naming `quantity`, and OUT holds
/// exactly the first run's files, byte for byte, none with a NaN.
void expect_stopped_keeping_earlier(const std::string& good, const std::string& bad,
                                    const std::string& quantity) {
  ScratchDir dir;
  const fs::path out = dir / "out";
  ASSERT_TRUE(run_cli_into(good, out, {"summary.json", "manifest.json"}));
  const auto before = snapshot(out);
  const CliResult r = run_cli(bad + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(quantity), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(snapshot(out), before) << "the earlier result was changed";
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string(), "out") << "a staging directory or lock was left behind";
}

TEST(BadInputsBoundsAttacksMf, MatrixFactorizationCommands) {
  ScratchDir dir;
  // A ring of 4 nodes: W files as `i j w` triplets (every stored entry, the diagonal included).
  const std::string ring = " --graph ring:n=4";
  const std::string half = dir.write("half.txt",
                                     "0 0 0.5\n0 1 0.25\n0 3 0.25\n1 1 0.5\n1 0 0.25\n1 2 0.25\n"
                                     "2 2 0.5\n2 1 0.25\n2 3 0.25\n3 3 0.5\n3 2 0.25\n3 0 0.25\n");
  const std::string rows_of_two = dir.write("two.txt",
                                            "0 0 1\n0 1 0.5\n0 3 0.5\n1 1 1\n1 0 0.5\n1 2 0.5\n"
                                            "2 2 1\n2 1 0.5\n2 3 0.5\n3 3 1\n3 2 0.5\n3 0 0.5\n");
  const std::string negative = dir.write("negative.txt",
                                         "0 0 1.5\n0 1 -0.25\n0 3 -0.25\n1 1 0.5\n1 0 0.25\n1 2 0.25\n"
                                         "2 2 0.5\n2 1 0.25\n2 3 0.25\n3 3 0.5\n3 2 0.25\n3 0 0.25\n");
  const std::string three = dir.write("three.txt", "0 0 0.5\n0 1 0.5\n1 1 0.5\n1 0 0.5\n2 2 1\n");
  const std::string c_nan = npy(dir, "c_nan.npy", 2, 2, {1, 0, NAN, 1});
  const std::string c_3x3 = npy(dir, "c_3x3.npy", 3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  const std::string b_nan = npy(dir, "b_nan.npy", 1, 4, {1, NAN, 0, 0});
  const std::string b_5 = npy(dir, "b_5.npy", 1, 5, {1, 0, 0, 0, 0});
  const std::string b_4 = npy(dir, "b_4.npy", 2, 4, {1, 0, 0, 0, 0, 1, 0, 0});
  std::vector<double> one_row(30000, 0.0);
  one_row[0] = 1;
  const std::string b_wide = npy(dir, "b_wide.npy", 1, 30000, one_row);  // N = T = 30,000: one node
  const std::string a_bad = npy(dir, "a_bad.npy", 3, 4, std::vector<double>(12, 0.0));
  const std::string pi_huge = npy(dir, "pi_huge.npy", 1, 2, {0, 1e300});
  const std::string pi_out = npy(dir, "pi_out.npy", 1, 2, {0, 9});
  const std::string csv_nan = dir.write("nan.csv", "1,2,3\n4,nan,6\n7,8,9\n1,1,1\n");
  const std::string observation = " --trust observation --steps 2 --observation-b ";
  const std::string long_list = std::string(100000, '1');
  expect_refused(
      dir,
      {
          // Integers beyond 32 bits and trailing garbage are refused, never wrapped (issue 29).
          {"mf-factorize steps 2^32 + 1", "mf-factorize --steps 4294967297", "got '4294967297'"},
          {"mf-loss steps 2^31", "mf-loss" + ring + " --steps 2147483648", "got '2147483648'"},
          {"mf-factorize steps with trailing garbage", "mf-factorize --steps 10x", "steps"},
          {"mf-factorize steps 0", "mf-factorize --steps 0", "steps must be >= 1"},
          {"mf-factorize band -1", "mf-factorize --band -1", "band"},
          {"mf-factorize unknown correlation", "mf-factorize --correlation cholesky", "correlation"},
          {"mf-factorize unknown surrogate", "mf-factorize --surrogate other", "surrogate"},
          {"mf-factorize mafalda without a graph", "mf-factorize --correlation mafalda", "graph is required"},
          {"mf-factorize participation not dividing T",
           "mf-factorize --steps 10 --participation cyclic:b=3,k=3", "participation"},
          {"mf-factorize correlation file with NaN", "mf-factorize --steps 2 --correlation file:" + c_nan,
           "correlation"},
          {"mf-factorize correlation file of the wrong shape",
           "mf-factorize --steps 2 --correlation file:" + c_3x3, "correlation"},
          {"mf-factorize missing correlation file",
           "mf-factorize --steps 2 --correlation file:" + (dir / "none.npy").string(), "correlation"},
          {"mf-factorize W rows summing to 2", "mf-factorize" + ring + " --weights file:" + rows_of_two,
           "sums to 2"},
          // Memory: C and its workloads are T x T, held whole (about 36 GB at T = 30,000).
          {"mf-factorize T x T beyond the memory", "mf-factorize --steps 30000", "held at once"},
          {"mf-loss noise multiplier whose square underflows",
           "mf-loss" + ring + " --noise-multiplier 1e-200", "too small"},
          {"mf-loss noise multiplier inf", "mf-loss" + ring + " --noise-multiplier inf", "noise-multiplier"},
          {"mf-loss alpha 1", "mf-loss" + ring + " --alpha 1", "alpha"},
          {"mf-loss delta 1.5", "mf-loss" + ring + " --delta 1.5", "delta"},
          {"mf-loss attacker beyond the graph", "mf-loss" + ring + " --attackers 9", "node 9"},
          {"mf-loss attacker listed twice", "mf-loss" + ring + " --attackers 1,1", "listed twice"},
          {"mf-loss a 100 kB attackers list", "mf-loss" + ring + " --attackers " + long_list + "x",
           "attackers"},
          {"mf-loss W not stochastic", "mf-loss" + ring + " --weights file:" + rows_of_two, "sums to 2"},
          {"mf-loss W with a negative entry", "mf-loss" + ring + " --weights file:" + negative, "negative"},
          {"mf-loss W of 3 nodes on 4", "mf-loss" + ring + " --weights file:" + three, "weights"},
          {"mf-loss missing W file", "mf-loss" + ring + " --weights file:" + (dir / "none.txt").string(),
           "none.txt"},
          {"mf-loss baseline muffliato under ldp", "mf-loss" + ring + " --trust ldp --baseline muffliato",
           "baseline"},
          {"mf-loss observation file the run would ignore", "mf-loss" + ring + " --observation-b " + b_4,
           "only used by --trust observation"},
          {"mf-loss trust observation without B", "mf-loss --trust observation --steps 2",
           "observation-b is required"},
          {"mf-loss observation B with NaN", "mf-loss" + observation + b_nan, "observation-b"},
          {"mf-loss observation B columns not a multiple of T", "mf-loss" + observation + b_5,
           "not a multiple of T"},
          {"mf-loss observation A of the wrong shape",
           "mf-loss" + observation + b_4 + " --observation-a " + a_bad, "A must be 2 x 4"},
          {"mf-loss observation set index 1e300",
           "mf-loss" + observation + b_4 + " --observation-pi " + pi_huge, "index 1e+300 is not a column"},
          {"mf-loss observation set index beyond N",
           "mf-loss" + observation + b_4 + " --observation-pi " + pi_out, "index 9 is not a column"},
          {"mf-loss trust observation T x T beyond the memory",
           "mf-loss --trust observation --steps 30000 --observation-b " + b_wide, "held at once"},
          {"mf-sgd step size inf", "mf-sgd" + ring + " --step-size inf", "step-size"},
          {"mf-sgd without a graph", "mf-sgd --steps 4", "graph is required"},
          {"mf-sgd W rows summing to 2", "mf-sgd" + ring + " --steps 4 --weights file:" + rows_of_two,
           "sums to 2"},
          {"mf-sgd missing data file", "mf-sgd" + ring + " --steps 4 --data " + (dir / "none.csv").string(),
           "none.csv"},
          {"mf-sgd data with NaN", "mf-sgd" + ring + " --steps 4 --data " + csv_nan, "not finite"},
          {"mf-sgd synthetic rows beyond 2^31", "mf-sgd" + ring + " --steps 4 --synthetic-rows 4294967896",
           "synthetic-rows"},
          {"mf-sgd runs 2^32 + 1", "mf-sgd" + ring + " --steps 4 --runs 4294967297", "runs"},
          {"mf-sgd T x T beyond the memory", "mf-sgd" + ring + " --steps 30000", "held at once"},
      });
}

TEST(BadInputsBoundsAttacksMf, AttackCommands) {
  ScratchDir dir;
  const std::string rows_of_two = dir.write("two.txt",
                                            "0 0 1\n0 1 0.5\n0 3 0.5\n1 1 1\n1 0 0.5\n1 2 0.5\n"
                                            "2 2 1\n2 1 0.5\n2 3 0.5\n3 3 1\n3 2 0.5\n3 0 0.5\n");
  const std::string csv_nan = dir.write("nan.csv", "1,2\n3,nan\n5,6\n7,8\n");
  const std::string csv_short = dir.write("short.csv", "1,2\n3,4\n");
  const std::string gossip = "attack gossip --graph ring:n=4 --steps 3";
  const std::string dgd = "attack dgd --graph ring:n=4 --steps 2";
  expect_refused(
      dir,
      {
          {"gossip attacker beyond the graph", gossip + " --attackers 7", "out of range"},
          {"gossip attacker listed twice", gossip + " --attackers 1,1", "listed twice"},
          {"gossip a 100 kB attackers list", gossip + " --attackers " + std::string(100000, 'x'), "..."},
          {"gossip random:K beyond n", gossip + " --attackers random:9", "random:K"},
          {"gossip W rows summing to 2", gossip + " --method float --weights file:" + rows_of_two,
           "sums to 2"},
          {"gossip exact method on a W file", gossip + " --weights file:" + rows_of_two, "method exact"},
          {"gossip centralities without attackers all", gossip + " --centralities",
           "only used by --attackers all"},
          {"gossip delta without sigma", gossip + " --delta 0.1", "give sigma too"},
          {"gossip sigma with the float method", gossip + " --method float --sigma 1", "method exact"},
          {"gossip steps 0", "attack gossip --graph ring:n=4 --steps 0", "steps"},
          {"gossip steps 2^32 + 1", "attack gossip --graph ring:n=4 --steps 4294967297", "steps"},
          {"gossip dynamic 1", gossip + " --dynamic 1", "dynamic"},
          {"gossip sigma 1e309", gossip + " --sigma 1e309", "sigma"},
          {"dgd attacker beyond the graph", dgd + " --attackers 9", "out of range"},
          {"dgd attackers all", dgd + " --attackers all", "not all"},
          {"dgd W from a file", dgd + " --weights file:" + rows_of_two, "named weighting"},
          {"dgd data with the assumption objective", dgd + " --data " + csv_nan, "takes no data"},
          {"dgd missing data file", dgd + " --objective least-squares --data " + (dir / "none.csv").string(),
           "none.csv"},
          {"dgd data with NaN", dgd + " --objective least-squares --data " + csv_nan, "not finite"},
          {"dgd fewer data rows than nodes", dgd + " --objective least-squares --data " + csv_short, "data"},
          {"dgd steps beyond 1e5", "attack dgd --graph ring:n=4 --steps 100001", "steps"},
          {"dgd unknown init", dgd + " --init ones", "init"},
      });
}

TEST(BadInputsBoundsAttacksMf, BoundsGraphAndErBound) {
  ScratchDir dir;
  const std::string three = dir.write("three.txt", "0 0 0.5\n0 1 0.5\n1 1 0.5\n1 0 0.5\n2 2 1\n");
  expect_refused(
      dir,
      {
          // Issue 29: steps 0 used to exit 0 for these two.
          {"complete-sum steps 0", "bound complete-sum --n 100 --steps 0", "steps must be > 0"},
          {"sgd-sigma steps 0", "bound sgd-sigma --n 100 --steps 0", "steps must be > 0"},
          {"complete-sum steps and steps-per-node",
           "bound complete-sum --n 100 --steps 10 --steps-per-node 2", "exclude"},
          {"complete-sum n inf", "bound complete-sum --n inf", "n"},
          {"complete-sum no n", "bound complete-sum", "n is required"},
          {"complete-sum logspace of two numbers", "bound complete-sum --n-logspace 1,2", "n-logspace"},
          {"complete-sum unknown composition", "bound complete-sum --n 100 --composition best",
           "composition"},
          {"complete-histogram categories 2^32 + 1",
           "bound complete-histogram --n 100 --categories 4294967297", "categories"},
          {"ring-sum turns 2^32 + 1", "bound ring-sum --n 10 --turns 4294967297", "turns"},
          {"ring-sum colluders 0", "bound ring-sum --n 10 --colluders 0", "colluders"},
          {"sgd-rdp slope factor 3", "bound sgd-rdp --n 100 --slope-factor 3", "slope-factor"},
          {"er-bound source beyond the graph", "gossip-er-bound --graph ring:n=5 --steps 3 --source 9",
           "source 9"},
          {"er-bound sigma whose square underflows",
           "gossip-er-bound --graph ring:n=5 --steps 3 --sigma 1e-200", "too small"},
          {"er-bound q and er-c", "gossip-er-bound --graph ring:n=5 --steps 3 --q 0.5 --er-c 1", "exclude"},
          {"er-bound steps 2^32 + 1", "gossip-er-bound --graph ring:n=5 --steps 4294967297", "steps"},
          {"er-bound one node", "gossip-er-bound --graph complete:n=1 --steps 3", "at least 2 nodes"},
          {"graph W of 3 nodes on 4", "graph --graph ring:n=4 --weights file:" + three, "weights"},
          {"graph unknown family", "graph --graph nosuch:n=3", "nosuch"},
          {"graph diameter limit with garbage", "graph --graph ring:n=4 --diameter-limit 12abc",
           "diameter-limit"},
      });
}

// Issue 29: --dry-run and a study's validation (and Python's check(), the same Model::check) skipped the
// attacker-against-graph check of mf-loss and attack dgd and the input files; the run then exited 1.
TEST(BadInputsBoundsAttacksMf, StudyValidationSeesWhatTheRunWouldFind) {
  ScratchDir dir;
  const auto study = [&](const std::string& name, const std::string& model, const std::string& params) {
    return dir.write(
        name, "[[experiment]]\nname = \"e\"\nmodel = \"" + model + "\"\n[experiment.params]\n" + params);
  };
  const std::string two = dir.write("two.txt",
                                    "0 0 1\n0 1 0.5\n0 3 0.5\n1 1 1\n1 0 0.5\n1 2 0.5\n"
                                    "2 2 1\n2 1 0.5\n2 3 0.5\n3 3 1\n3 2 0.5\n3 0 0.5\n");
  const auto mf_attacker = study("mf.toml", "mf-loss", "graph = \"ring:n=5\"\nattackers = \"9\"\n");
  const auto dgd_attacker =
      study("dgd.toml", "attack dgd", "graph = \"ring:n=5\"\nsteps = 2\nattackers = \"7\"\n");
  const auto dgd_data = study("data.toml", "attack dgd",
                              "graph = \"ring:n=5\"\nsteps = 2\nobjective = \"least-squares\"\ndata = \"" +
                                  (dir / "none.csv").string() + "\"\n");
  const auto sgd_w =
      study("w.toml", "mf-sgd", "graph = \"ring:n=4\"\nsteps = 4\nweights = \"file:" + two + "\"\n");
  const auto gossip_w =
      study("gw.toml", "attack gossip",
            "graph = \"ring:n=4\"\nsteps = 2\nmethod = \"float\"\nweights = \"file:" + two + "\"\n");
  std::vector<BadInput> cases;
  for (const char* flags : {" --dry-run", ""}) {
    cases.push_back({"mf-loss attacker 9 on n = 5", "run " + mf_attacker + flags, "node 9"});
    cases.push_back({"attack dgd attacker 7 on n = 5", "run " + dgd_attacker + flags, "node 7"});
    cases.push_back({"attack dgd missing data file", "run " + dgd_data + flags, "none.csv"});
    cases.push_back({"mf-sgd W rows summing to 2", "run " + sgd_w + flags, "sums to 2"});
    cases.push_back({"attack gossip W rows summing to 2", "run " + gossip_w + flags, "sums to 2"});
  }
  expect_refused(dir, cases);
}

// Exit 1 (only the work can tell): the quantity that overflows is named, nothing NaN is written and the
// earlier result in --out stays whole (the run writes into a staging directory, docs/outputs.md §1.1).
TEST(BadInputsBoundsAttacksMf, OverflowsStopTheRunAndKeepTheEarlierResult) {
  const std::string sgd = "mf-sgd --graph ring:n=4 --steps 4 --runs 1 --synthetic-rows 40";
  expect_stopped_keeping_earlier(sgd, sgd + " --step-size 1e300", "lower step-size");
  const std::string dgd = "attack dgd --graph ring:n=4 --steps 2";
  expect_stopped_keeping_earlier(dgd + " --sigma 1", dgd + " --sigma 1e308", "lower sigma");
  // An ill-conditioned correlation overflows C^-1: LAPACK refused the NaN inside an OpenMP loop and the
  // program aborted (exit 134), or the infinities reached a NaN mean with exit 0.
  ScratchDir dir;
  const std::string good = npy(dir, "good.npy", 2, 2, {1, 0, 0.5, 1});
  const std::string loss = "mf-loss --graph ring:n=4 --steps 2 --correlation file:";
  expect_stopped_keeping_earlier(loss + good, loss + npy(dir, "overflow.npy", 2, 2, {1e-160, 0, 1e160, 1}),
                                 "use a better-conditioned correlation");
  expect_stopped_keeping_earlier(loss + good, loss + npy(dir, "inf.npy", 2, 2, {1e200, 0, 1e300, 1e-200}),
                                 "use a better-conditioned correlation");
}

TEST(BadInputsBoundsAttacksMf, FinishedRunsWriteNoNan) {
  ScratchDir dir;
  ASSERT_TRUE(run_cli_into("mf-loss --graph ring:n=4 --steps 3 --noise-multiplier 1e-100 --delta 1e-5",
                           dir / "loss", {"loss.npy", "epsilon.npy"}));
  expect_no_nan(dir / "loss");
  ASSERT_TRUE(
      run_cli_into("attack dgd --graph ring:n=4 --steps 2 --sigma 1e100", dir / "dgd", {"nodes.csv"}));
  expect_no_nan(dir / "dgd");
}

}  // namespace
}  // namespace netdp
