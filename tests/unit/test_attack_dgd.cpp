// The D-GD attack (docs/math.md §7.3): a hand-worked 3-node case, the knowledge matrix and the covariance of
// Algorithm A.1 against a slow dense implementation of the formulas, exact recovery without noise on a path
// (with and without several gossip rounds per step, with a public random initialisation), the unbiasedness of
// OLS and GLS over seeds, GLS's variance below OLS's, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "netdp/attack/attack_dgd.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
#include "test_attack_graphs.hpp"

namespace netdp::attack {
namespace {

// 0 attached to 1 and 2; 1-3, 2-3, 3-4, 4-5, 2-5: small, with cycles, attacker 0 sees two nodes.
Graph small_graph() {
  return from_edges(6, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {4, 5}, {2, 5}});
}

WeightsSpec metropolis() {
  return WeightsSpec{Weighting::metropolis, ""};
}

// Assumption 4.7 without a model: node v's update is the constant g[v].
UpdateFunction constant_updates(const std::vector<double>& g) {
  return [g](node_t v, std::span<const double>, std::span<double> out) {
    out[0] = g[static_cast<std::size_t>(v)];
  };
}

std::vector<double> normals(std::size_t count, std::uint64_t seed) {
  PhiloxStream s(seed, 99, 0);
  std::vector<double> out(count);
  for (double& x : out) x = s.next_normal_pair().first;
  return out;
}

// Path 0-1-2, W-MH: W_01 = W_12 = 1/3, W_11 = 1/3, W_22 = 2/3. Targets {1, 2}, N(A) = {1}:
// W_TT = [[1/3, 1/3], [1/3, 2/3]]. T = 2: rows e_1 and (I + W_TT)[1, :] = (4/3, 1/3). Sigma (sigma = 1):
// [1, (W_TT)_11 = 1/3; 1/3, (I + W_TT^2)_11 = 1 + 2/9]. With g = (1, 2, -3) and theta^0 = 0 the attacker
// receives theta_1^{1/2} = 2 and theta_1^{3/2} = (W g)_1 + g_1 = 2; it removes W_10 g_0 = 1/3, so
// y_hat = (2, 5/3), g_2 = 3 y_1 - 4 y_0 = -3. Var(g_hat_2) = 9 (11/9) + 16 - 24 (1/3) = 19.
TEST(AttackDgd, HandWorkedThreeNodes) {
  const DgdKnowledge k = dgd_knowledge(path(3), metropolis(), {0}, 2, 1);
  EXPECT_EQ(k.targets, (std::vector<node_t>{1, 2}));
  EXPECT_EQ(k.observed, (std::vector<node_t>{1}));
  ASSERT_EQ(k.rows, 2);
  const std::vector<double> expected_k{1, 0, 4.0 / 3, 1.0 / 3}, expected_sigma{1, 1.0 / 3, 1.0 / 3, 11.0 / 9};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(k.matrix[i], expected_k[i], 1e-15) << i;
    EXPECT_NEAR(k.covariance[i], expected_sigma[i], 1e-15) << i;
  }
  EXPECT_EQ(k.identifiable_after, (std::vector<int>{1, 2}));
  EXPECT_TRUE(k.exact);
  EXPECT_TRUE(k.primes_agree);
  EXPECT_EQ(k.rank, 2);

  const std::vector<double> theta0(3, 0.0);
  const DgdRun run = simulate_dgd(k, theta0, 1, constant_updates({1, 2, -3}), {.steps = 2});
  EXPECT_NEAR(run.observations[0], 2, 1e-15);
  EXPECT_NEAR(run.observations[1], 2, 1e-15);
  const std::vector<double> y = remove_contributions(k, theta0, run);
  EXPECT_NEAR(y[0], 2, 1e-15);
  EXPECT_NEAR(y[1], 5.0 / 3, 1e-15);
  const DgdEstimator m = dgd_estimator(k, 2);
  const DgdEstimate e = estimate_gradients(m, y, 1);
  for (const auto* g : {&e.ols, &e.gls}) {
    EXPECT_NEAR((*g)[0], 2, 1e-12);
    EXPECT_NEAR((*g)[1], -3, 1e-12);
  }
  for (const auto* v : {&m.ols_variance, &m.gls_variance}) {
    EXPECT_NEAR((*v)[0], 1, 1e-12);
    EXPECT_NEAR((*v)[1], 19, 1e-10);
  }
  // One step: only node 1 is determined; the estimate of node 1 is exact, node 2 gets the minimum norm 0.
  const DgdEstimate e1 = estimate_gradients(dgd_estimator(k, 1), y, 1);
  EXPECT_NEAR(e1.ols[0], 2, 1e-15);
  EXPECT_NEAR(e1.ols[1], 0, 1e-15);
}

// Dense W_TT and its powers: Algorithm 4.2's rows sum_{r K <= s} W_TT^{s - rK}[v, :] and Algorithm A.1's
// Sigma = sum_{r K <= min(s, s')} W_TT^{s + s' - 2 r K}[v, v'] (W symmetric), written straight from the
// formulas.
TEST(AttackDgd, KnowledgeAndCovarianceMatchDenseFormulas) {
  const Graph g = small_graph();
  for (int rounds : {1, 2}) {
    const int steps = 3, messages = steps * rounds;
    const DgdKnowledge k = dgd_knowledge(g, metropolis(), {0}, steps, rounds);
    ASSERT_EQ(k.targets.size(), 5u);
    ASSERT_EQ(k.observed, (std::vector<node_t>{1, 2}));
    const std::vector<double> w = to_dense(k.w);
    const std::size_t c = 5;
    auto wtt = [&](std::size_t i, std::size_t j) { return w[(i + 1) * 6 + j + 1]; };  // targets 1..5
    std::vector<std::vector<double>> pw{std::vector<double>(c * c, 0.0)};
    for (std::size_t i = 0; i < c; ++i) pw[0][i * c + i] = 1;
    for (int q = 1; q <= 2 * messages; ++q) {
      std::vector<double> next(c * c, 0.0);
      for (std::size_t i = 0; i < c; ++i)
        for (std::size_t j = 0; j < c; ++j)
          for (std::size_t l = 0; l < c; ++l) next[i * c + j] += pw.back()[i * c + l] * wtt(l, j);
      pw.push_back(next);
    }
    const std::size_t m = static_cast<std::size_t>(k.rows);
    ASSERT_EQ(m, static_cast<std::size_t>(messages) * 2);
    for (int s = 0; s < messages; ++s)
      for (std::size_t i = 0; i < 2; ++i) {
        const std::size_t v = k.observed[i] - 1u;
        for (std::size_t j = 0; j < c; ++j) {
          double sum = 0;
          for (int r = 0; r * rounds <= s; ++r)
            sum += pw[static_cast<std::size_t>(s - r * rounds)][v * c + j];
          EXPECT_NEAR(k.matrix[(static_cast<std::size_t>(s) * 2 + i) * c + j], sum, 1e-13);
        }
        for (int s2 = 0; s2 < messages; ++s2)
          for (std::size_t i2 = 0; i2 < 2; ++i2) {
            const std::size_t v2 = k.observed[i2] - 1u;
            double sum = 0;
            for (int r = 0; r * rounds <= std::min(s, s2); ++r)
              sum += pw[static_cast<std::size_t>(s + s2 - 2 * r * rounds)][v * c + v2];
            EXPECT_NEAR(k.covariance[(static_cast<std::size_t>(s) * 2 + i) * m +
                                     static_cast<std::size_t>(s2) * 2 + i2],
                        sum, 1e-13);
          }
      }
  }
}

// An attacker at the end of a path of n nodes: the rows span e_1, e_1 W_TT, ... (a Krylov space of a
// tridiagonal matrix), so node j is determined after exactly j gradient steps; with T = n - 1 steps and no
// noise every gradient is recovered, whatever the public initialisation (removed by the parallel gossip).
// With K = 2 gossip rounds per step the rows of step t reach node 2t.
TEST(AttackDgd, ExactRecoveryWithoutNoiseOnAPath) {
  const node_t n = 10;
  const std::vector<double> g = normals(10, 1), theta0 = normals(10, 2);
  for (int rounds : {1, 2}) {
    const int steps = rounds == 1 ? 9 : 5;
    const DgdKnowledge k = dgd_knowledge(path(n), metropolis(), {0}, steps, rounds);
    for (std::size_t j = 0; j < k.targets.size(); ++j)
      EXPECT_EQ(k.identifiable_after[j], (static_cast<int>(j) + rounds) / rounds) << "node " << j + 1;
    EXPECT_TRUE(k.primes_agree);
    const DgdRun run =
        simulate_dgd(k, theta0, 1, constant_updates(g), {.steps = steps, .gossip_rounds = rounds});
    const std::vector<double> y = remove_contributions(k, theta0, run);
    const DgdEstimate e = estimate_gradients(dgd_estimator(k, steps), y, 1);
    for (std::size_t j = 0; j < k.targets.size(); ++j) {
      EXPECT_NEAR(e.ols[j], g[j + 1], 1e-7 * (1 + std::abs(g[j + 1]))) << "node " << j + 1;
      EXPECT_NEAR(e.gls[j], g[j + 1], 1e-7 * (1 + std::abs(g[j + 1]))) << "node " << j + 1;
    }
  }
}

// Under Assumption 4.7 both estimators are unbiased for the determined targets: over R runs with independent
// noise the mean error is within 4 standard errors of 0 (the standard error from the estimator's own variance
// sigma^2 diag(M Sigma M^T)), the empirical variance matches it, and GLS's variance is at most OLS's
// (Gauss-Markov), here strictly below for some target (6 rows, 5 unknowns).
TEST(AttackDgd, OlsAndGlsAreUnbiasedAndGlsHasTheSmallerVariance) {
  const Graph g = small_graph();
  const int steps = 3, runs = 400;
  const double sigma = 0.5;
  const DgdKnowledge k = dgd_knowledge(g, metropolis(), {0}, steps, 1);
  for (int after : k.identifiable_after) ASSERT_GE(after, 1);
  const std::vector<double> truth = normals(6, 3), theta0(6, 0.0);
  const std::size_t c = k.targets.size();
  std::vector<double> sum_ols(c, 0), sum_gls(c, 0), sq_ols(c, 0), sq_gls(c, 0);
  const DgdEstimator m = dgd_estimator(k, steps);
  for (int r = 0; r < runs; ++r) {
    const DgdRun run = simulate_dgd(k, theta0, 1, constant_updates(truth),
                                    {.steps = steps, .sigma = sigma, .seed = 7, .run = r});
    const DgdEstimate e = estimate_gradients(m, remove_contributions(k, theta0, run), 1);
    for (std::size_t j = 0; j < c; ++j) {
      const double a = e.ols[j] - truth[k.targets[j]], b = e.gls[j] - truth[k.targets[j]];
      sum_ols[j] += a, sum_gls[j] += b, sq_ols[j] += a * a, sq_gls[j] += b * b;
    }
  }
  bool strictly_better = false;
  for (std::size_t j = 0; j < c; ++j) {
    const double var_ols = sigma * sigma * m.ols_variance[j], var_gls = sigma * sigma * m.gls_variance[j];
    EXPECT_LE(var_gls, var_ols * (1 + 1e-9)) << "target " << j;
    strictly_better = strictly_better || var_gls < 0.99 * var_ols;
    EXPECT_LT(std::abs(sum_ols[j] / runs), 4 * std::sqrt(var_ols / runs)) << "OLS target " << j;
    EXPECT_LT(std::abs(sum_gls[j] / runs), 4 * std::sqrt(var_gls / runs)) << "GLS target " << j;
    // Empirical variances within 25% of the theory (400 runs: the relative sd of a variance is ~7%).
    EXPECT_NEAR(sq_ols[j] / runs, var_ols, 0.25 * var_ols) << "OLS target " << j;
    EXPECT_NEAR(sq_gls[j] / runs, var_gls, 0.25 * var_gls) << "GLS target " << j;
  }
  EXPECT_TRUE(strictly_better);
}

TEST(AttackDgd, BadInputNamesTheParameter) {
  auto parameter_of = [](auto&& f) {
    try {
      f();
    } catch (const InvalidParameter& e) {
      return e.parameter();
    }
    return std::string("none");
  };
  const Graph g = path(4);
  EXPECT_EQ(parameter_of([&] { dgd_knowledge(g, metropolis(), {0}, 0, 1); }), "steps");
  EXPECT_EQ(parameter_of([&] { dgd_knowledge(g, metropolis(), {0}, 2, 0); }), "gossip-rounds");
  EXPECT_EQ(parameter_of([&] { dgd_knowledge(g, metropolis(), {0, 1, 2, 3}, 2, 1); }), "attackers");
  EXPECT_EQ(parameter_of([&] { dgd_knowledge(g, metropolis(), {}, 2, 1); }), "attackers");
  // Node 4 is isolated: it observes nothing.
  EXPECT_EQ(parameter_of([&] {
              dgd_knowledge(from_edges(5, {{0, 1}, {1, 2}, {2, 3}}), metropolis(), {4}, 2, 1);
            }),
            "attackers");
  EXPECT_EQ(parameter_of([&] {
              dgd_knowledge(g, WeightsSpec{Weighting::file, "w.mtx"}, {0}, 2, 1);
            }),
            "weights");
}

}  // namespace
}  // namespace netdp::attack
