// Random-walk DP-SGD (docs/walk_sgd.md, docs/math.md §4.3, §5.1): without noise the walk is plain SGD along
// its holders (plain SGD written again here), the noise has the stated variance, clipping happens where
// documented, the calibration inverts the accountant, results do not depend on the thread count, the
// learning split, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "netdp/bounds/complete_graph_sgd.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/dp/calibration.hpp"
#include "netdp/jobs/walk_sgd_job.hpp"
#include "netdp/simulation/walk_sgd.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

/// Logistic gradient of one example, written out again: -y x / (1 + exp(y x^T theta)).
std::vector<double> logistic_gradient(const LocalData& d, std::int64_t i, const std::vector<double>& theta) {
  double margin = 0;
  for (int k = 0; k < d.dim; ++k) margin += d.features[i * d.dim + k] * theta[k];
  const double y = d.labels[i], c = -y / (1 + std::exp(y * margin));
  std::vector<double> g(d.dim);
  for (int k = 0; k < d.dim; ++k) g[k] = c * d.features[i * d.dim + k];
  return g;
}

void clip_to(std::vector<double>& g, double clip) {
  double norm2 = 0;
  for (double x : g) norm2 += x * x;
  if (clip > 0 && norm2 > clip * clip)
    for (double& x : g) x *= clip / std::sqrt(norm2);
}

WalkSgdParams small_params() {
  WalkSgdParams p;
  p.objective = Objective::logistic;
  p.variant = WalkSgdVariant::centralized;
  p.steps = 60;
  p.step_size = 0.5;
  p.seed = 11;
  return p;
}

/// A walk on complete:n=N over n nodes with `samples` logistic examples of `dim` features each, and
/// small_params(): the small cases below.
struct SmallCase {
  LocalData d;
  WalkModel walk;
  WalkSgdParams p;
};
SmallCase small_complete_case(node_t n, int dim, int samples, std::uint64_t seed) {
  return {synthetic_data(Objective::logistic, n, dim, samples, seed),
          make_walk_model("complete:n=" + std::to_string(n), "auto"), small_params()};
}

TEST(WalkSgd, WithoutNoiseIsPlainSgdAlongTheHolders) {
  const LocalData d = synthetic_data(Objective::logistic, 6, 3, 4, 3);
  for (const char* graph : {"complete:n=6", "ring:n=6"}) {
    for (double clip : {0.0, 0.3}) {
      const WalkModel walk = make_walk_model(graph, "auto");
      WalkSgdParams p = small_params();
      p.clip = clip;
      p.l2 = 0.01;
      const WalkSgdTrajectory tr = walk_sgd_trajectory(walk, d, p, 2);
      ASSERT_EQ(tr.models.size(), 61u);
      ASSERT_EQ(tr.holders.size(), 60u);
      std::vector<double> x(3, 0.0);
      for (int t = 0; t < 60; ++t) {
        const node_t v = tr.holders[t];
        if (t > 0 && std::string(graph) == "ring:n=6") {  // ring walk: the holder moves to a neighbour
          EXPECT_EQ(std::min((v - tr.holders[t - 1] + 6) % 6, (tr.holders[t - 1] - v + 6) % 6), 1);
        }
        std::vector<double> mean(3, 0.0);
        for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
          auto g = logistic_gradient(d, i, x);
          clip_to(g, clip);  // per-example clipping (the default order)
          for (int k = 0; k < 3; ++k) mean[k] += g[k] / double(d.size(v));
        }
        for (int k = 0; k < 3; ++k) x[k] -= p.step_size * (mean[k] + p.l2 * x[k]);
        for (int k = 0; k < 3; ++k) ASSERT_NEAR(tr.models[t + 1][k], x[k], 1e-14) << graph << " t " << t;
      }
    }
  }
}

TEST(WalkSgd, ClipAfterNoiseClipsTheNoisyGradient) {
  // The documented layout: step t's noise is the first ceil(p/2) normal pairs at offset (t + 1) << 20 of the
  // run's stream; after-noise clips gradient + sigma z as a whole.
  auto [d, walk, p] = small_complete_case(5, 3, 2, 8);
  p.sigma = 0.7;
  p.clip = 0.4;
  p.clip_order = WalkSgdClipOrder::after_noise;
  const std::int64_t run = 3;
  const WalkSgdTrajectory tr = walk_sgd_trajectory(walk, d, p, run);
  std::vector<double> x(3, 0.0);
  for (int t = 0; t < 60; ++t) {
    PhiloxStream s(p.seed, run_subsequence(kWalkSgdStream, run), static_cast<std::uint64_t>(t + 1) << 20);
    const auto [z0, z1] = s.next_normal_pair();
    const auto [z2, z3] = s.next_normal_pair();
    (void)z3;
    const double z[3] = {z0, z1, z2};
    const node_t v = tr.holders[t];
    std::vector<double> g(3, 0.0);
    for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
      const auto gi = logistic_gradient(d, i, x);
      for (int k = 0; k < 3; ++k) g[k] += gi[k] / double(d.size(v));
    }
    for (int k = 0; k < 3; ++k) g[k] += p.sigma * z[k];
    clip_to(g, p.clip);
    double norm2 = 0;
    for (int k = 0; k < 3; ++k) {
      norm2 += (tr.models[t + 1][k] - tr.models[t][k]) * (tr.models[t + 1][k] - tr.models[t][k]);
      x[k] -= p.step_size * g[k];
      ASSERT_NEAR(tr.models[t + 1][k], x[k], 1e-13) << "t " << t;
    }
    EXPECT_LE(std::sqrt(norm2), p.step_size * p.clip * (1 + 1e-12));  // every move is at most gamma L
  }
}

TEST(WalkSgd, NoiseHasTheCalibratedVariance) {
  // Targets 0 and x_0 = 0: the quadratic gradient vanishes, so x_1 = -gamma sigma z ~ N(0, gamma^2 sigma^2).
  LocalData d;
  d.n = 4;
  d.dim = 2;
  d.offsets = {0, 1, 2, 3, 4};
  d.features.assign(8, 0.0);
  const WalkModel walk = make_walk_model("complete:n=4", "auto");
  WalkSgdParams p;
  p.objective = Objective::quadratic;
  p.steps = 1;
  p.step_size = 0.5;
  p.sigma = 3.0;
  p.seed = 5;
  const int runs = 5000;
  double sum = 0, squares = 0;
  for (int r = 0; r < runs; ++r) {
    const auto tr = walk_sgd_trajectory(walk, d, p, r);
    for (double x : tr.models[1]) {
      sum += x;
      squares += x * x;
    }
  }
  const double n = 2.0 * runs, variance = squares / n - (sum / n) * (sum / n), expected = 0.25 * 9.0;
  EXPECT_NEAR(sum / n, 0.0, 4 * std::sqrt(expected / n));
  EXPECT_NEAR(variance / expected, 1.0, 4 * std::sqrt(2.0 / n));  // 4 standard errors of the estimate
}

TEST(WalkSgd, CapStopsContributionsAsEachVariantSays) {
  auto [d, walk, p] = small_complete_case(2, 2, 3, 1);
  p.steps = 40;
  p.cap = 3;
  p.sigma = 0.5;
  p.variant = WalkSgdVariant::local;  // after 3 visits of each node: the model stops moving
  auto tr = walk_sgd_trajectory(walk, d, p, 0);
  int moves = 0;
  for (int t = 0; t < 40; ++t) moves += tr.models[t + 1] != tr.models[t];
  EXPECT_EQ(moves, 6);
  p.variant = WalkSgdVariant::network;  // later visits: noise only, so it keeps moving
  tr = walk_sgd_trajectory(walk, d, p, 0);
  moves = 0;
  for (int t = 0; t < 40; ++t) moves += tr.models[t + 1] != tr.models[t];
  EXPECT_EQ(moves, 40);
  const auto r = walk_sgd(walk, d, d, p);
  EXPECT_EQ(r.max_contributions_mean.back(), 3.0);
}

TEST(WalkSgd, CalibrationMatchesTheReferenceValuesAndRoundTrips) {
  // docs/math.md §4.3.3 [VERIFIED]: L = 0.4, n = 2000, T = 20000, delta = 1e-6, eps = 1.
  bounds::SigmaSearchParams s = testing::code_sigma_search(1, 1e-6, 20000, 0.4);
  EXPECT_NEAR(calibrate_walk_sgd(WalkSgdVariant::local, 2000, s).sigma, 46.87, 0.005);
  EXPECT_NEAR(calibrate_walk_sgd(WalkSgdVariant::centralized, 2000, s).sigma, 6.968, 0.0005);
  const auto net = calibrate_walk_sgd(WalkSgdVariant::network, 2000, s);
  EXPECT_NEAR(net.sigma, 10.98, 0.005);
  EXPECT_EQ(net.cap, 12);  // ceil(1.2 T / n)
  EXPECT_EQ(calibrate_walk_sgd(WalkSgdVariant::centralized, 2000, s).cap, 0);

  // Thesis procedure: sigma -> epsilon by the network RDP bound (§4.3.1) -> sigma.
  s.procedure = bounds::SigmaProcedure::thesis;
  const double sigma = calibrate_walk_sgd(WalkSgdVariant::network, 2000, s).sigma;
  auto epsilon_of = [&](double x) {
    bounds::SgdParams q;
    q.steps = 20000;
    q.lipschitz = 0.4;
    q.delta = 1e-6;
    q.sigma = x;
    return bounds::sgd_network_rdp(2000, q).epsilon;
  };
  EXPECT_NEAR(epsilon_of(sigma), 1.0, 1e-6);
  EXPECT_GT(epsilon_of(sigma * (1 - 1e-6)), 1.0);
  EXPECT_NEAR(dp::calibrate_sigma(epsilon_of, epsilon_of(sigma)), sigma, 1e-8 * sigma);
}

TEST(WalkSgd, SameSeedSameResultsForOneAndTwoThreads) {
  const LocalData rows = synthetic_data(Objective::logistic, 1, 4, 600, 2);
  const LearningSplit split = learning_split(rows, Objective::logistic, 20, 0.2, true, 2);
  const WalkModel ring = make_walk_model("ring:n=20", "auto");
  WalkSgdParams p = small_params();
  p.variant = WalkSgdVariant::network;
  p.sigma = 0.3;
  p.clip = 0.4;
  p.cap = 5;
  p.batch = 3;
  p.runs = 7;
  p.steps = 300;
  p.eval_every = 25;
  auto run = [&] { return walk_sgd(ring, split.train, split.test, p); };
  const auto one = testing::with_threads(1, run), two = testing::with_threads(2, run);
  ASSERT_EQ(one.step.size(), 13u);
  EXPECT_EQ(one.step.back(), 300);
  EXPECT_EQ(one.objective.mean, two.objective.mean);
  EXPECT_EQ(one.objective.std, two.objective.std);
  EXPECT_EQ(one.accuracy.mean, two.accuracy.mean);
  EXPECT_EQ(one.max_contributions_mean, two.max_contributions_mean);
  EXPECT_GT(one.objective.std.back(), 0);  // the runs differ from each other
  for (std::size_t e = 0; e < one.step.size(); ++e) {
    EXPECT_LE(one.objective.min[e], one.objective.mean[e]);
    EXPECT_GE(one.objective.max[e], one.objective.mean[e]);
  }
}

TEST(WalkSgd, LearningSplitStandardisesNormalisesAndSplits) {
  const LocalData rows = synthetic_data(Objective::logistic, 1, 8, 20640, 4);
  const LearningSplit s = learning_split(rows, Objective::logistic, 2000, 0.2, true, 4);
  EXPECT_EQ(s.train.n, 2000);
  EXPECT_EQ(s.train.dim, 9);
  EXPECT_EQ(s.train.size(0), 8);  // int(16512 / 2000)
  EXPECT_EQ(s.train.examples() + s.dropped + s.test.examples(), 20640);
  EXPECT_NEAR(double(s.test.examples()), 4128, 1);
  for (const LocalData* d : {&s.train, &s.test}) {
    for (std::int64_t i = 0; i < d->examples(); ++i) {
      double norm2 = 0;
      for (int k = 0; k < 8; ++k) norm2 += d->features[i * 9 + k] * d->features[i * 9 + k];
      ASSERT_NEAR(norm2, 1.0, 1e-12);
      ASSERT_EQ(d->features[i * 9 + 8], 1.0);  // the intercept
    }
  }
  std::int64_t positive_all = 0, positive_test = 0;
  for (double y : rows.labels) positive_all += y > 0;
  for (double y : s.test.labels) positive_test += y > 0;
  EXPECT_NEAR(double(positive_test), 0.2 * double(positive_all), 1.0);  // stratified
}

// Found by the data_csv fuzz target (tests/fuzz/corpus/data_csv/huge_column_split.csv): quadratic rows have
// no labels, and the split read them to form its strata (walk-sgd --objective quadratic crashed, with or
// without
// --data).
TEST(WalkSgd, LearningSplitOfQuadraticRowsReadsNoLabels) {
  const LocalData rows = synthetic_data(Objective::quadratic, 1, 3, 50, 2);
  ASSERT_TRUE(rows.labels.empty());
  const LearningSplit s = learning_split(rows, Objective::quadratic, 4, 0.2, false, 2);
  EXPECT_EQ(s.test.examples(), 10);
  EXPECT_EQ(s.train.examples() + s.dropped, 40);
  EXPECT_TRUE(s.train.labels.empty());
  EXPECT_NO_THROW(validate(s.train, Objective::quadratic));
  EXPECT_NO_THROW(validate(s.test, Objective::quadratic));
}

// Found by the same input: a column near the largest double overflowed the standardisation's sums and gave
// NaN features that no check caught. Standardising does not depend on the column's scale, so the split must
// match that of the column divided by 1e300.
TEST(WalkSgd, LearningSplitStandardisesColumnsNearTheLargestDouble) {
  LocalData huge;
  huge.n = 1;
  huge.dim = 2;
  huge.offsets = {0, 4};
  huge.features = {1e308, 1, 1e308, 2, -1e308, 3, 1e308, 4};
  LocalData small = huge;
  for (std::size_t i = 0; i < small.features.size(); i += 2) small.features[i] /= 1e300;
  const LearningSplit a = learning_split(huge, Objective::quadratic, 1, 0.5, true, 7),
                      b = learning_split(small, Objective::quadratic, 1, 0.5, true, 7);
  for (const auto& [x, y] : {std::pair{&a.train, &b.train}, std::pair{&a.test, &b.test}}) {
    ASSERT_EQ(x->features.size(), y->features.size());
    for (std::size_t i = 0; i < x->features.size(); ++i) {
      ASSERT_TRUE(std::isfinite(x->features[i]));
      EXPECT_NEAR(x->features[i], y->features[i], 1e-12);
    }
  }
}

TEST(WalkSgd, BadInputNamesTheParameter) {
  auto [d, walk, p] = small_complete_case(4, 2, 3, 1);
  p.batch = 4;
  testing::expect_invalid([&] { walk_sgd(walk, d, d, p); }, "batch");
  p.batch = 0;
  p.step_size = 0;
  testing::expect_invalid([&] { walk_sgd(walk, d, d, p); }, "step-size");
  p.step_size = 0.1;
  testing::expect_invalid([&] { walk_sgd(make_walk_model("complete:n=5", "auto"), d, d, p); }, "graph");
  testing::expect_invalid([] { parse_walk_sgd_variant("federated"); }, "variant");
  testing::expect_invalid([&] { learning_split(d, Objective::logistic, 100, 0.2, true, 0); }, "graph");
}

}  // namespace
}  // namespace netdp
