// walk-sgd's estimate discrepancy with --initial-estimate local (docs/walk_sgd.md "Heterogeneous data"):
// every node's estimate starts at the mean of its own examples, then is the model it last sent on. Step 0 by
// hand, the whole curve recomputed from the trajectory, and the CLI's summary and bad value.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/jobs/walk_sgd_job.hpp"
#include "netdp/simulation/walk_sgd.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

TEST(WalkSgdInitialEstimate, StartsAtEachNodesMean) {
  // Node 1 holds two targets (mean 1.5): estimates at step 0 are 0.5, 1.5, -1, 3.
  LocalData d;
  d.n = 4;
  d.dim = 1;
  d.offsets = {0, 1, 3, 4, 5};
  d.features = {0.5, 1.0, 2.0, -1.0, 3.0};
  const WalkModel walk = make_walk_model("complete:n=4", "auto");
  WalkSgdParams p;
  p.objective = Objective::quadratic;
  p.steps = 12;
  p.step_size = 0.25;
  p.sigma = 0.3;
  p.runs = 2;
  p.eval_every = 4;
  p.seed = 5;
  p.local_initial_estimate = true;
  std::vector<int> cls(16, -1);
  for (int u = 0; u < 4; ++u)
    for (int v = u + 1; v < 4; ++v) cls[u * 4 + v] = (u + v) % 2;
  const std::vector<double> got = walk_sgd_discrepancy(walk, d, p, cls, 2);
  ASSERT_EQ(got.size(), 8u);  // steps 0, 4, 8, 12 x 2 classes
  // Step 0: class 0 = pairs (0, 2), (1, 3): |0.5 + 1| = 1.5 and |1.5 - 3| = 1.5; class 1 = (0, 1), (0, 3),
  // (1, 2), (2, 3): 1, 2.5, 2.5, 4, mean 2.5.
  EXPECT_DOUBLE_EQ(got[0], 1.5);
  EXPECT_DOUBLE_EQ(got[1], 2.5);
  // The rest from the trajectory: a visit replaces the holder's estimate by the model it sends on.
  std::vector<double> expected(8, 0.0);
  for (int r = 0; r < 2; ++r) {
    const auto tr = walk_sgd_trajectory(walk, d, p, r);
    std::vector<double> est{0.5, 1.5, -1.0, 3.0};
    for (int t = 0; t <= 12; ++t) {
      if (t > 0) est[tr.holders[t - 1]] = tr.models[t][0];
      if (t % 4 != 0) continue;
      double sums[2] = {0, 0};
      for (int u = 0; u < 4; ++u)
        for (int v = u + 1; v < 4; ++v) sums[(u + v) % 2] += std::abs(est[u] - est[v]);
      expected[(t / 4) * 2] += sums[0] / 2 / 2;
      expected[(t / 4) * 2 + 1] += sums[1] / 4 / 2;
    }
  }
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
  // The default starts every estimate at x_0 = 0: no discrepancy at step 0.
  p.local_initial_estimate = false;
  const std::vector<double> zero = walk_sgd_discrepancy(walk, d, p, cls, 2);
  EXPECT_EQ(zero[0], 0.0);
  EXPECT_EQ(zero[1], 0.0);
}

}  // namespace
}  // namespace netdp
