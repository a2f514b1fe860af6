// MF-D-SGD (docs/math.md §9.2, docs/mf.md "netdp mf-sgd"): the noise's covariance by Monte Carlo, the
// noiseless run with W = J/n against centralized SGD written here, the noise's place in the step, the
// independence of the thread count, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_correlation.hpp"
#include "netdp/mf/mf_sgd.hpp"
#include "netdp/mf/mf_trust.hpp"
#include "support/test_support.hpp"

namespace netdp::mf {
namespace {

using testing::expect_invalid;
using testing::identity_gossip;

/// The objective and the participation schedule over T = steps, every other parameter at its default.
MfSgdParams params(Objective objective, const std::string& participation, int steps) {
  MfSgdParams p;
  p.objective = objective;
  p.participation = parse_participation(participation, steps);
  return p;
}

TEST(MfSgd, NoiseCovarianceIsCInverseCInverseT) {
  // N_u = s C^-1 Z_u has covariance s^2 C^-1 C^-T over the steps (every coordinate). 20000 runs x 2
  // coordinates = 40000 samples; an entry's estimate has standard error sqrt((S_ii S_jj + S_ij^2) / N):
  // allow 5 of them.
  const int T = 4, dim = 2, runs = 20000;
  const Matrix c = toeplitz(sr_coefficients(T), 0, false);
  Matrix inv = c;
  ASSERT_TRUE(invert(inv));
  const double scale = 1.5;
  const Matrix expected = multiply(inv, inv, false, true);
  Matrix sum(T, T);
  for (int r = 0; r < runs; ++r) {
    const Matrix z = mf_sgd_noise(inv, scale, 7, r, 3, dim);
    for (int k = 0; k < dim; ++k)
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) sum(i, j) += z(i, k) * z(j, k);
  }
  const double samples = double(runs) * dim;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      const double sij = scale * scale * expected(i, j), sii = scale * scale * expected(i, i),
                   sjj = scale * scale * expected(j, j);
      const double se = std::sqrt((sii * sjj + sij * sij) / samples);
      EXPECT_NEAR(sum(i, j) / samples, sij, 5 * se) << i << ", " << j;
    }
  // Distinct nodes and runs draw distinct noise.
  EXPECT_NE(mf_sgd_noise(inv, 1, 7, 0, 0, 1).a, mf_sgd_noise(inv, 1, 7, 0, 1, 1).a);
  EXPECT_NE(mf_sgd_noise(inv, 1, 7, 0, 0, 1).a, mf_sgd_noise(inv, 1, 7, 1, 0, 1).a);
}

TEST(MfSgd, NoiselessCompleteGraphIsCentralizedSgd) {
  // W = J/n (average on the complete graph), sigma = 0: every node holds the same model, and one step is
  // theta -= eta ((1/n) sum_u (sum_{i in B_u(t)} clip(g_i)) / |B_u(t)| + mu theta).
  const Graph g = make_graph("complete:n=5");
  const CsrMatrix w = mf_gossip_matrix(g, "average");
  const LocalData data = synthetic_data(Objective::least_squares, 5, 3, 7, 11);
  MfSgdParams p = params(Objective::least_squares, "cyclic:b=2,k=3", 6);
  p.step_size = 0.3;
  p.clip = 0.8;
  p.sigma = 0;
  p.l2 = 0.05;
  const auto models = mf_sgd_trajectory(w, {toeplitz(sr_coefficients(6), 0, false)}, data, p, 0);
  ASSERT_EQ(models.size(), 7u);
  std::vector<double> theta(3, 0.0);
  for (int t = 0; t < 6; ++t) {
    std::vector<double> step(3, 0.0);
    for (node_t u = 0; u < 5; ++u) {
      std::vector<double> sum(3, 0.0);
      int size = 0;
      for (std::int64_t i = data.offsets[u]; i < data.offsets[u + 1]; ++i) {
        if ((i - data.offsets[u]) % 2 != t % 2) continue;
        ++size;
        const auto x = data.x(i);
        double r = -data.labels[i];
        for (int k = 0; k < 3; ++k) r += x[k] * theta[k];
        double norm = 0.0;
        for (int k = 0; k < 3; ++k) norm += r * x[k] * r * x[k];
        const double f = std::sqrt(norm) > p.clip ? p.clip / std::sqrt(norm) : 1.0;
        for (int k = 0; k < 3; ++k) sum[k] += f * r * x[k];
      }
      for (int k = 0; k < 3; ++k) step[k] += (sum[k] / size + p.l2 * theta[k]) / 5;
    }
    for (int k = 0; k < 3; ++k) theta[k] -= p.step_size * step[k];
    for (node_t u = 0; u < 5; ++u)
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(models[t + 1](u, k), theta[k], 1e-13) << "t " << t << " u " << u;
  }
}

TEST(MfSgd, NoiseEntersTheLocalStep) {
  // W = I, quadratic loss, no clipping in effect: the noisy minus the noiseless model follows
  // e_{t+1} = (1 - eta) e_t - eta N_u[t] / |B|, with N_u from mf_sgd_noise.
  const LocalData data = synthetic_data(Objective::quadratic, 2, 2, 4, 3);
  const CsrMatrix w = identity_gossip(2);
  MfSgdParams p = params(Objective::quadratic, "cyclic:b=2,k=2", 4);
  p.step_size = 0.2;
  p.clip = 1e6;
  p.sigma = 0.7;
  p.seed = 5;
  const Matrix c = prefix_sum(4);
  const auto noisy = mf_sgd_trajectory(w, {c}, data, p, 2);
  MfSgdParams quiet = p;
  quiet.sigma = 0;
  const auto clean = mf_sgd_trajectory(w, {c}, data, quiet, 2);
  Matrix inv = c;
  ASSERT_TRUE(invert(inv));
  const double scale = p.clip * p.sigma * sensitivity(c, p.participation);
  for (node_t u = 0; u < 2; ++u) {
    const Matrix nu = mf_sgd_noise(inv, scale, 5, 2, u, 2);
    std::vector<double> e(2, 0.0);
    for (int t = 0; t < 4; ++t)
      for (int k = 0; k < 2; ++k) {
        e[k] = (1 - p.step_size) * e[k] - p.step_size * nu(t, k) / 2;  // |B| = 4 examples / 2 batches
        EXPECT_NEAR(noisy[t + 1](u, k) - clean[t + 1](u, k), e[k], 1e-9 * std::max(1.0, std::abs(e[k])));
      }
  }
}

TEST(MfSgd, ThreadCountDoesNotChangeResults) {
  const CsrMatrix w = mf_gossip_matrix(make_graph("er:n=12,p=0.3,seed=4"), "average");
  const LearningSplit split = learning_split(synthetic_data(Objective::logistic, 1, 4, 600, 9),
                                             Objective::logistic, 12, 0.2, true, 9);
  MfSgdParams p = params(Objective::logistic, "cyclic:b=4,k=2", 8);
  p.runs = 6;
  p.sigma = 2;
  p.eval_every = 3;
  const std::vector<Matrix> c = {toeplitz(sr_coefficients(8), 0, false)};
  auto run = [&] { return mf_sgd(w, c, split.train, split.test, p); };
  const MfSgdResult one = testing::with_threads(1, run), two = testing::with_threads(2, run);
  EXPECT_EQ(one.step, (std::vector<std::int64_t>{0, 3, 6, 8}));
  EXPECT_EQ(one.objective.mean, two.objective.mean);
  EXPECT_EQ(one.objective.std, two.objective.std);
  EXPECT_EQ(one.accuracy.mean, two.accuracy.mean);
  EXPECT_EQ(one.consensus.max, two.consensus.max);
  EXPECT_GT(one.objective.std.back(), 0.0);  // the runs differ
}

TEST(MfSgd, BadInput) {
  const CsrMatrix w = identity_gossip(2);
  const LocalData data = synthetic_data(Objective::quadratic, 2, 2, 3, 1);
  MfSgdParams p = params(Objective::quadratic, "every", 2);
  const std::vector<Matrix> c = {Matrix::identity(2)};
  MfSgdParams bad = p;
  bad.step_size = 0;
  expect_invalid([&] { validate(bad, w, c, data); }, "step-size");
  bad = p;
  bad.clip = 0;
  expect_invalid([&] { validate(bad, w, c, data); }, "clip");
  bad = p;
  bad.participation = parse_participation("single", 4);  // b = 4 batches, 3 examples per node
  expect_invalid([&] { validate(bad, w, {Matrix::identity(4)}, data); }, "participation");
  expect_invalid([&] { validate(p, w, {Matrix::identity(3)}, data); }, "correlation");
  expect_invalid([&] { validate(p, identity_gossip(3), c, data); }, "data");
  Matrix singular(2, 2);
  singular.a = {1.0, 0.0, 1.0, 0.0};
  expect_invalid([&] { mf_sgd_trajectory(w, {singular}, data, p, 0); }, "correlation");
}

}  // namespace
}  // namespace netdp::mf
