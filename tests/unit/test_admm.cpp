// Private consensus ADMM (docs/admm.md, docs/math.md §8): without noise every setting converges to the ridge
// solution solved in closed form here; the proximal maps meet their optimality conditions; the noisy update
// follows the documented stream layout; the averaged operator contracts as tau says; the privacy of each
// setting by hand on tiny instances; the calibration round trip; the Thm 8.5 bound by hand; results do not
// depend on the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "common/admm_bodies.hpp"
#include "netdp/accounting/admm_privacy.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/admm.hpp"
#include "netdp/simulation/admm_prox.hpp"

namespace netdp {
namespace {

/// The ridge least-squares solution written out again: A theta = b with A = (1/n) sum_i (1/m_i) X_i^T X_i +
/// mu I, b = (1/n) sum_i (1/m_i) X_i^T y_i, by Gaussian elimination with partial pivoting.
std::vector<double> ridge_solution(const LocalData& d, double mu) {
  const int p = d.dim;
  std::vector<double> a(p * (p + 1), 0.0);  // augmented [A | b]
  for (node_t i = 0; i < d.n; ++i)
    for (std::int64_t j = d.offsets[i]; j < d.offsets[i + 1]; ++j) {
      const double w = 1.0 / (double(d.n) * double(d.size(i)));
      for (int r = 0; r < p; ++r) {
        for (int c = 0; c < p; ++c) a[r * (p + 1) + c] += w * d.features[j * p + r] * d.features[j * p + c];
        a[r * (p + 1) + p] += w * d.features[j * p + r] * d.labels[j];
      }
    }
  for (int r = 0; r < p; ++r) a[r * (p + 1) + r] += mu;
  for (int c = 0; c < p; ++c) {
    int best = c;
    for (int r = c + 1; r < p; ++r)
      if (std::fabs(a[r * (p + 1) + c]) > std::fabs(a[best * (p + 1) + c])) best = r;
    for (int k = 0; k <= p; ++k) std::swap(a[c * (p + 1) + k], a[best * (p + 1) + k]);
    for (int r = 0; r < p; ++r) {
      if (r == c) continue;
      const double f = a[r * (p + 1) + c] / a[c * (p + 1) + c];
      for (int k = 0; k <= p; ++k) a[r * (p + 1) + k] -= f * a[c * (p + 1) + k];
    }
  }
  std::vector<double> x(p);
  for (int r = 0; r < p; ++r) x[r] = a[r * (p + 1) + p] / a[r * (p + 1) + r];
  return x;
}

AdmmParams ridge_params(AdmmSetting s) {
  AdmmParams p;
  p.objective = Objective::least_squares;
  p.setting = s;
  p.l2 = 0.1;
  p.step_size = 6;  // weighted: prox step 1 on 6 users
  p.relaxation = 0.8;
  p.sampled = 2;
  p.seed = 5;
  return p;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return std::sqrt(s);
}

TEST(Admm, WithoutNoiseEverySettingConvergesToTheRidgeSolution) {
  const LocalData d = synthetic_data(Objective::least_squares, 6, 3, 4, 7);
  const std::vector<double> theta = ridge_solution(d, 0.1);
  for (auto [setting, steps] :
       {std::pair{AdmmSetting::centralized, 300}, std::pair{AdmmSetting::federated, 1500},
        std::pair{AdmmSetting::walk, 4000}}) {
    for (auto scale : {AdmmProxScale::weighted, AdmmProxScale::unweighted}) {
      SCOPED_TRACE(to_string(setting) + " " + to_string(scale));
      AdmmParams p = ridge_params(setting);
      p.prox_scale = scale;
      p.steps = steps;
      const AdmmTrajectory t = admm_trajectory(d, p, 0);
      ASSERT_EQ(t.z.size(), std::size_t(steps) + 1);
      EXPECT_LT(distance(t.z.back(), theta), 1e-9);
      const std::vector<double> u_star = admm_fixed_point(p, d, theta);
      EXPECT_LT(distance(t.u, u_star), 1e-8);
    }
  }
}

TEST(Admm, FederatedWithEveryUserIsCentralized) {
  const LocalData d = synthetic_data(Objective::logistic, 5, 3, 6, 2);
  AdmmParams p = ridge_params(AdmmSetting::centralized);
  p.objective = Objective::logistic;
  p.steps = 40;
  const AdmmTrajectory c = admm_trajectory(d, p, 1);
  p.setting = AdmmSetting::federated;
  p.sampled = 5;
  const AdmmTrajectory f = admm_trajectory(d, p, 1);
  for (std::size_t k = 0; k < c.z.size(); ++k) EXPECT_LT(distance(c.z[k], f.z[k]), 1e-12) << k;
}

TEST(Admm, ProximalMapsMeetTheirOptimalityConditions) {
  // c grad f_i(x) + x - v = 0, grad f_i = (1/m) sum_j grad l(x; j) + mu x, gradients written out here.
  for (auto o : {Objective::quadratic, Objective::least_squares, Objective::logistic}) {
    SCOPED_TRACE(to_string(o));
    const LocalData d = synthetic_data(o, 3, 4, 5, 9);
    const double c = 0.7, mu = 0.05;
    const AdmmProx prox(o, d, mu, c, 8);
    const std::vector<double> v{0.3, -1.2, 2.0, 0.5};
    std::vector<double> x(4, 0.0), scratch(prox.scratch_size());
    prox.apply(1, v.data(), x.data(), scratch.data());
    std::vector<double> g(4, 0.0);
    for (std::int64_t j = d.offsets[1]; j < d.offsets[2]; ++j) {
      const double* a = d.features.data() + j * 4;
      double m = 0;
      for (int k = 0; k < 4; ++k) m += a[k] * x[k];
      for (int k = 0; k < 4; ++k) {
        if (o == Objective::quadratic) g[k] += x[k] - a[k];
        if (o == Objective::least_squares) g[k] += (m - d.labels[j]) * a[k];
        if (o == Objective::logistic) g[k] += -d.labels[j] * a[k] / (1 + std::exp(d.labels[j] * m));
      }
    }
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(c * (g[k] / 5 + mu * x[k]) + x[k] - v[k], 0.0, 1e-12) << k;
  }
}

TEST(Admm, NoisyStepFollowsTheStreamLayout) {
  // Quadratic loss, one centralized step from u = z = 0: x_i = prox(0) = c mean_i / (c (1 + mu) + 1) and
  // u_i = 2 lambda (x_i + sigma eta_i / 2), eta_i the pairs of offset 1 << 32, user by user.
  const LocalData d = synthetic_data(Objective::quadratic, 3, 3, 2, 4);
  AdmmParams p;
  p.objective = Objective::quadratic;
  p.steps = 1;
  p.step_size = 1.5;  // weighted: c = 0.5
  p.sigma = 0.8;
  p.relaxation = 0.6;
  p.l2 = 0.2;
  p.seed = 17;
  const AdmmTrajectory t = admm_trajectory(d, p, 3);
  PhiloxStream words(17, run_subsequence(kAdmmStream, 3), std::uint64_t{1} << 32);
  std::vector<double> z(3, 0.0);
  for (node_t i = 0; i < 3; ++i) {
    std::vector<double> eta;
    for (int k = 0; k < 2; ++k) {
      const auto [a, b] = words.next_normal_pair();
      eta.push_back(a);
      eta.push_back(b);
    }
    for (int k = 0; k < 3; ++k) {
      const double mean = (d.features[(2 * i) * 3 + k] + d.features[(2 * i + 1) * 3 + k]) / 2;
      const double x = 0.5 * mean / (0.5 * 1.2 + 1);
      const double u = 2 * 0.6 * (x + 0.8 * eta[k] / 2);
      EXPECT_NEAR(t.u[i * 3 + k], u, 1e-14);
      z[k] += u / 3;
    }
  }
  EXPECT_LT(distance(t.z[1], z), 1e-14);
}

TEST(Admm, AveragedOperatorContractsByTau) {
  // Without noise one centralized step is u <- T(u), T = lambda R + (1 - lambda) I with R tau-Lipschitz:
  // ||u_{k+1} - u*|| <= (1 - lambda + lambda tau) ||u_k - u*||.
  const LocalData d = synthetic_data(Objective::least_squares, 4, 3, 5, 1);
  AdmmParams p = ridge_params(AdmmSetting::centralized);
  p.step_size = 2;  // c = 0.5
  const double tau = admm_contraction(Objective::least_squares, d, p.l2, 0.5);
  ASSERT_LT(tau, 1.0);
  const std::vector<double> u_star = admm_fixed_point(p, d, ridge_solution(d, p.l2));
  double previous = distance(std::vector<double>(u_star.size(), 0.0), u_star);
  for (int k = 1; k <= 5; ++k) {
    p.steps = k;
    const double now = distance(admm_trajectory(d, p, 0).u, u_star);
    EXPECT_LE(now, (1 - p.relaxation + p.relaxation * tau) * previous * (1 + 1e-12)) << k;
    previous = now;
  }
  EXPECT_DOUBLE_EQ(admm_contraction(Objective::quadratic, d, 0, 1.0), 0.0);  // c a = 1: |1 - 1| / 2
  EXPECT_DOUBLE_EQ(admm_contraction(Objective::least_squares, d, 0, 1.0), 1.0);
}

TEST(Admm, PrivacyOfEachSettingByHand) {
  // Centralized, Thm 8.7: n = 4, K = 10, L = 1, gamma = 2 weighted (gamma_loc = 1/2), sigma = 3, alpha = 2:
  // 8 * 2 * 10 * 1 * 1/4 / 9 = 40/9.
  AdmmPrivacyParams p{.setting = AdmmSetting::centralized, .users = 4, .steps = 10, .step_size = 2};
  EXPECT_NEAR(admm_rdp(p, AdmmGuarantee::centralized, 3, 2), 40.0 / 9, 1e-13);
  // Classic conversion on the orders {2, 3}: min(40/9 + ln(1e5), 60/9 + ln(1e5)/2) = min(15.957, 12.423):
  // order 3.
  p.delta = 1e-5;
  p.conversion = dp::RdpConversion::classic;
  p.orders = {2, 3};
  const AdmmEpsilon e = admm_epsilon(p, AdmmGuarantee::centralized, 3);
  EXPECT_NEAR(e.epsilon, 60.0 / 9 + std::log(1e5) / 2, 1e-12);
  EXPECT_EQ(e.order, 3);
  // Federated, unweighted gamma = 1/2, L = 2, n = 10, m = 1, K = 20, alpha = 3. Thm 8.9 (K_i = K m / n = 2),
  // sigma = 4: 8 * 3 * 2 * 4 * 1/4 / 16 = 3. Thm E.9, sigma = 20 (multiplier m sigma / (4 L gamma) = 5):
  // 32 * 3 * 20 * 4 * 1/4 / (100 * 400) = 0.048, and half with the theorem's constant 16.
  p.setting = AdmmSetting::federated;
  p.users = 10;
  p.sampled = 1;
  p.steps = 20;
  p.step_size = 0.5;
  p.lipschitz = 2;
  p.prox_scale = AdmmProxScale::unweighted;
  EXPECT_NEAR(admm_rdp(p, AdmmGuarantee::federated_local, 4, 3), 3.0, 1e-13);
  EXPECT_NEAR(admm_rdp(p, AdmmGuarantee::federated_central, 20, 3), 0.048, 1e-15);
  p.subsampling_constant = 16;
  EXPECT_NEAR(admm_rdp(p, AdmmGuarantee::federated_central, 20, 3), 0.024, 1e-15);
  EXPECT_TRUE(std::isinf(admm_rdp(p, AdmmGuarantee::federated_central, 4, 3)));  // multiplier 1 < 4
  p.sampled = 2;                                                                 // q = 1/5: outside SS3
  EXPECT_TRUE(std::isinf(admm_rdp(p, AdmmGuarantee::federated_central, 20, 3)));
  // Walk, Thm 8.12: n = 8, K = 40 (K_i = 5), unweighted gamma = 1, L = 1, sigma = 5, alpha = 2:
  // 8 * 2 * 5 * ln(8) / (25 * 8) = 0.4 ln 8; alpha = 8 breaks sigma > 2 L gamma sqrt(alpha (alpha - 1)).
  p.setting = AdmmSetting::walk;
  p.users = 8;
  p.steps = 40;
  p.step_size = 1;
  p.lipschitz = 1;
  EXPECT_NEAR(admm_rdp(p, AdmmGuarantee::walk_network, 5, 2), 0.4 * std::log(8.0), 1e-13);
  EXPECT_TRUE(std::isinf(admm_rdp(p, AdmmGuarantee::walk_network, 5, 8)));
  EXPECT_DOUBLE_EQ(admm_participations(p, AdmmGuarantee::walk_network), 5.0);
}

TEST(Admm, CalibrationRoundTrip) {
  for (auto s : {AdmmSetting::centralized, AdmmSetting::federated, AdmmSetting::walk}) {
    SCOPED_TRACE(to_string(s));
    AdmmPrivacyParams p;
    p.setting = s;
    p.users = 200;
    p.sampled = 30;
    p.steps = 500;
    p.step_size = 200;
    p.lipschitz = 1.4;
    const double sigma = calibrate_admm_sigma(p, 1.0);
    const AdmmGuarantee g = calibrated_guarantee(s);
    const double eps = admm_epsilon(p, g, sigma).epsilon;
    EXPECT_LE(eps, 1.0);
    EXPECT_GT(admm_epsilon(p, g, sigma * (1 - 1e-6)).epsilon, 1.0);
    EXPECT_NEAR(calibrate_admm_sigma(p, eps), sigma, 1e-8 * sigma);
  }
}

TEST(Admm, UtilityBoundByHand) {
  // k = 0, q = 1, tau = 1/2, D = 2, dim 4, sigma 1: 2 + 8 (2 / (1/2) + 4 / (1/8)) = 290.
  EXPECT_DOUBLE_EQ(admm_utility_bound(0, 1, 0.5, 2, 4, 1), 290.0);
  // k = 3, q = 1/2: the rate (1 - (1/4)(1/2)/8)^3 multiplies D.
  EXPECT_NEAR(admm_utility_bound(3, 0.5, 0.5, 2, 4, 0), std::pow(1 - 1.0 / 64, 3) * 2, 1e-15);
  EXPECT_TRUE(std::isinf(admm_utility_bound(3, 1, 1, 2, 4, 1)));
}

TEST(Admm, ResultsDoNotDependOnTheThreadCount) {
  const LocalData d = synthetic_data(Objective::logistic, 8, 3, 5, 6);
  for (auto s : {AdmmSetting::centralized, AdmmSetting::federated, AdmmSetting::walk}) {
    AdmmParams p = ridge_params(s);
    p.objective = Objective::logistic;
    p.sigma = 0.3;
    p.steps = 30;
    p.runs = 5;
    p.eval_every = 7;
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    const AdmmResult one = admm(d, {}, p);
    omp_set_num_threads(2);
    const AdmmResult two = admm(d, {}, p);
    omp_set_num_threads(saved);
    EXPECT_EQ(one.step, (std::vector<std::int64_t>{0, 7, 14, 21, 28, 30}));
    EXPECT_EQ(one.objective.mean, two.objective.mean);
    EXPECT_EQ(one.objective.std, two.objective.std);
    EXPECT_EQ(one.accuracy.mean, two.accuracy.mean);
    EXPECT_GT(one.objective.std.back(), 0.0);  // the runs differ
  }
}

}  // namespace
}  // namespace netdp
