// Muffliato-GD (Algorithm 6.3, docs/math.md §6.5): convergence to the closed-form optimum, equality with
// centralized GD when one gossip step averages exactly, the noise-only consensus error against
// ||P_K(W) - J/n||_F^2, privacy equal to the accountants, determinism, data input and bad input.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <numbers>
#include <random>

#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/muffliato_gd.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

/// gamma of docs/math.md §2.4, written out again here.
double gamma_of(double gap) {
  return 2 * (1 - std::sqrt(gap * (1 - gap / 4))) / ((1 - gap / 2) * (1 - gap / 2));
}

/// P_K(lambda) of the Chebyshev recursion: P_0 = 1, P_1 = lambda, P_{k+1} = gamma lambda P_k + (1-gamma)
/// P_{k-1}.
double chebyshev(double lambda, double gamma, int k) {
  double prev = 1, cur = lambda;
  for (int i = 1; i < k; ++i) {
    const double next = gamma * lambda * cur + (1 - gamma) * prev;
    prev = cur;
    cur = next;
  }
  return cur;
}

/// A graph of the --graph syntax and its W-MH.
testing::MetropolisGraph network(std::string_view spec) {
  return testing::with_metropolis(make_graph(spec));
}

/// T outer iterations of K gossip steps with step size nu; every other parameter at its default.
MuffliatoGdParams params(int steps, int gossip_steps, double step_size) {
  MuffliatoGdParams p;
  p.steps = steps;
  p.gossip_steps = gossip_steps;
  p.step_size = step_size;
  return p;
}

/// f() with one thread, then with two; the thread count is restored.
template <class F>
auto on_one_then_two_threads(F f) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = f();
  omp_set_num_threads(2);
  auto two = f();
  omp_set_num_threads(threads);
  return std::pair{std::move(one), std::move(two)};
}

LocalData zero_targets(node_t n, int dim) {
  LocalData d;
  d.n = n;
  d.dim = dim;
  for (node_t v = 0; v < n; ++v) d.offsets.push_back(v + 1);
  d.features.assign(static_cast<std::size_t>(n) * dim, 0.0);
  return d;
}

TEST(MuffliatoGd, NoiselessQuadraticConvergesToTheMeanOfTheTargets) {
  const auto [g, w] = network("hypercube:dim=3");  // W-MH = (I + A) / 4: eigenvalues 1, 1/2, 0, -1/2
  const LocalData d = synthetic_data(Objective::quadratic, g.n, 3, 1, 5);
  const MuffliatoGdParams p = params(80, 30, 0.5);
  std::vector<double> ybar(3, 0.0);
  for (node_t v = 0; v < g.n; ++v)
    for (int k = 0; k < 3; ++k) ybar[k] += d.features[v * 3 + k] / g.n;
  auto opt = objective_optimum(Objective::quadratic, d, 0.0);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(opt.theta[k], ybar[k], 1e-15);

  // The gradient is linear, so the node average follows centralized GD exactly: thetabar^t - ybar =
  // (1 - nu)^t (0 - ybar). Deviations e = theta - thetabar obey e <- P_K(W)_perp ((1 - nu) e + nu (y -
  // ybar)), so ||e^t|| <= rho nu ||y - ybar|| / (1 - rho (1 - nu)) with rho = max_{i >= 2} |P_K(lambda_i)|.
  const double gamma = gamma_of(0.5);
  double rho = 0;
  for (double lambda : {0.5, 0.0, -0.5}) rho = std::max(rho, std::abs(chebyshev(lambda, gamma, 30)));
  double spread = 0;
  for (node_t v = 0; v < g.n; ++v)
    for (int k = 0; k < 3; ++k) spread += std::pow(d.features[v * 3 + k] - ybar[k], 2);
  const double bound =
      rho * 0.5 * std::sqrt(spread) / (1 - rho * 0.5) +
      std::pow(0.5, 80) * std::sqrt(ybar[0] * ybar[0] + ybar[1] * ybar[1] + ybar[2] * ybar[2]);
  const double tolerance = bound + 1e-13;  // + rounding of 80 x 30 propagations of O(1) values
  EXPECT_LT(bound, 1e-8);                  // rho ~ (gamma - 1)^{K/2}: about 5e-11 here
  auto trajectory = muffliato_gd_trajectory(g, w, d, p, 0);
  ASSERT_EQ(trajectory.size(), 81u);
  for (node_t v = 0; v < g.n; ++v)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(trajectory.back()[v * 3 + k], ybar[k], tolerance);
  auto r = muffliato_gd(g, w, d, p);
  EXPECT_LT(r.gap.mean.back(), 1e-24);
  EXPECT_NEAR(r.objective.mean.back(), opt.value, 1e-14);
  EXPECT_LE(r.consensus.mean.back(), tolerance * tolerance);  // the bound is on ||e||_F
}

/// Centralized GD on phi with the same per-example clipping (or the reference code's clip of the node
/// gradient): theta <- theta - nu ((1/n) sum_v (1/m_v) sum_i clip(g_i) + mu theta).
std::vector<double> centralized_step(const LocalData& d, std::vector<double> theta, double nu, double mu,
                                     double clip, bool reference) {
  const int p = d.dim;
  std::vector<double> step(p, 0.0);
  for (node_t v = 0; v < d.n; ++v) {
    std::vector<double> local(p, 0.0);
    for (std::int64_t i = d.offsets[v]; i < d.offsets[v + 1]; ++i) {
      double margin = 0;
      for (int k = 0; k < p; ++k) margin += d.features[i * p + k] * theta[k];
      const double y = d.labels[i], c = -y / (1 + std::exp(y * margin));
      double norm = std::abs(c) * std::sqrt([&] {
                      double s = 0;
                      for (int k = 0; k < p; ++k) s += d.features[i * p + k] * d.features[i * p + k];
                      return s;
                    }());
      const double scale = !reference && clip > 0 && norm > clip ? clip / norm : 1.0;
      for (int k = 0; k < p; ++k) local[k] += scale * c * d.features[i * p + k];
    }
    double norm = 0;
    for (int k = 0; k < p; ++k) {
      local[k] = local[k] / double(d.size(v)) + mu * theta[k];
      norm += local[k] * local[k];
    }
    const double scale = reference && clip > 0 && std::sqrt(norm) > clip ? clip / std::sqrt(norm) : 1.0;
    for (int k = 0; k < p; ++k) step[k] += scale * local[k] / d.n;
  }
  for (int k = 0; k < p; ++k) theta[k] -= nu * step[k];
  return theta;
}

void expect_centralized(NoiseOrder order) {
  const auto [g, w] = network("complete:n=8");  // W-MH = J/n: one step averages exactly
  const LocalData d = synthetic_data(Objective::logistic, g.n, 3, 5, 11);
  MuffliatoGdParams p = params(20, 1, 0.5);
  p.objective = Objective::logistic;
  p.clip = 0.3;
  p.l2 = 0.1;
  p.noise_order = order;
  auto trajectory = muffliato_gd_trajectory(g, w, d, p, 0);
  std::vector<double> theta(3, 0.0);
  for (int t = 1; t <= p.steps; ++t) {
    theta = centralized_step(d, theta, p.step_size, p.l2, p.clip, order == NoiseOrder::reference_code);
    for (node_t v = 0; v < g.n; ++v)
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(trajectory[t][v * 3 + k], theta[k], 1e-13) << t << ' ' << v;
  }
}

TEST(MuffliatoGd, ExactAveragingIsCentralizedGd) {
  expect_centralized(NoiseOrder::clip_then_noise);
}

TEST(MuffliatoGd, ExactAveragingIsCentralizedGdWithTheReferenceClip) {
  expect_centralized(NoiseOrder::reference_code);
}

// The trusted-aggregator baseline (exact_averaging) on a ring is the complete graph's one gossip step
// (W-MH = J/n), noise included: the same noisy updates, averaged exactly.
TEST(MuffliatoGd, FederatedBaselineAveragesTheNoisyUpdatesExactly) {
  const auto [ring, ring_w] = network("ring:n=8");
  const auto [complete, complete_w] = network("complete:n=8");
  const LocalData d = synthetic_data(Objective::logistic, 8, 3, 5, 11);
  MuffliatoGdParams p = params(6, 1, 0.5);
  p.objective = Objective::logistic;
  p.sigma = 0.7;
  p.clip = 0.3;
  MuffliatoGdParams federated = p;
  federated.exact_averaging = true;
  federated.gossip_steps = 5;  // unused: nothing gossips
  const auto exact = muffliato_gd_trajectory(ring, ring_w, d, federated, 0);
  const auto gossip = muffliato_gd_trajectory(complete, complete_w, d, p, 0);
  for (int t = 1; t <= p.steps; ++t)
    for (std::size_t i = 0; i < exact[t].size(); ++i) {
      EXPECT_NEAR(exact[t][i], gossip[t][i], 1e-13) << t << ' ' << i;
      EXPECT_EQ(exact[t][i], exact[t][i % 3]) << "every node holds the mean";
    }
}

TEST(MuffliatoGd, NoiseOnlyConsensusMatchesTheChebyshevPolynomial) {
  // Quadratic with y_v = 0 and nu = 1: theta_hat = theta - (theta - 0) = 0 exactly, so every iteration starts
  // afresh: theta^{t+1} = P_K(W) nu sigma Z, Z (n x p) i.i.d. N(0, 1). With W symmetric and P_K(W) 1 = 1,
  // theta - thetabar = (P_K(W) - J/n) nu sigma Z, hence
  //   E (1/n) sum_v ||theta_v - thetabar||^2 = (nu^2 sigma^2 p / n) ||P_K(W) - J/n||_F^2
  //                                           = (nu^2 sigma^2 p / n) sum_{i >= 2} P_K(lambda_i)^2.
  // Ring, W-MH = 1/3 on the three diagonals: lambda_k = (1 + 2 cos(2 pi k / n)) / 3.
  const node_t n = 12;
  const int dim = 2, K = 4;
  const auto [g, w] = network("ring:n=12");
  MuffliatoGdParams p = params(3, K, 1.0);
  p.sigma = 0.7;
  p.runs = 4000;
  p.seed = 9;
  const double lambda2 = (1 + 2 * std::cos(2 * std::numbers::pi / n)) / 3, gamma = gamma_of(1 - lambda2);
  double frobenius = 0;
  for (int k = 1; k < n; ++k)
    frobenius += std::pow(chebyshev((1 + 2 * std::cos(2 * std::numbers::pi * k / n)) / 3, gamma, K), 2);
  const double expected = p.sigma * p.sigma * dim / n * frobenius;
  auto r = muffliato_gd(g, w, zero_targets(n, dim), p);
  EXPECT_NEAR(r.gamma, gamma, 1e-12);
  for (int t = 1; t <= p.steps; ++t)
    EXPECT_NEAR(r.consensus.mean[t], expected, 4 * r.consensus.std_error[t]) << "t = " << t;

  // The reference code adds N(0, (sigma/2)^2) to the gradient: theta - (theta + (sigma/2) z) = -(sigma/2) z.
  MuffliatoGdParams ref = p, half = p;
  ref.noise_order = NoiseOrder::reference_code;
  half.sigma = p.sigma / 2;
  auto a = muffliato_gd_trajectory(g, w, zero_targets(n, dim), ref, 3);
  auto b = muffliato_gd_trajectory(g, w, zero_targets(n, dim), half, 3);
  for (std::size_t i = 0; i < a.back().size(); ++i) EXPECT_NEAR(a.back()[i], -b.back()[i], 1e-14);
}

TEST(MuffliatoGd, FullBatchSgdIsGdAndResultsDoNotDependOnThreads) {
  const auto [g, w] = network("er:n=30,c=2,seed=1");
  const LocalData d = synthetic_data(Objective::least_squares, g.n, 4, 6, 2);
  MuffliatoGdParams p = params(5, 3, 0.2);
  p.objective = Objective::least_squares;
  p.sigma = 0.3;
  p.runs = 70;  // more than one chunk of 64 runs
  p.seed = 4;
  p.clip = 2.0;
  MuffliatoGdParams full = p;
  full.batch = 6;
  EXPECT_EQ(muffliato_gd_trajectory(g, w, d, p, 1), muffliato_gd_trajectory(g, w, d, full, 1));

  p.batch = 2;
  p.er_per_round = true;
  p.edge_probability = 2 * std::log(30.0) / 30;
  const auto [one, two] = on_one_then_two_threads([&] { return muffliato_gd(g, w, d, p); });
  for (auto [a, b] : {std::pair{&one.objective, &two.objective},
                      {&one.node_objective, &two.node_objective},
                      {&one.consensus, &two.consensus},
                      {&one.gap, &two.gap}}) {
    EXPECT_EQ(a->mean, b->mean);
    EXPECT_EQ(a->std_error, b->std_error);
  }
  EXPECT_TRUE(std::isnan(one.gamma));

  // One run on a large graph is split over nodes and rows instead of runs.
  const auto [big, big_w] = network("ring:n=600");
  const LocalData big_d = synthetic_data(Objective::logistic, big.n, 3, 2, 7);
  MuffliatoGdParams q = params(3, 3, 0.1);
  q.objective = Objective::logistic;
  q.sigma = 0.5;
  q.batch = 1;
  const auto [big_one, big_two] = on_one_then_two_threads([&] { return muffliato_gd(big, big_w, big_d, q); });
  EXPECT_EQ(big_one.node_objective.mean, big_two.node_objective.mean);
  EXPECT_EQ(big_one.consensus.mean, big_two.consensus.mean);
  EXPECT_EQ(big_one.accuracy.mean, big_two.accuracy.mean);
  // Mini-batches differ from full batches.
  EXPECT_NE(muffliato_gd_trajectory(g, w, d, p, 1).back(), muffliato_gd_trajectory(g, w, d, full, 1).back());
}

TEST(MuffliatoGd, LogisticOptimumIsAStationaryPoint) {
  const LocalData d = synthetic_data(Objective::logistic, 10, 4, 30, 3);
  auto opt = objective_optimum(Objective::logistic, d, 0.0);
  ASSERT_TRUE(opt.converged);
  std::vector<double> grad(4);
  global_gradient(Objective::logistic, d, 0.0, opt.theta, grad);
  for (double x : grad) EXPECT_LT(std::abs(x), 1e-11);
  // Strict local minimum: moving in any coordinate direction increases phi.
  for (int k = 0; k < 4; ++k)
    for (double h : {-1e-3, 1e-3}) {
      auto moved = opt.theta;
      moved[k] += h;
      EXPECT_GT(global_objective(Objective::logistic, d, 0.0, moved), opt.value);
    }
  const double acc = accuracy(d, opt.theta);
  EXPECT_GT(acc, 0.6);
  EXPECT_LE(acc, 1.0);
}

TEST(MuffliatoGd, LeastSquaresOptimumSolvesTheNormalEquations) {
  const LocalData d = synthetic_data(Objective::least_squares, 5, 3, 4, 8);
  auto opt = objective_optimum(Objective::least_squares, d, 0.2);
  std::vector<double> grad(3);
  global_gradient(Objective::least_squares, d, 0.2, opt.theta, grad);
  for (double x : grad) EXPECT_LT(std::abs(x), 1e-13);
  std::vector<double> other = opt.theta;
  other[1] += 0.1;
  EXPECT_NEAR(optimality_gap(Objective::least_squares, d, 0.2, opt, other),
              global_objective(Objective::least_squares, d, 0.2, other) - opt.value, 1e-13);
}

GossipLossParams loss_params(const MuffliatoGdParams& p) {
  return muffliato_gd_loss_params(p, 2.0, 1.5, true, std::nullopt);
}

TEST(MuffliatoGd, PrivacyIsTheAccountantsOutput) {
  const auto [g, w] = network("ring:n=9");
  MuffliatoGdParams p = params(3, 2, 0.1);
  p.sigma = 4.0;
  p.noise_order = NoiseOrder::reference_code;  // accounting sigma = 2
  auto loss = loss_params(p);
  EXPECT_EQ(loss.sigma, 2.0);
  EXPECT_EQ(loss.sensitivity, 1.5);
  EXPECT_EQ(loss.steps, 2);
  LossMatrixCollector fixed(g.n);
  muffliato_gd_privacy(g, w, p, loss, 0, fixed);
  EXPECT_EQ(fixed.values(), muffliato_sgd_loss_matrix(g, w, loss, 3));

  // The gossip simulator's er-per-round rounds with the same T, runs, seed and q.
  GossipSimParams sp;
  sp.protocol = GossipProtocol::er_per_round;
  sp.steps = p.steps;
  sp.runs = p.runs = 2;
  sp.seed = p.seed = 6;
  sp.edge_probability = p.edge_probability = 0.4;
  p.er_per_round = true;
  LossMatrixCollector varying(g.n);
  muffliato_gd_privacy(g, w, p, loss, 1, varying);
  const GossipSchedule s = sample_gossip_schedule(g, sp, 1);
  EXPECT_EQ(varying.values(), muffliato_sgd_loss_sequence_matrix(s, 2, loss));

  // Fig. 6.1c's sum over rounds of the Theorem 6.6 bound, called directly.
  const auto sums = er_round_loss_sum(s, 0.4, 2, loss, 4, ErBoundVariant::reference_code);
  for (node_t v = 0; v < g.n; ++v) {
    double expected = 0;
    for (int t = 0; v != 4 && t < 3; ++t) {
      const Graph& e = s.round(t).graph;
      bool neighbour = false;
      for (node_t x : e.neighbors(4)) neighbour |= x == v;
      expected += er_gossip_loss_bound(9, 0.4, 2, e.degree(v), 2.0, 2.0, 1.5, neighbour,
                                       ErBoundVariant::reference_code)
                      .value;
    }
    EXPECT_EQ(sums[v], expected) << v;
  }
}

TEST(MuffliatoGd, ReadsCsvDataSplitInFileOrder) {
  testing::ScratchDir dir;
  auto path = dir.write("d.csv",
                        "x1,x2,label\n# comment\n1,2,1\n3,4,-1\n5,6,1\n\n7,8,1\n9,10,-1\n11,12,-1\n13,14,1\n"
                        "15,16,1\n17,18,-1\n19,20,1\n");
  auto d = read_csv_data(path, Objective::logistic, 4, 0);
  EXPECT_EQ(d.dim, 2);
  EXPECT_EQ(d.offsets, (std::vector<std::int64_t>{0, 2, 5, 7, 10}));  // floor(v 10 / 4)
  EXPECT_EQ(d.labels[1], -1.0);
  EXPECT_EQ(d.features[2 * 9 + 1], 20.0);
  EXPECT_THROW(read_csv_data(path, Objective::logistic, 4, 3), InvalidInput);   // 4 columns expected
  EXPECT_THROW(read_csv_data(path, Objective::logistic, 11, 0), InvalidInput);  // 10 rows, 11 nodes
  auto bad_label = dir.write("b.csv", "1,2,0\n");
  EXPECT_THROW(read_csv_data(bad_label, Objective::logistic, 1, 0), InvalidInput);
  auto bad_row = dir.write("c.csv", "1,2,1\n1,x,1\n");
  EXPECT_THROW(read_csv_data(bad_row, Objective::logistic, 1, 0), InvalidInput);
  EXPECT_THROW(read_csv_data(dir.path().string() + "/missing.csv", Objective::logistic, 1, 0), InvalidInput);
  auto targets = read_csv_data(dir.write("q.csv", "1 2\n3 4\n"), Objective::quadratic, 2);
  EXPECT_EQ(targets.dim, 2);
  EXPECT_TRUE(targets.labels.empty());
}

TEST(MuffliatoGd, CsvNumbersBeyondADoubleAreRefusedNotTakenForAHeader) {
  // 1e400 overflows and 1e-400 underflows a double: number text all the same, so a first line of them is a
  // data row (only a line that is not numbers is the header), refused naming its file, line and value.
  testing::ScratchDir dir;
  const auto first = dir.write("first.csv", "1e400,2,1\n3,4,-1\n5,6,1\n");
  testing::expect_invalid([&] { read_csv_data(first, Objective::logistic, 1, 0); },
                          first + ", line 1: value 1 (1e400) is beyond the range of a double");
  const auto later = dir.write("later.csv", "x1,x2,y\n1,2,1\n3,-1e-400,-1\n");
  testing::expect_invalid([&] { read_csv_data(later, Objective::logistic, 1, 0); },
                          "line 3: value 2 (-1e-400) is beyond the range of a double");
  const auto plus = dir.write("plus.csv", "1,+1e999\n");
  testing::expect_invalid([&] { read_csv_data(plus, Objective::quadratic, 1, 0); },
                          "line 1: value 2 (+1e999) is beyond the range of a double");
  // A header is still one line that is not numbers; the largest and the smallest subnormal doubles are read.
  const auto edge = dir.write("edge.csv", "a,b\n1.7976931348623157e308,4.9406564584124654e-324\n");
  const LocalData d = read_csv_data(edge, Objective::quadratic, 1, 0);
  EXPECT_EQ(d.features, (std::vector<double>{1.7976931348623157e308, 4.9406564584124654e-324}));
}

TEST(MuffliatoGd, RejectsBadInput) {
  const auto [g, w] = network("ring:n=6");
  const LocalData d = synthetic_data(Objective::least_squares, g.n, 2, 3, 1);
  MuffliatoGdParams ok;
  ok.objective = Objective::least_squares;
  auto expect_bad = [&](auto change) {
    MuffliatoGdParams p = ok;
    change(p);
    EXPECT_THROW(muffliato_gd(g, w, d, p), InvalidInput);
  };
  expect_bad([](auto& p) { p.steps = 0; });
  expect_bad([](auto& p) { p.gossip_steps = 0; });
  expect_bad([](auto& p) { p.step_size = 0; });
  expect_bad([](auto& p) { p.sigma = -1; });
  expect_bad([](auto& p) { p.runs = 0; });
  expect_bad([](auto& p) { p.batch = 4; });  // 3 examples per node
  expect_bad([](auto& p) { p.clip = -1; });
  expect_bad([](auto& p) { p.l2 = -0.5; });
  expect_bad([](auto& p) { p.objective = Objective::logistic; });  // real labels
  expect_bad([](auto& p) {
    p.er_per_round = true;
    p.edge_probability = 0;
  });
  expect_bad([](auto& p) {  // thrown inside the parallel runs: G(6, 0.001) is never connected
    p.er_per_round = true;
    p.edge_probability = 0.001;
    p.runs = 5;
  });
  EXPECT_THROW(muffliato_gd(make_graph("ring:n=7"),
                            gossip_matrix(make_graph("ring:n=7"), Weighting::metropolis), d, ok),
               InvalidInput);
  EXPECT_THROW(parse_objective("hinge"), InvalidInput);
  EXPECT_THROW(synthetic_data(Objective::quadratic, 4, 0, 1, 0), InvalidInput);
  EXPECT_THROW(
      objective_optimum(Objective::least_squares, synthetic_data(Objective::least_squares, 1, 3, 2, 0), 0),
      InvalidInput);  // 2 examples in R^3: X^T X singular
}

}  // namespace
}  // namespace netdp
