// The exact gossip accountant (docs/math.md §6.9) against hand calculations (the ring of §6.9's
// counterexample, the complete graph), an independent dense computation (the explicit view matrix A from
// dense powers, its row space from one-sided Jacobi rotations), and invariants: the LDP level >= exact >= the
// most revealing single message, sum_u ||P_v e_u||^2 = rank, one source's row and thread counts change no
// bit.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/dp/pairwise_accountant.hpp"
#include "netdp/jobs/gossip_loss_job.hpp"
#include "support/gossip_schedules.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using testing::exact_params;

constexpr auto kInput = ObserverKnowledge::input;
constexpr auto kNoise = ObserverKnowledge::input_and_noise;

double at(const std::vector<double>& f, node_t n, node_t u, node_t v) {
  return f[static_cast<std::size_t>(u) * n + v];
}

TEST(GossipView, RingCounterexampleByHand) {
  // docs/math.md §6.9: ring n = 8, W = 1/3 on the ring and the diagonal, T = 2 from t = 0, v = 0, u = 2. The
  // view's rows are e1, e7, (e0 + e1 + e2)/3, (e0 + e6 + e7)/3; Gram-Schmidt by hand gives the basis e1, e7,
  // (e0 + e2)/sqrt2, (e0 - e2 + 2 e6)/sqrt6, so ||P e2||^2 = 1/2 + 1/6 = 2/3. Knowing its noise, v adds e0
  // and the basis becomes e0, e1, e7, e2, e6: ||P e2||^2 = 1. Theorem 6.1's sum gives 1/3 (alpha = 2, sigma =
  // 1: the LDP level is 1).
  const auto [g, w] = testing::with_metropolis(ring_graph(8));
  const auto input = gossip_loss_matrix(g, w, exact_params(2, 0, kInput));
  const auto noise = gossip_loss_matrix(g, w, exact_params(2, 0, kNoise));
  EXPECT_NEAR(at(input, 8, 2, 0), 2.0 / 3.0, 1e-14);
  EXPECT_NEAR(at(noise, 8, 2, 0), 1.0, 1e-14);
  GossipLossParams theorem = exact_params(2, 0, kInput);
  theorem.accounting = GossipAccounting::theorem;
  EXPECT_NEAR(at(gossip_loss_matrix(g, w, theorem), 8, 2, 0), 1.0 / 3.0, 1e-14);
  // u = 6 by symmetry (reflection v = 0 fixed); u = 1, a neighbour: its own message, the LDP level.
  EXPECT_NEAR(at(input, 8, 6, 0), 2.0 / 3.0, 1e-14);
  EXPECT_NEAR(at(input, 8, 1, 0), 1.0, 1e-14);
  // u = 3 or 4: outside the view's support (two hops from v's neighbours at most one step).
  EXPECT_EQ(at(input, 8, 4, 0), 0.0);
  EXPECT_EQ(at(input, 8, 3, 0), 0.0);
}

TEST(GossipView, CompleteGraphByHand) {
  // K_n with W-MH = J/n: from t = 1 every message is the average, so the view is span{1}: ||P e_u||^2 = 1/n
  // (input), and with e_v: span{e_v, 1 - e_v}, 1/(n - 1) for u != v. From t = 0 with T = 1 every other node
  // is a neighbour: its own value, 1. Theorem 6.1 would give T (n - 1)/n from t = 1, above the truth.
  const node_t n = 6;
  const auto [g, w] = testing::with_metropolis(complete_graph(n));
  for (int steps : {1, 3}) {
    const auto input = gossip_loss_matrix(g, w, exact_params(steps, 1, kInput));
    const auto noise = gossip_loss_matrix(g, w, exact_params(steps, 1, kNoise));
    const auto direct = gossip_loss_matrix(g, w, exact_params(steps, 0, kInput));
    for (node_t u = 0; u < n; ++u)
      for (node_t v = 0; v < n; ++v) {
        if (u == v) continue;
        EXPECT_NEAR(at(input, n, u, v), 1.0 / n, 1e-14);
        EXPECT_NEAR(at(noise, n, u, v), 1.0 / (n - 1), 1e-14);
        EXPECT_NEAR(at(direct, n, u, v), 1.0, 1e-14);
      }
  }
}

/// The view matrix A (rows W^t e_w for w in N(v), t in [t_start, t_start + steps), then e_v when v knows its
/// noise), from dense powers.
std::vector<std::vector<double>> view_rows(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                           node_t v) {
  const std::size_t n = g.n;
  const auto wd = to_dense(w);
  auto power = testing::dense_identity(n);
  std::vector<std::vector<double>> rows;
  for (int t = 0; t < p.t_start + p.steps; ++t) {
    if (t > 0) power = testing::dense_product(wd, power, n);
    if (t < p.t_start) continue;
    for (node_t x : g.neighbors(v)) rows.emplace_back(power.begin() + x * n, power.begin() + (x + 1) * n);
  }
  if (p.observer_knows == kNoise) {
    rows.emplace_back(n, 0.0);
    rows.back()[v] = 1.0;
  }
  return rows;
}

/// ||P_v e_u||^2 for every u, from the singular vectors of A by one-sided Jacobi rotations (Hestenes): the
/// columns of X = A^T are rotated in pairs until orthogonal; the non-zero ones, normalised, are an
/// orthonormal basis of A's row space (no Gram matrix, so small singular values keep their accuracy). The
/// case must be well conditioned: every singular value is either below 1e-11 of the largest (a dependent row)
/// or above 1e-6 of it.
std::vector<double> dense_projections(const std::vector<std::vector<double>>& a, std::size_t n) {
  std::vector<std::vector<double>> x = a;  // x[k] is column k of A^T
  const std::size_t m = x.size();
  auto dot = [&](const std::vector<double>& p, const std::vector<double>& q) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += p[i] * q[i];
    return s;
  };
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p < m; ++p)
      for (std::size_t q = p + 1; q < m; ++q) {
        const double alpha = dot(x[p], x[p]), beta = dot(x[q], x[q]), gamma = dot(x[p], x[q]);
        if (std::fabs(gamma) <= 1e-17 * std::sqrt(alpha * beta) || gamma == 0) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (std::size_t i = 0; i < n; ++i) {
          const double xp = x[p][i], xq = x[q][i];
          x[p][i] = c * xp - s * xq;
          x[q][i] = s * xp + c * xq;
        }
      }
    if (!rotated) break;
  }
  std::vector<double> sigma(m);
  for (std::size_t k = 0; k < m; ++k) sigma[k] = std::sqrt(dot(x[k], x[k]));
  const double top = *std::max_element(sigma.begin(), sigma.end());
  std::vector<double> out(n, 0.0);
  for (std::size_t k = 0; k < m; ++k) {
    EXPECT_TRUE(sigma[k] < 1e-11 * top || sigma[k] > 1e-6 * top)
        << "ill-conditioned case: " << sigma[k] / top;
    if (sigma[k] < 1e-11 * top) continue;
    for (std::size_t u = 0; u < n; ++u) out[u] += x[k][u] * x[k][u] / (sigma[k] * sigma[k]);
  }
  return out;
}

TEST(GossipView, MatchesAnIndependentDenseComputation) {
  std::vector<testing::MetropolisGraph> graphs;
  for (Graph g : {ring_graph(9), grid_graph(3, 3), star_graph(6), path_graph(7),
                  erdos_renyi_graph(12, 0.3, 5), hypercube_graph(3)})
    graphs.push_back(testing::with_metropolis(std::move(g)));
  for (const auto& [g, w] : graphs)
    for (int steps : {1, 2, 3})
      for (int t_start : {0, 1})
        for (auto knows : {kInput, kNoise}) {
          const GossipLossParams p = exact_params(steps, t_start, knows);
          const auto f = gossip_loss_matrix(g, w, p);
          for (node_t v = 0; v < g.n; ++v) {
            const auto reference = dense_projections(view_rows(g, w, p, v), g.n);
            for (node_t u = 0; u < g.n; ++u) {
              if (u == v) continue;
              ASSERT_NEAR(at(f, g.n, u, v), reference[u], 1e-10)
                  << "n = " << g.n << ", T = " << steps << ", t_start = " << t_start << ", u = " << u
                  << ", v = " << v;
            }
          }
        }
}

TEST(GossipView, BetweenTheBestSingleMessageAndTheLdpLevel) {
  // Each message alone is a Gaussian mechanism with mu^2 = (W^t)_{w,u}^2 / ||W^t e_w||^2; the view contains
  // it, so the exact loss is at least the largest of them, and at most the LDP level (here 2 Delta^2/(2
  // sigma^2)).
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(60, 0.08, 11));
  GossipLossParams p = exact_params(12, 1, kInput);
  p.alpha = 4, p.sigma = 1.5, p.sensitivity = 0.5;
  const double ldp = gossip_ldp_loss(p);
  const auto f = gossip_loss_matrix(g, w, p);
  const std::size_t n = g.n;
  const auto wd = to_dense(w);
  auto power = testing::dense_identity(n);
  std::vector<double> best(n * n, 0.0);
  for (int t = 1; t < 1 + p.steps; ++t) {
    power = testing::dense_product(wd, power, n);
    for (node_t v = 0; v < g.n; ++v)
      for (node_t x : g.neighbors(v)) {
        double norm = 0;
        for (std::size_t k = 0; k < n; ++k) norm += power[x * n + k] * power[x * n + k];
        for (std::size_t u = 0; u < n; ++u)
          best[u * n + v] = std::max(best[u * n + v], ldp * power[x * n + u] * power[x * n + u] / norm);
      }
  }
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      if (u == v) continue;
      EXPECT_LE(f[u * n + v], ldp);
      EXPECT_GE(f[u * n + v], best[u * n + v] * (1 - 1e-12));
    }
}

TEST(GossipView, ProjectionsOfAllSourcesSumToTheRank) {
  // trace(P_v) = rank: summed over every u the projections add up to the dimension of v's view. loss.npy
  // leaves u = v at 0, so the check uses a run where that entry is known: with its noise, e_v is in the view
  // and ||P_v e_v||^2 = 1.
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(40, 0.12, 3));
  const GossipLossParams p = exact_params(6, 0, kNoise);
  GossipLossRun run;
  const auto f = gossip_loss_matrix(g, w, p, &run);
  EXPECT_EQ(run.accounting, "exact");
  EXPECT_EQ(run.view_observers, g.n);
  double total = 0;
  for (node_t v = 0; v < g.n; ++v) {
    double sum = 1.0;  // u = v
    for (node_t u = 0; u < g.n; ++u)
      if (u != v) sum += at(f, g.n, u, v);
    total += sum;
    EXPECT_LE(sum, double(run.view_rank_max) + 1e-9);
    EXPECT_GE(sum, double(run.view_rank_min) - 1e-9);
  }
  EXPECT_NEAR(total / g.n, run.view_rank_mean, 1e-9);
}

TEST(GossipView, OneSourceAndThreadCountsChangeNoBit) {
  const auto [g, w] = testing::with_metropolis(random_geometric_graph(80, 0.25, 7));
  GossipLossParams p = exact_params(9, 0, kInput);
  const auto all = gossip_loss_matrix(g, w, p);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto serial = gossip_loss_matrix(g, w, p);
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(all.data(), serial.data(), all.size() * sizeof(double)), 0);
  for (node_t u : {0, 41, 79}) {
    p.source = u;
    const auto row = gossip_loss_matrix(g, w, p);
    ASSERT_EQ(row.size(), std::size_t(g.n));
    EXPECT_EQ(std::memcmp(row.data(), all.data() + std::size_t(u) * g.n, g.n * sizeof(double)), 0) << u;
  }
}

TEST(GossipView, ThePairwiseAccountantGivesTheJobsEpsilonFromItsMu) {
  // gossip-loss --delta writes epsilon.npy and mu.npy; the pairwise accountant composing the view event of
  // mu.npy must give the same epsilon for every pair (docs/dp_toolbox.md "Pairwise accountant").
  testing::ScratchDir dir;
  GossipLossJob job;
  job.graph = "er:n=30,c=2,seed=9";
  job.params = exact_params(4, 0, kNoise);
  job.params.sigma = 1.7;
  job.delta = 1e-7;
  job.progress = false;
  ResultsDir out(dir.path() / "run");
  const auto summary = write_results(out, run_gossip_loss_job(job, out), 0.0);
  const auto mu = testing::read_npy((dir.path() / "run/mu.npy").string());
  const auto epsilon = testing::read_npy((dir.path() / "run/epsilon.npy").string());
  const std::size_t n = 30;
  ASSERT_EQ(mu.values.size(), n * n);
  dp::PairwiseAccountant accountant(n);
  accountant.compose(dp::GaussianViewEvent{n, mu.values});
  double largest = 0;
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      if (u == v) continue;
      const double expected = accountant.epsilon(u, v, 1e-7).value;
      EXPECT_NEAR(epsilon.values[u * n + v], expected, 1e-12 * std::max(1.0, expected)) << u << ", " << v;
      largest = std::max(largest, expected);
    }
  EXPECT_NEAR(summary["epsilon_at_delta"]["max"].get<double>(), largest, 1e-12 * largest);
  EXPECT_GT(largest, 0.0);
}

TEST(GossipView, DeviceCudaWithoutADeviceSaysSo) {
  // The exact accountant runs on a CUDA device through its CUDA twin
  // (tests/backend/test_gossip_view_cuda.cpp); where none answers, device cuda is refused as for every
  // accountant, naming the device.
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device answers: test_gossip_view_cuda runs it";
  const auto [g, w] = testing::with_metropolis(ring_graph(5));
  GossipLossParams p = exact_params(2, 0, kInput);
  p.device = {DeviceKind::cuda, 0};
  EXPECT_THROW(gossip_loss_matrix(g, w, p), DeviceUnavailable);
}

}  // namespace
}  // namespace netdp
