// `netdp muffliato-gd` end to end: files and their layout, agreement with the library (curves and privacy),
// CSV data, Erdos-Renyi rounds, and bad input (exit 2, one line, no manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "netdp/accounting/muffliato_exact.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/simulation/muffliato_gd.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

double number(const std::string& cell) {
  return std::strtod(cell.c_str(), nullptr);
}

TEST(CliMuffliatoGd, WritesCurvesAndPrivacyThatMatchTheLibrary) {
  ScratchDir dir;
  auto out = dir / "mgd";
  ASSERT_TRUE(
      run_cli_into("muffliato-gd --graph ring:n=10 --objective least-squares --dim 3 --samples 4 --steps 6 "
                   "--gossip-rounds 3 --step-size 0.3 --gradient-noise 2 --runs 20 --seed 5 --clip 1 --alpha "
                   "3 --threads 2 --accounting theorem",
                   out, {"curves.csv", "privacy.csv", "summary.json", "manifest.json"}));

  Graph g = make_graph("ring:n=10");
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  MuffliatoGdParams p;
  p.objective = Objective::least_squares;
  p.steps = 6;
  p.gossip_steps = 3;
  p.step_size = 0.3;
  p.sigma = 2;
  p.runs = 20;
  p.seed = 5;
  p.clip = 1;
  const LocalData d = synthetic_data(Objective::least_squares, 10, 3, 4, 5);
  auto lib = muffliato_gd(g, w, d, p);

  auto curves = read_csv_cells(out / "curves.csv");
  ASSERT_EQ(curves.size(), 8u);
  EXPECT_EQ(curves[0], (std::vector<std::string>{"t", "objective_mean", "objective_stderr", "gap_mean",
                                                 "gap_stderr", "node_objective_mean", "node_objective_stderr",
                                                 "consensus_mean", "consensus_stderr"}));
  for (std::size_t t = 0; t <= 6; ++t) {
    const auto& row = curves[t + 1];
    EXPECT_EQ(number(row[0]), double(t));
    EXPECT_EQ(number(row[1]), lib.objective.mean[t]);  // shortest round-trip text
    EXPECT_EQ(number(row[3]), lib.gap.mean[t]);
    EXPECT_EQ(number(row[5]), lib.node_objective.mean[t]);
    EXPECT_EQ(number(row[7]), lib.consensus.mean[t]);
    EXPECT_EQ(number(row[8]), lib.consensus.std_error[t]);
  }

  // Theorem 6.9 with Delta_phi = 2 L = 2, sigma = 2, alpha = 3: the accountant called directly.
  auto loss = muffliato_sgd_loss_matrix(g, w, muffliato_gd_loss_params(p, 3.0, 2.0, true, std::nullopt), 6);
  double sum = 0, max = 0, sum1 = 0;
  int pairs = 0, pairs1 = 0;
  for (node_t u = 0; u < 10; ++u)
    for (node_t v = 0; v < 10; ++v) {
      if (u == v) continue;
      const double f = loss[u * 10 + v];
      sum += f;
      max = std::max(max, f);
      ++pairs;
      const int hops = std::min((u - v + 10) % 10, (v - u + 10) % 10);
      if (hops == 1) {
        sum1 += f;
        ++pairs1;
      }
    }
  auto s = read_json(out / "summary.json");
  const auto& privacy = s["privacy"];
  EXPECT_EQ(privacy["sensitivity"], 2.0);
  EXPECT_EQ(privacy["ldp_per_step"], 3.0 * 4.0 / (2 * 4.0));
  EXPECT_EQ(privacy["pairs"], pairs);
  EXPECT_NEAR(privacy["mean"].get<double>(), sum / pairs, 1e-13);
  EXPECT_EQ(privacy["max"].get<double>(), max);
  auto rows = read_csv_cells(out / "privacy.csv");
  EXPECT_EQ(rows[0], (std::vector<std::string>{"accountant", "distance", "pairs", "mean", "min", "max"}));
  EXPECT_EQ(rows[1][0], "thm-6.9");
  EXPECT_EQ(rows[1][1], "all");
  EXPECT_EQ(rows[2][1], "1");
  EXPECT_EQ(number(rows[2][2]), pairs1);
  EXPECT_NEAR(number(rows[2][3]), sum1 / pairs1, 1e-13);
  EXPECT_EQ(s["final"]["t"], 6);
  EXPECT_NEAR(s["optimum"]["value"].get<double>(), lib.optimum.value, 0);
  auto m = read_json(out / "manifest.json");
  EXPECT_EQ(m["command"], "muffliato-gd");
  EXPECT_EQ(m["files"], (nlohmann::json{"curves.csv", "privacy.csv", "summary.json"}));
}

TEST(CliMuffliatoGd, LogisticFromCsvWithErRounds) {
  ScratchDir dir;
  std::ostringstream data;
  data << "f1,f2,label\n";
  for (int i = 0; i < 40; ++i)
    data << std::sin(i) << ',' << std::cos(3 * i) << ',' << (i % 3 ? 1 : -1) << '\n';
  auto csv = dir.write("data.csv", data.str());
  auto out = dir / "er";
  auto r =
      run_cli("muffliato-gd --graph complete:n=8 --er-c 1.5 --objective logistic --data " + csv +
              " --steps 4 --gossip-rounds 2 --step-size 0.7 --gradient-noise 1.5 --clip 0.4 --reference-code "
              "--alpha 1.5 --runs 3 --seed 2 --batch 3 --accounting theorem --out " +
              out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto curves = read_csv_cells(out / "curves.csv");
  ASSERT_EQ(curves.size(), 6u);
  EXPECT_EQ(curves[0].back(), "accuracy_stderr");
  EXPECT_EQ(number(curves[1][9]), 26.0 / 40);  // theta = 0 predicts +1 for every example
  auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["examples"], 40);
  EXPECT_EQ(s["dim"], 2);
  EXPECT_EQ(s["gradient_noise_std"], 0.75);
  EXPECT_EQ(s["privacy"]["sensitivity"], 0.5);
  EXPECT_EQ(s["privacy"]["er_round_sum"]["variant"], "reference-code");
  EXPECT_NEAR(s["edge_probability"].get<double>(), 1.5 * std::log(8.0) / 8, 1e-15);
  auto rows = read_csv_cells(out / "privacy.csv");
  EXPECT_EQ(rows[1][0], "thm-C.9");
  EXPECT_EQ(rows.back()[0], "er-round-sum");
  // Both accountants sum per-message losses (docs/math.md §6.9): said in summary.json and on stderr.
  ASSERT_EQ(s["warnings"].size(), 2u);
  EXPECT_NE(s["warnings"][0].get<std::string>().find("Theorem C.9's accountant is built on Theorem 6.1"),
            std::string::npos);
  EXPECT_NE(s["warnings"][1].get<std::string>().find("Erdos-Renyi bound"), std::string::npos);
  EXPECT_EQ(s["privacy"]["warnings"], s["warnings"]);
  EXPECT_NE(r.err.find("netdp: warning: Theorem C.9's accountant"), std::string::npos) << r.err;
}

// The default accountant (docs/muffliato_gd.md "Privacy accounting"): exact for the quadratic objective
// (equal to the library's muffliato_exact_shares on the same W), ldp for a nonlinear gradient, and exact
// refused there.
TEST(CliMuffliatoGd, ExactAccountingForLinearRunsLdpOtherwise) {
  ScratchDir dir;
  const std::string common =
      " --graph ring:n=8 --dim 2 --steps 4 --gossip-rounds 2 --step-size 0.2 --l2 0.5 "
      "--gradient-noise 2 --alpha 3 --sensitivity 1.5 --source 1 --quiet --out ";
  auto out = dir / "exact";
  auto r = run_cli("muffliato-gd --objective quadratic" + common + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Graph g = make_graph("ring:n=8");
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  GossipSchedule schedule;
  schedule.n = 8, schedule.rounds = {GossipRound{w, g}}, schedule.constant = true, schedule.steps = 4;
  MuffliatoExactParams e;
  e.rounds = 4, e.gossip_steps = 2, e.state_factor = 1 - 0.2 * 1.5, e.source = 1;
  const double gamma[] = {chebyshev_gamma(spectral_summary(w).gap(GapDefinition::second))};
  const auto lib = muffliato_exact_shares(schedule, gamma, e);
  const double scale = 3 * 1.5 * 1.5 / (2 * 4.0);  // alpha Delta^2 / (2 s^2)
  double sum = 0, max = 0;
  for (node_t v = 0; v < 8; ++v) {
    if (v == 1) continue;
    sum += scale * lib.share[v];
    max = std::max(max, scale * lib.share[v]);
  }
  auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["privacy"]["accounting"], "exact");
  EXPECT_NEAR(s["privacy"]["mean"].get<double>(), sum / 7, 1e-14);
  EXPECT_NEAR(s["privacy"]["max"].get<double>(), max, 1e-14);
  EXPECT_LE(max, 4 * scale);  // never above T x the LDP level
  EXPECT_GT(max, scale);      // over 4 rounds a neighbour learns more than one release
  EXPECT_FALSE(s.contains("warnings"));
  EXPECT_GE(s["privacy"]["view"]["rank_max"].get<int>(), 1);
  auto rows = read_csv_cells(out / "privacy.csv");
  EXPECT_EQ(rows[1][0], "exact");
  EXPECT_EQ(read_json(out / "manifest.json")["parameters"]["accounting"], "exact");

  // --delta: epsilon of each pair's mu = (Delta / s) sqrt(share) on the analytic Gaussian curve.
  auto eps = dir / "eps";
  r = run_cli("muffliato-gd --objective quadratic --delta 1e-5" + common + eps.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  double eps_max = 0;
  for (node_t v = 0; v < 8; ++v)
    if (v != 1) eps_max = std::max(eps_max, dp::gdp_epsilon(1.5 / 2 * std::sqrt(lib.share[v]), 1e-5));
  const auto at_delta = read_json(eps / "summary.json")["privacy"]["epsilon_at_delta"];
  EXPECT_EQ(at_delta["delta"], 1e-5);
  EXPECT_NEAR(at_delta["max"].get<double>(), eps_max, 1e-9 * eps_max);
  EXPECT_GT(eps_max, 0.0);
  r = run_cli("muffliato-gd --objective quadratic --delta 1e-5 --accounting theorem" + common +
              (dir / "eps-thm").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("delta needs accounting exact or ldp"), std::string::npos) << r.err;

  auto sgd = dir / "sgd";  // mini-batches: the sum-|M| bound, above the exact value
  r = run_cli("muffliato-gd --objective quadratic --samples 3 --batch 2" + common + sgd.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_csv_cells(sgd / "privacy.csv")[1][0], "bound");
  EXPECT_GE(read_json(sgd / "summary.json")["privacy"]["max"].get<double>(), max - 1e-12);

  auto ldp = dir / "ldp";
  r = run_cli("muffliato-gd --objective logistic" + common + ldp.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  s = read_json(ldp / "summary.json");
  EXPECT_EQ(s["privacy"]["accounting"], "ldp");
  EXPECT_EQ(s["privacy"]["min"].get<double>(), 4 * scale);
  EXPECT_EQ(s["privacy"]["max"].get<double>(), 4 * scale);
  EXPECT_EQ(read_csv_cells(ldp / "privacy.csv")[1][0], "ldp");

  for (const char* objective : {"logistic", "least-squares"}) {
    auto refused = dir / objective;
    r = run_cli(std::string("muffliato-gd --objective ") + objective + " --accounting exact" + common +
                refused.string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("accounting exact needs a linear run"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(refused / "manifest.json"));
  }
  r = run_cli("muffliato-gd --objective quadratic --clip 1 --accounting exact" + common +
              (dir / "c").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("clip"), std::string::npos) << r.err;
}

// observer-knows (docs/math.md §6.9 "What v knows") on the path u - w - v (0 - 1 - 2), W-MH (W_01 = W_12 =
// 1/3), K = 1, T = 2, nu = 0.1, mu = 0 (a = 0.9), s = Delta = 1, alpha = 2 (loss = ||P_v c_u||^2). By hand,
// in units of nu s: v receives z_w^0, then a/3 (z_u^0 + z_w^0 + z_v^0) + z_w^1. Knowing z_v, Gram-Schmidt
// leaves
// ((a/3) e_{u,0} + e_{w,1}) / sqrt(1 + a^2/9): ||P c_u||^2 = 0.09 / 1.09. Not knowing it, the residual keeps
// (a/3) e_{v,0}: 0.09 / 1.18. privacy.csv's distance-2 row is the pair (0 -> 2) alone.
TEST(CliMuffliatoGd, ObserverKnowsGivesTheTwoTrustModelsByHand) {
  ScratchDir dir;
  const std::string common =
      "muffliato-gd --graph path:n=3 --dim 1 --steps 2 --gossip-rounds 1 --step-size "
      "0.1 "
      "--gradient-noise 1 --sensitivity 1 --alpha 2 --source 0 --quiet";
  auto distance_two = [](const fs::path& out) {
    for (const auto& row : read_csv_cells(out / "privacy.csv"))
      if (row[1] == "2") return number(row[3]);
    return -1.0;
  };
  auto knows = dir / "knows";
  auto r = run_cli(common + " --observer-knows input-and-noise --out " + knows.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(distance_two(knows), 0.09 / 1.09, 1e-14);
  EXPECT_EQ(read_json(knows / "summary.json")["privacy"]["observer_knows"], "input-and-noise");
  auto input = dir / "input";
  r = run_cli(common + " --observer-knows input --out " + input.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(distance_two(input), 0.09 / 1.18, 1e-14);
  EXPECT_EQ(read_json(input / "summary.json")["privacy"]["observer_knows"], "input");
  EXPECT_EQ(read_json(input / "manifest.json")["parameters"]["observer_knows"], "input");
  auto fallback = dir / "default";  // the default is gossip-loss's: v knows its noise
  r = run_cli(common + " --out " + fallback.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(distance_two(fallback), distance_two(knows));

  // ldp and theorem ignore it: refused (exit 2, one line naming the option), also where ldp is the default.
  for (const std::string extra : {" --objective quadratic --accounting ldp",
                                  " --objective quadratic --accounting theorem", " --objective logistic"}) {
    auto refused = dir / ("refused" + std::to_string(extra.size()));
    r = run_cli(common + extra + " --observer-knows input --out " + refused.string());
    EXPECT_EQ(r.exit_code, 2) << extra << ": " << r.err;
    EXPECT_NE(r.err.find("observer-knows"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(refused / "manifest.json")) << extra;
  }
}

TEST(CliMuffliatoGd, NoiselessRunHasNoPrivacyFile) {
  ScratchDir dir;
  auto out = dir / "clean";
  auto r = run_cli(
      "muffliato-gd --graph hypercube:dim=3 --dim 2 --steps 3 --gossip-rounds 2 --step-size 0.5 --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "privacy.csv"));
  EXPECT_TRUE(read_json(out / "summary.json")["privacy"].is_null());
  EXPECT_TRUE(fs::exists(out / "manifest.json"));
}

// The trusted-aggregator baseline (Fig. 6.1c): every node holds the mean of the noisy updates, so the
// consensus error is 0 at every iteration (up to the rounding of the mean of equal rows), and there is no
// pairwise accounting; options of that accounting are refused.
TEST(CliMuffliatoGd, FederatedBaselineHasExactConsensusAndNoPairwisePrivacy) {
  ScratchDir dir;
  auto out = dir / "federated";
  auto r = run_cli(
      "muffliato-gd --graph ring:n=10 --dim 2 --steps 4 --gossip-rounds 2 --step-size 0.5 --gradient-noise "
      "0.5 "
      "--runs 2 --averaging exact --quiet --out " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv_cells(out / "curves.csv");
  const auto column = std::find(rows[0].begin(), rows[0].end(), "consensus_mean") - rows[0].begin();
  ASSERT_LT(static_cast<std::size_t>(column), rows[0].size());
  ASSERT_EQ(rows.size(), 6u);  // header, t = 0..4
  for (std::size_t t = 1; t < rows.size(); ++t) EXPECT_LE(std::stod(rows[t][column]), 1e-28) << t;
  EXPECT_FALSE(fs::exists(out / "privacy.csv"));
  EXPECT_EQ(read_json(out / "summary.json")["averaging"], "exact");
  auto refused = run_cli(
      "muffliato-gd --graph ring:n=10 --dim 2 --steps 4 --gossip-rounds 2 --averaging exact "
      "--source 1 --out " +
      (dir / "refused").string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--source is only used by --averaging gossip"), std::string::npos)
      << refused.err;
}

TEST(CliMuffliatoGd, BadInputExitsWithCode2AndNoManifest) {
  ScratchDir dir;
  auto bad_labels = dir.write("bad.csv", "1,2,0.5\n3,4,1\n");
  const std::string common = " --graph ring:n=6 --steps 2 --gossip-rounds 2 --out ";
  const std::string cases[] = {
      "--objective hinge --dim 2",
      "--objective logistic --data " + (dir / "missing.csv").string(),
      "--objective logistic --data " + bad_labels,
      "--objective quadratic",  // no --dim for synthetic data
      "--dim 2 --batch 2",      // one example per node
      "--dim 2 --er-c 0",
      "--dim 2 --er-c 0.01",  // G(6, q) is never connected
      "--dim 2 --gradient-noise -1",
      "--dim 2 --step-size 0",
      "--dim 2 --gradient-noise 1 --alpha 1",
      "--dim 2 --gradient-noise 1 --source 6",
      "--dim 2 --weights bogus",
      "--objective logistic --dim 2 --gradient-noise 1 --device cuda",  // ldp: nothing to run on a GPU
      "--dim 2 --gradient-noise 1 --accounting theorem --device cuda",
      "--dim 2 --gradient-noise 1 --device cuda:7",  // the exact accountant, but no such device
  };
  int i = 0;
  for (const auto& args : cases) {
    auto out = dir / ("case" + std::to_string(i++));
    auto r = run_cli("muffliato-gd " + args + common + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
  auto r = run_cli("muffliato-gd --graph ring:n=6 --dim 2 --gossip-rounds 2 --out " + (dir / "x").string());
  EXPECT_EQ(r.exit_code, 2);  // --steps is required
}

}  // namespace
}  // namespace netdp
