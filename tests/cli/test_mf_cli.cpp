// netdp mf-loss and mf-factorize from the command line (docs/mf.md): the files and keys of the output
// contract, values against the library, and bad input exiting 2 with one line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_correlation.hpp"
#include "netdp/mf/mf_trust.hpp"
#include "support/test_support.hpp"

namespace netdp::testing {
namespace {

namespace fs = std::filesystem;

TEST(MfCli, LossWritesTheContract) {
  ScratchDir dir;
  const auto out = dir / "loss";
  ASSERT_TRUE(
      run_cli_into("mf-loss --graph florentine --steps 4 --correlation antipgd "
                   "--participation cyclic:b=2,k=2 --trust pndp --attackers 0,3 --alpha 3 --quiet",
                   out, {"sensitivity.npy", "loss.npy", "C.npy", "by_distance.csv", "summary.json"}));
  const NpyArray sens = read_npy((out / "sensitivity.npy").string());
  const NpyArray loss = read_npy((out / "loss.npy").string());
  ASSERT_EQ(sens.shape, (std::vector<std::int64_t>{2, 15}));
  ASSERT_EQ(loss.shape, sens.shape);
  EXPECT_TRUE(std::isinf(sens.values[0]));       // attacker 0, victim 0
  EXPECT_TRUE(std::isinf(sens.values[15 + 3]));  // attacker 3, victim 3
  // The library's values for the same case.
  const CsrMatrix w = mf::mf_gossip_matrix(make_graph("florentine"), "average");
  const mf::Matrix lib =
      mf::pairwise_sensitivity(mf::TrustModel::pndp, w, mf::prefix_sum(4),
                               mf::parse_participation("cyclic:b=2,k=2", 4), {0, 3}, false);
  for (std::size_t i = 0; i < sens.values.size(); ++i) {
    EXPECT_EQ(sens.values[i], lib.a[i]) << i;
    if (!std::isinf(sens.values[i])) {
      EXPECT_DOUBLE_EQ(loss.values[i], 3 * sens.values[i] * sens.values[i] / 2);
    }
  }
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["model"], "mf-loss");
  EXPECT_EQ(summary["correlation"], "antipgd");
  EXPECT_EQ(summary["participation"], "cyclic:b=2,k=2");
  EXPECT_EQ(summary["trust"], "pndp");
  EXPECT_EQ(summary["weights"], "average");
  EXPECT_NE(summary["W"].get<std::string>().find("D^-1 (A + I)"), std::string::npos);
  EXPECT_NE(summary["workload"].get<std::string>().find("W_T"), std::string::npos);
  EXPECT_DOUBLE_EQ(summary["ldp_sensitivity"].get<double>(), std::sqrt(10.0));
}

TEST(MfCli, FactorizeWritesCAndWorkloadLosses) {
  ScratchDir dir;
  const auto out = dir / "fact";
  ASSERT_TRUE(
      run_cli_into("mf-factorize --correlation mafalda --steps 6 --participation cyclic:b=3,k=2 "
                   "--graph florentine --quiet",
                   out, {"C.npy", "summary.json"}));
  const auto summary = read_json(out / "summary.json");
  EXPECT_NEAR(summary["sensitivity"].get<double>(), 1.0, 1e-10);
  const double ours = summary["workloads"]["post_average"]["loss"].get<double>();
  const auto ldp = dir / "ldp";
  ASSERT_TRUE(
      run_cli_into("mf-factorize --correlation ldp --steps 6 --participation cyclic:b=3,k=2 "
                   "--graph florentine --quiet",
                   ldp, {"C.npy", "summary.json"}));
  EXPECT_LT(ours, read_json(ldp / "summary.json")["workloads"]["post_average"]["loss"].get<double>());
  // The C of mf-factorize, given back as a file, gives the same sensitivity.
  const auto again = dir / "again";
  ASSERT_TRUE(run_cli_into("mf-factorize --correlation file:" + (out / "C.npy").string() +
                               " --steps 6 --participation cyclic:b=3,k=2 --quiet",
                           again, {"C.npy", "summary.json"}));
  EXPECT_NEAR(read_json(again / "summary.json")["sensitivity"].get<double>(), 1.0, 1e-10);
  // Without a graph, only the prefix-sum workload.
  EXPECT_FALSE(read_json(again / "summary.json")["workloads"].contains("message"));
}

TEST(MfCli, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  const std::string bad_npy = dir.write("bad.npy", "not numpy");
  const std::pair<std::string, std::string> cases[] = {
      {"mf-loss --graph florentine --participation cyclic:b=3,k=2", "participation"},
      {"mf-loss --graph florentine --correlation best", "correlation"},
      {"mf-loss --graph florentine --trust secldp", "trust"},
      {"mf-loss --graph florentine --attackers 99", "attackers"},
      {"mf-loss --graph florentine --attackers x", "attackers"},
      {"mf-loss --graph florentine --alpha 1", "alpha"},
      {"mf-loss --graph florentine --weights nope", "weights"},
      {"mf-loss --steps 3", "graph"},
      {"mf-loss --graph florentine --steps 3 --correlation file:" + bad_npy, "correlation"},
      {"mf-factorize --correlation mafalda --steps 4", "graph"},
      {"mf-factorize --correlation bsr --steps 4 --band -1", "band"},
  };
  for (const auto& [args, fragment] : cases) {
    const auto out = dir / "out";
    const auto r = run_cli(args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
}

}  // namespace
}  // namespace netdp::testing
