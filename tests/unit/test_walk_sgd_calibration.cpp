// walk-sgd's mean-loss calibration (docs/math.md §5.8), the visits over the cap, the heterogeneous node
// data and their estimate discrepancy (docs/walk_sgd.md): closed forms on the complete graph, slow
// recomputations from the trajectory, thread independence.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "netdp/core/error.hpp"
#include "netdp/jobs/walk_sgd_job.hpp"
#include "netdp/simulation/walk_sgd.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

TEST(WalkSgdMeanLoss, CompleteGraphClosedForm) {
  // W = J/n: the graph term vanishes, eps_{u->v} = (T/n) alpha ln(T) / (n sigma^2) for u != v (docs/math.md
  // §5.3, spectral form); the worst observer's mean is (n - 1)/n of it.
  const int n = 20, steps = 60;
  const WalkSgdGraph walk = walk_sgd_symmetric_walk("complete:n=20", "auto");
  WalkLossParams p;
  p.alpha = 3;
  p.steps = steps;
  p.clip = false;  // as walk-sgd's calibration (docs/walk_sgd.md "Mean-loss calibration")
  const double pair = (double(steps) / n) * 3 * std::log(double(steps)) / n;
  EXPECT_NEAR(walk_mean_loss(walk, p, TargetStatistic::all_pairs), pair, 1e-9);
  EXPECT_NEAR(walk_mean_loss(walk, p, TargetStatistic::max_observer), pair * (n - 1) / n, 1e-9);
  double at_one = 0;
  const double m = walk_mean_loss_multiplier(walk, p, TargetStatistic::all_pairs, 0.25, &at_one);
  EXPECT_NEAR(at_one, pair, 1e-9);
  EXPECT_NEAR(m, std::sqrt(pair / 0.25), 1e-9);
  p.contributions = 5;  // N_u = K instead of T / n
  EXPECT_NEAR(walk_mean_loss(walk, p, TargetStatistic::all_pairs), pair * 5 / (double(steps) / n), 1e-9);
}

TEST(WalkSgdMeanLoss, RoundTripOnAHypercube) {
  // sigma -> mean loss -> sigma: the calibrated multiplier gives back the target, clipping included.
  const WalkSgdGraph walk = walk_sgd_symmetric_walk("hypercube:dim=5", "metropolis");
  WalkLossParams p;
  p.steps = 200;
  p.clip = true;
  for (double target : {0.05, 0.4}) {
    const double m = walk_mean_loss_multiplier(walk, p, TargetStatistic::max_observer, target);
    p.sigma = m;
    EXPECT_NEAR(walk_mean_loss(walk, p, TargetStatistic::max_observer), target, 1e-9 * target);
    p.sigma = 1;
  }
}

TEST(WalkSgdMeanLoss, SymmetricWalksOnly) {
  const WalkSgdGraph cube = walk_sgd_symmetric_walk("hypercube:dim=3", "auto");  // uniform, regular
  EXPECT_DOUBLE_EQ(cube.w.at(0, 1), 1.0 / 3);
  EXPECT_EQ(cube.w.at(0, 0), 0.0);
  testing::expect_invalid([] { walk_sgd_symmetric_walk("star:n=5", "uniform"); }, "weights");
  testing::expect_invalid([] { walk_sgd_symmetric_walk("ring:n=5", "directed-ring"); }, "weights");
  const WalkSgdGraph walk = walk_sgd_symmetric_walk("complete:n=4", "auto");
  testing::expect_invalid(
      [&] { walk_mean_loss_multiplier(walk, WalkLossParams{}, TargetStatistic::all_pairs, 0); },
      "target-mean-loss");
}

TEST(WalkSgdAfterCap, NoiseOrForwardForAnyVariant) {
  const LocalData d = synthetic_data(Objective::logistic, 2, 2, 3, 1);
  const WalkModel walk = make_walk_model("complete:n=2", "auto");
  WalkSgdParams p;
  p.objective = Objective::logistic;
  p.steps = 40;
  p.step_size = 0.5;
  p.seed = 11;
  p.cap = 3;
  p.sigma = 0.5;
  auto moves = [&](WalkSgdVariant v, WalkSgdCapped c) {
    p.variant = v;
    p.capped = c;
    const auto tr = walk_sgd_trajectory(walk, d, p, 0);
    int count = 0;
    for (int t = 0; t < 40; ++t) count += tr.models[t + 1] != tr.models[t];
    return count;
  };
  EXPECT_EQ(moves(WalkSgdVariant::local, WalkSgdCapped::noise), 40);     // capped visits add noise
  EXPECT_EQ(moves(WalkSgdVariant::network, WalkSgdCapped::forward), 6);  // 3 contributions per node
  EXPECT_EQ(moves(WalkSgdVariant::network, WalkSgdCapped::variant), 40);
  EXPECT_EQ(moves(WalkSgdVariant::centralized, WalkSgdCapped::forward), 40);  // no cap at all
  testing::expect_invalid([] { parse_walk_sgd_capped("later"); }, "after-cap");
}

TEST(WalkSgdHeterogeneous, CoordinateTargets) {
  const std::vector<double> pos{0.1, 0.2, 0.5, 0.25, 0.9, 0.05, 0.3, 0.3};
  const LocalData d = coordinate_targets(pos, false, 0);
  ASSERT_EQ(d.n, 4);
  EXPECT_EQ(d.dim, 1);
  EXPECT_DOUBLE_EQ(d.features[1], 0.75);
  const LocalData s = coordinate_targets(pos, true, 3);
  auto a = d.features, b = s.features;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);  // a permutation of the same targets
}

TEST(WalkSgdHeterogeneous, DiscrepancyFromTheTrajectory) {
  // Node v's estimate is the model after its last visit; recompute the class means from the trajectory.
  const std::vector<double> pos{0.1, 0.2, 0.5, 0.25, 0.9, 0.05, 0.3, 0.3, 0.7, 0.8};
  const LocalData d = coordinate_targets(pos, false, 0);
  const WalkModel walk = make_walk_model("complete:n=5", "auto");
  WalkSgdParams p;
  p.objective = Objective::quadratic;
  p.steps = 30;
  p.step_size = 0.3;
  p.sigma = 0.2;
  p.runs = 3;
  p.eval_every = 10;
  p.seed = 2;
  std::vector<int> cls(25, -1);
  for (int u = 0; u < 5; ++u)
    for (int v = u + 1; v < 5; ++v) cls[u * 5 + v] = (u + v) % 2;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = walk_sgd_discrepancy(walk, d, p, cls, 2);
  omp_set_num_threads(2);
  const auto two = walk_sgd_discrepancy(walk, d, p, cls, 2);
  omp_set_num_threads(saved);
  EXPECT_EQ(one, two);
  ASSERT_EQ(one.size(), 8u);  // steps 0, 10, 20, 30 x 2 classes
  std::vector<double> expected(8, 0.0);
  for (int r = 0; r < 3; ++r) {
    const auto tr = walk_sgd_trajectory(walk, d, p, r);
    std::vector<double> est(5, 0.0);
    for (int t = 0; t <= 30; ++t) {
      if (t > 0) est[tr.holders[t - 1]] = tr.models[t][0];
      if (t % 10 != 0) continue;
      double sums[2] = {0, 0};
      for (int u = 0; u < 5; ++u)
        for (int v = u + 1; v < 5; ++v) sums[(u + v) % 2] += std::abs(est[u] - est[v]);
      expected[(t / 10) * 2] += sums[0] / 4 / 3;  // 4 pairs with u + v even
      expected[(t / 10) * 2 + 1] += sums[1] / 6 / 3;
    }
  }
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(one[i], expected[i], 1e-12) << i;
  EXPECT_EQ(one[0], 0.0);  // every estimate starts at x_0 = 0
}

}  // namespace
}  // namespace netdp
