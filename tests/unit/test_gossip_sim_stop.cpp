// Privacy at equal accuracy (gossip_sim_stop, docs/gossip_sim.md "Stopping at an accuracy rule"): the stop
// rule checked on hand-checkable cases and against the states of the runs, the losses at the stop against
// the accountant called separately, and a rule never met reported as such.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim_stop.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

/// The first t whose consensus error (1/n) sum_v (x_v^t - xbar_noisy)^2 is below `c bias` (thesis) or `c`
/// (error), computed from the run's states (D = 1).
std::optional<int> first_stop(const std::vector<std::vector<double>>& states, double xbar, bool thesis,
                              double c) {
  const double n = double(states[0].size());
  double noisy = 0;
  for (double v : states[0]) noisy += v;
  noisy /= n;
  const double threshold = thesis ? c * (noisy - xbar) * (noisy - xbar) : c;
  for (std::size_t t = 0; t < states.size(); ++t) {
    double e = 0;
    for (double v : states[t]) e += (v - noisy) * (v - noisy);
    if (e / n < threshold) return static_cast<int>(t);
  }
  return std::nullopt;
}

TEST(GossipSimStop, CompleteGraphStopsAfterOneRoundWithTheLdpLoss) {
  // K_8 with W-MH is W = J/8: after one round every node holds the noisy average, so the error is 0 (to
  // rounding, about 1e-32) and every run stops at t = 1 under thesis:1e-6 (at t = 0 the error is of the order
  // of sigma^2, far above 1e-6 (xbar_noisy - xbar)^2; with c = 3 a run of 8 nodes can stop at t = 0, when its
  // spread happens to be below 3 times its bias). Its one message (t = 0) is each x_u + eta_u sent to every
  // other node: the exact loss of every pair is the LDP level alpha Delta^2 / (2 sigma^2) = 2 / (2 * 4) =
  // 0.25.
  const Graph g = complete_graph(8);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  GossipSimParams p = testing::cpu_gossip_params(GossipProtocol::sync, 5, 6);
  p.sigma = 2;
  p.init.kind = InitKind::uniform;
  p.seed = 4;
  const std::vector<double> x = initial_values(g.n, p);
  GossipPrivacyParams q;
  const GossipStopResult r = gossip_sim_stop(g, w, x, p, q, parse_stop_rule("thesis:1e-6"));
  ASSERT_EQ(r.runs.size(), 6u);
  EXPECT_TRUE(r.not_met.empty());
  for (const GossipStopRun& run : r.runs) {
    EXPECT_EQ(run.point.stop, std::optional<int>(1));
    EXPECT_EQ(run.rounds, 1);
    EXPECT_NEAR(run.mean_loss, 0.25, 1e-12);
    EXPECT_NEAR(run.max_loss, 0.25, 1e-12);
  }
  EXPECT_EQ(r.stop.count, 6);
  EXPECT_EQ(r.stop.mean, 1.0);
  EXPECT_EQ(r.stop.std, 0.0);
  EXPECT_NEAR(r.mean_loss.mean, 0.25, 1e-12);
  // The accountant on its own, one message: the same pairs.
  GossipLossParams lp;
  lp.sigma = 2;
  lp.steps = 1;
  const std::vector<double> f = gossip_loss_matrix(g, w, lp);
  double sum = 0;
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v = 0; v < g.n; ++v)
      if (u != v) sum += f[static_cast<std::size_t>(u) * g.n + v];
  EXPECT_NEAR(r.runs[0].mean_loss, sum / (8 * 7), 1e-12);
  // t_start = 1 (the reference code) does not count the message at t = 0: nothing was sent before the stop.
  q.t_start = 1;
  const GossipStopResult late = gossip_sim_stop(g, w, x, p, q, parse_stop_rule("thesis:1e-6"));
  EXPECT_EQ(late.runs[2].mean_loss, 0.0);
  EXPECT_EQ(late.runs[2].rounds, 1);
}

TEST(GossipSimStop, StopsWhereTheStatesMeetTheRule) {
  // Dropout-er on 50 nodes with p = 0.08 (about 4 neighbours) and q = 0.3, clipped start as the thesis: the
  // stop of every run is the first t of its own trajectory meeting the rule, and its losses are those of the
  // privacy pass run over exactly that many rounds.
  const Graph g = ring_graph(50);
  const CsrMatrix none;
  GossipSimParams p = testing::cpu_gossip_params(GossipProtocol::dropout_er, 60, 3);
  p.edge_probability = 0.08;
  p.dropout = 0.3;
  p.init.kind = InitKind::uniform;
  p.clip_start = true;
  p.seed = 17;
  const std::vector<double> x = initial_values(g.n, p);
  double xbar = 0;
  for (double v : x) xbar += v;
  xbar /= g.n;
  GossipPrivacyParams q;
  q.source = 0;
  for (const char* rule : {"thesis:3", "error:1e-3"}) {
    const StopRule parsed = parse_stop_rule(rule);
    const GossipStopResult r = gossip_sim_stop(g, none, x, p, q, parsed);
    for (std::int64_t run = 0; run < p.runs; ++run) {
      const auto expected = first_stop(gossip_sim_trajectory(g, none, x, p, run), xbar,
                                       parsed.kind == StopRuleKind::thesis, parsed.value);
      const GossipStopRun& got = r.runs[static_cast<std::size_t>(run)];
      ASSERT_EQ(got.point.stop, expected) << rule << ", run " << run;
      ASSERT_TRUE(expected.has_value()) << rule << ": raise the steps of the test";
      EXPECT_GT(*expected, 1) << rule;
      GossipSimParams cut = p;
      cut.steps = *expected;
      const GossipPrivacyResult full = gossip_sim_privacy(g, none, cut, q);
      EXPECT_NEAR(got.mean_loss, full.per_run[static_cast<std::size_t>(run)].mean_loss, 1e-12)
          << rule << ", run " << run;
    }
    EXPECT_EQ(r.stop.count, p.runs);
  }
}

TEST(GossipSimStop, RuleNeverMetIsReported) {
  // A ring of 30 nodes averages slowly: error:1e-30 is not met in 3 rounds by any run.
  const Graph g = ring_graph(30);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  GossipSimParams p = testing::cpu_gossip_params(GossipProtocol::sync, 3, 3);
  p.init.kind = InitKind::uniform;
  const std::vector<double> x = initial_values(g.n, p);
  GossipPrivacyParams q;
  q.source = 2;
  const GossipStopResult r = gossip_sim_stop(g, w, x, p, q, parse_stop_rule("error:1e-30"));
  EXPECT_EQ(r.not_met, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(r.stop.count, 0);
  EXPECT_TRUE(std::isnan(r.mean_loss.mean));
  for (const GossipStopRun& run : r.runs) {
    EXPECT_FALSE(run.point.stop.has_value());
    EXPECT_EQ(run.rounds, 3);       // accounted over the whole run, and flagged
    EXPECT_GT(run.mean_loss, 0.0);  // three messages were sent
    EXPECT_GT(run.point.error, 1e-30);
  }
}

TEST(GossipSimStop, ParsesTheRules) {
  EXPECT_EQ(parse_stop_rule("thesis:3").kind, StopRuleKind::thesis);
  EXPECT_EQ(parse_stop_rule("thesis:3").value, 3.0);
  EXPECT_EQ(parse_stop_rule("error:1e-4").kind, StopRuleKind::error);
  EXPECT_EQ(parse_stop_rule("error:1e-4").value, 1e-4);
  EXPECT_EQ(to_string(parse_stop_rule("thesis:2.5")), "thesis:2.5");
  for (const char* bad : {"thesis", "thesis:", "thesis:0", "error:-1", "error:1e-4x", "mse:1", "thesis:nan"})
    testing::expect_invalid([&] { parse_stop_rule(bad); }, "stop-at");
}

}  // namespace
}  // namespace netdp
