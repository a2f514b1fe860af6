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

TEST(MfCli, LossSecldpOnAPathByHand) {
  // Path 0 - 1 - 2, T = 2, C = tri(2) (antipgd), every step, attacker 0 (docs/math.md §9.4): sens^2 = kappa *
  // 5 with kappa = (1 + r^2) / (1 + 2 r^2) = 5/9 at r = 2 (derivation in
  // tests/unit/test_mf_trust_secldp.cpp).
  ScratchDir dir;
  const auto out = dir / "secldp";
  ASSERT_TRUE(
      run_cli_into("mf-loss --graph path:n=3 --steps 2 --correlation antipgd --participation every "
                   "--trust secldp --secret-ratio 2 --attackers 0 --alpha 2 --quiet",
                   out, {"sensitivity.npy", "loss.npy", "by_distance.csv", "summary.json"}));
  const NpyArray sens = read_npy((out / "sensitivity.npy").string());
  ASSERT_EQ(sens.shape, (std::vector<std::int64_t>{1, 3}));
  EXPECT_TRUE(std::isinf(sens.values[0]));
  EXPECT_NEAR(sens.values[1], std::sqrt(25.0 / 9), 1e-12);
  EXPECT_NEAR(sens.values[2], std::sqrt(25.0 / 9), 1e-12);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["trust"], "secldp");
  EXPECT_EQ(summary["secret_ratio"].get<double>(), 2.0);
  EXPECT_NEAR(summary["max_loss"].get<double>(), 25.0 / 9, 1e-12);
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

TEST(MfCli, LossEpsilonAtDelta) {
  // LDP with C = I over T = 4 steps, every step: sens = 2, so every pair is (2 / sigma)-GDP; epsilon.npy
  // holds the toolbox's conversion of it.
  ScratchDir dir;
  const auto out = dir / "eps";
  ASSERT_TRUE(
      run_cli_into("mf-loss --graph path:n=4 --steps 4 --trust ldp --noise-multiplier 2 --delta 1e-5 --quiet",
                   out, {"sensitivity.npy", "loss.npy", "epsilon.npy", "summary.json"}));
  const NpyArray eps = read_npy((out / "epsilon.npy").string());
  ASSERT_EQ(eps.shape, (std::vector<std::int64_t>{4, 4}));
  const double expected = mf::epsilon_of_sensitivity(2.0, 2.0, 1e-5, mf::EpsilonConversion::gdp);
  EXPECT_GT(expected, 0.0);
  EXPECT_TRUE(std::isinf(eps.values[0]));
  EXPECT_EQ(eps.values[1], expected);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["conversion"], "gdp");
  EXPECT_EQ(summary["max_epsilon"].get<double>(), expected);
  // rdp-classic: the closed form r + 2 sqrt(r ln(1/delta)) with r = mu^2 / 2 = 0.5.
  ASSERT_TRUE(
      run_cli_into("mf-loss --graph path:n=4 --steps 4 --trust ldp --noise-multiplier 2 --delta 1e-5 "
                   "--conversion rdp-classic --quiet",
                   out, {"epsilon.npy"}));
  EXPECT_NEAR(read_npy((out / "epsilon.npy").string()).values[1], 0.5 + 2 * std::sqrt(0.5 * std::log(1e5)),
              1e-12);
}

TEST(MfCli, LossObservationModel) {
  // B = [1 1], C = [[1, 0], [1, 1]], victims {0} and {0, 1}: sens sqrt 2 and sqrt 4.5 (test_mf_trust).
  ScratchDir dir;
  mf::Matrix b(1, 2), c(2, 2), pi(2, 2), a(1, 2);
  b.a = {1, 1};
  c.a = {1, 0, 1, 1};
  pi.a = {0, -1, 0, 1};
  a.a = {2, 1};
  mf::write_npy_matrix((dir / "b.npy").string(), b);
  mf::write_npy_matrix((dir / "c.npy").string(), c);
  mf::write_npy_matrix((dir / "pi.npy").string(), pi);
  mf::write_npy_matrix((dir / "a.npy").string(), a);
  const auto out = dir / "obs";
  const std::string files = " --observation-b " + (dir / "b.npy").string() + " --observation-c " +
                            (dir / "c.npy").string() + " --observation-pi " + (dir / "pi.npy").string();
  ASSERT_TRUE(run_cli_into("mf-loss --trust observation --steps 2" + files + " --observation-a " +
                               (dir / "a.npy").string() + " --quiet",
                           out, {"sensitivity.npy", "loss.npy", "C.npy", "summary.json"}));
  const NpyArray sens = read_npy((out / "sensitivity.npy").string());
  ASSERT_EQ(sens.shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_NEAR(sens.values[0], std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(sens.values[1], std::sqrt(4.5), 1e-14);
  EXPECT_FALSE(fs::exists(out / "by_distance.csv"));
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["trust"], "observation");
  EXPECT_EQ(summary["victims"], 2);
  // A that is not B C, and a participation index outside C's columns, exit 2 naming the option.
  mf::write_npy_matrix((dir / "a.npy").string(), b);
  auto r = run_cli("mf-loss --trust observation --steps 2" + files + " --observation-a " +
                   (dir / "a.npy").string() + " --out " + (dir / "x").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("observation-a"), std::string::npos) << r.err;
  mf::Matrix outside(1, 1);
  outside.a = {5};  // not a column of the 2 x 2 C
  mf::write_npy_matrix((dir / "outside.npy").string(), outside);
  r = run_cli("mf-loss --trust observation --steps 2 --observation-b " + (dir / "b.npy").string() +
              " --observation-c " + (dir / "c.npy").string() + " --observation-pi " +
              (dir / "outside.npy").string() + " --out " + (dir / "x").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("observation-pi"), std::string::npos) << r.err;
}

TEST(MfCli, BadInputExitsTwoWithOneLine) {
  ScratchDir dir;
  const std::string bad_npy = dir.write("bad.npy", "not numpy");
  const std::pair<std::string, std::string> cases[] = {
      {"mf-loss --graph florentine --participation cyclic:b=3,k=2", "participation"},
      {"mf-loss --graph florentine --correlation best", "correlation"},
      {"mf-loss --graph florentine --trust secret", "trust"},
      {"mf-loss --graph florentine --trust pndp --secret-ratio 2", "secret-ratio"},
      {"mf-loss --graph florentine --trust secldp --secret-ratio -1", "secret-ratio"},
      {"mf-loss --graph florentine --attackers 99", "attackers"},
      {"mf-loss --graph florentine --attackers x", "attackers"},
      {"mf-loss --graph florentine --alpha 1", "alpha"},
      {"mf-loss --graph florentine --weights nope", "weights"},
      {"mf-loss --steps 3", "graph"},
      {"mf-loss --graph florentine --steps 3 --correlation file:" + bad_npy, "correlation"},
      {"mf-factorize --correlation mafalda --steps 4", "graph"},
      {"mf-factorize --correlation bsr --steps 4 --band -1", "band"},
      {"mf-factorize --correlation mafalda-l --steps 4", "graph"},
      {"mf-loss --graph florentine --delta 1", "delta"},
      {"mf-loss --graph florentine --delta 0.1 --conversion pld", "conversion"},
      {"mf-loss --trust observation --steps 2", "observation-b"},
      {"mf-loss --graph florentine --observation-b " + bad_npy, "observation-b"},
      {"mf-loss --trust observation --steps 2 --observation-b " + bad_npy, "observation-b"},
  };
  for (const auto& [args, fragment] : cases) expect_refused(args, dir / "out", fragment);
}

}  // namespace
}  // namespace netdp::testing
