// Muffliato-SGD as a learning run (docs/muffliato_sgd.md): the gossip-step rule, the eq. 6.4 mean loss by
// hand, W = J/n without noise is centralized GD (written again here), and thread independence.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/muffliato_sgd.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

TEST(MuffliatoSgd, GossipStepsRule) {
  EXPECT_EQ(muffliato_sgd_gossip_steps(2048, 1.0), 1);  // W = J/n averages in one step
  // gap 0.25: 2 (1/3)^K <= 1/8 -> K >= ln 16 / ln 3 = 2.52 -> 3
  EXPECT_EQ(muffliato_sgd_gossip_steps(8, 0.25), 3);
  EXPECT_THROW(muffliato_sgd_gossip_steps(8, 0.0), InvalidInput);
}

TEST(MuffliatoSgd, MeanLossByHand) {
  // Star on 5 nodes: degrees 4, 1, 1, 1, 1. alpha = 2, K = 3, P = 4: eps_bar_v = P alpha K d_v / (2 n).
  const Graph g = star_graph(5);
  const double centre = 4 * 2 * 3 * 4 / 10.0, leaf = 4 * 2 * 3 * 1 / 10.0;
  EXPECT_DOUBLE_EQ(muffliato_sgd_mean_loss(g, 3, 4, 2, MuffliatoSgdComposition::participations, false),
                   centre);
  EXPECT_DOUBLE_EQ(muffliato_sgd_mean_loss(g, 3, 4, 2, MuffliatoSgdComposition::participations, true),
                   (centre + 4 * leaf) / 4);
  EXPECT_DOUBLE_EQ(muffliato_sgd_mean_loss(g, 3, 4, 2, MuffliatoSgdComposition::squared, false), 4 * centre);
}

// The LDP composition (docs/muffliato_sgd.md "Accounting"): every pair loses P alpha / 2 at multiplier 1; the
// worst observer's mean (1/n) sum_{u != v} is (n - 1)/n of it. On the complete graph (K = 1, d_v = n - 1)
// eq. 6.4 gives the same number, P alpha (n - 1) / (2 n); on a ring K d_v = 6 < n - 1 gives less, on a small
// ring with K d_v > n - 1 more (eq. 6.4 is uncapped).
TEST(MuffliatoSgd, LdpMeanLossByHand) {
  EXPECT_DOUBLE_EQ(muffliato_sgd_ldp_mean_loss(5, 4, 2, true), 4.0);
  EXPECT_DOUBLE_EQ(muffliato_sgd_ldp_mean_loss(5, 4, 2, false), 4.0 * 4 / 5);
  EXPECT_DOUBLE_EQ(muffliato_sgd_ldp_mean_loss(20, 10, 3, false), 15.0 * 19 / 20);
  EXPECT_EQ(muffliato_sgd_ldp_mean_loss(1, 4, 2, false), 0.0);  // no pair
  const auto composed = MuffliatoSgdComposition::participations;
  EXPECT_DOUBLE_EQ(muffliato_sgd_mean_loss(complete_graph(9), 1, 4, 2, composed, false),
                   muffliato_sgd_ldp_mean_loss(9, 4, 2, false));
  EXPECT_LT(muffliato_sgd_mean_loss(ring_graph(20), 3, 4, 2, composed, false),
            muffliato_sgd_ldp_mean_loss(20, 4, 2, false));
  EXPECT_GT(muffliato_sgd_mean_loss(ring_graph(6), 3, 4, 2, composed, false),
            muffliato_sgd_ldp_mean_loss(6, 4, 2, false));
}

TEST(MuffliatoSgd, CompleteGraphWithoutNoiseIsCentralizedGd) {
  const LocalData rows = synthetic_data(Objective::logistic, 1, 3, 300, 5);
  const LearningSplit split = learning_split(rows, Objective::logistic, 12, 0.2, true, 5);
  const Graph g = complete_graph(12);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);  // J/n
  MuffliatoGdParams p;
  p.objective = Objective::logistic;
  p.steps = 6;
  p.gossip_steps = 1;
  p.step_size = 0.7;
  p.clip = 0.3;
  p.runs = 2;
  const auto r = muffliato_sgd(g, w, split.train, split.test, p);
  EXPECT_NEAR(r.spectral_gap, 1.0, 1e-9);
  std::vector<double> x(4, 0.0);
  const auto& d = split.train;
  for (int t = 0; t <= 6; ++t) {
    EXPECT_NEAR(r.objective.mean[t], global_objective(Objective::logistic, d, 0, x), 1e-12) << t;
    EXPECT_NEAR(r.accuracy.mean[t], accuracy(split.test, x), 1e-12) << t;
    EXPECT_EQ(r.objective.std[t], 0.0);  // no noise: the runs agree
    EXPECT_LT(r.consensus.mean[t], 1e-24);
    std::vector<double> step(4, 0.0);  // (1/n) sum_v mean of clipped per-example gradients
    for (node_t v = 0; v < d.n; ++v)
      for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
        double margin = 0, norm2 = 0;
        for (int k = 0; k < 4; ++k) margin += d.features[i * 4 + k] * x[k];
        const double c = -d.labels[i] / (1 + std::exp(d.labels[i] * margin));
        for (int k = 0; k < 4; ++k) norm2 += c * c * d.features[i * 4 + k] * d.features[i * 4 + k];
        const double scale = std::sqrt(norm2) > 0.3 ? 0.3 / std::sqrt(norm2) : 1.0;
        for (int k = 0; k < 4; ++k) step[k] += scale * c * d.features[i * 4 + k] / double(d.size(v)) / 12;
      }
    for (int k = 0; k < 4; ++k) x[k] -= 0.7 * step[k];
  }
}

TEST(MuffliatoSgd, SameResultsForOneAndTwoThreads) {
  const LocalData rows = synthetic_data(Objective::logistic, 1, 3, 400, 6);
  const LearningSplit split = learning_split(rows, Objective::logistic, 16, 0.2, true, 6);
  const Graph g = hypercube_graph(4);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  MuffliatoGdParams p;
  p.objective = Objective::logistic;
  p.steps = 5;
  p.gossip_steps = 3;
  p.sigma = 0.8;
  p.clip = 0.4;
  p.runs = 5;
  p.seed = 9;
  auto run = [&] { return muffliato_sgd(g, w, split.train, split.test, p); };
  const auto one = testing::with_threads(1, run), two = testing::with_threads(2, run);
  EXPECT_EQ(one.objective.mean, two.objective.mean);
  EXPECT_EQ(one.accuracy.std, two.accuracy.std);
  EXPECT_EQ(one.consensus.mean, two.consensus.mean);
  EXPECT_GT(one.objective.std.back(), 0);
  EXPECT_GT(one.consensus.mean.back(), 0);
  p.er_per_round = true;
  testing::expect_invalid([&] { muffliato_sgd(g, w, split.train, split.test, p); }, "er-c");
}

}  // namespace
}  // namespace netdp
