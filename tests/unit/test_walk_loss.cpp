// Random-walk accountant (docs/math.md §5.2-5.5, thesis Thm 7.7 / Lemma D.17) against closed forms (complete
// graph, the ring's circulant spectrum of docs/math.md §5.6), the three methods against each other, and Appendix
// Z item 3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {
namespace {

WalkLossParams params(int steps, WalkLossMethod method) {
  WalkLossParams p;
  p.steps = steps;
  p.method = method;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

double harmonic(int steps) {
  double h = 0;
  for (int t = 1; t <= steps; ++t) h += 1.0 / t;
  return h;
}

/// Ring with metropolis weights (a = b = 1/3): (W^t)_{uv} = (1/n) sum_k lambda_k^t cos(2 pi k (u - v)/n),
/// lambda_k = (1 + 2 cos(2 pi k/n))/3, so the finite-T graph term is G(u, v) = (1/n) sum_{k >= 1}
/// cos(2 pi k (u - v)/n) S_T(lambda_k), and with T -> infinity S_T(lambda_k) -> ln((3/4) csc^2(pi k/n)).
double ring_graph_term(int n, int d, int steps, bool closed_form) {
  double sum = 0;
  for (int k = 1; k < n; ++k) {
    const double lambda = (1 + 2 * std::cos(2 * std::numbers::pi * k / n)) / 3;
    double s = 0;
    if (closed_form) {
      s = std::log(0.75 / std::pow(std::sin(std::numbers::pi * k / n), 2));
    } else {
      double power = 1;
      for (int t = 1; t <= steps; ++t) s += (power *= lambda) / t;
    }
    sum += std::cos(2 * std::numbers::pi * k * d / n) * s;
  }
  return sum / n;
}

void expect_close(double expected, double actual, double rel) {
  EXPECT_NEAR(expected, actual, rel * std::max(1.0, std::fabs(expected)));
}

TEST(WalkLoss, RingMatchesItsCirculantClosedForm) {
  const int n = 13, steps = 40;
  Graph g = ring_graph(n);
  auto w = gossip_matrix(g, Weighting::metropolis);
  for (WalkLossMethod method : {WalkLossMethod::spectral, WalkLossMethod::finite, WalkLossMethod::series}) {
    auto p = params(steps, method);
    p.alpha = 3;
    p.sigma = 2;
    auto f = walk_loss_matrix(g, w, p);
    const double scale = (double(steps) / n) * 3 / 4;  // N_u alpha / sigma^2 with N_u = T/n
    const bool closed = method == WalkLossMethod::spectral;
    const double constant = (closed ? std::log(double(steps)) : harmonic(steps)) / n;
    for (int u = 0; u < n; ++u)
      for (int v = 0; v < n; ++v) {
        const int d = (u - v + n) % n;
        const double expected = u == v ? 0.0 : scale * (constant + ring_graph_term(n, d, steps, closed));
        expect_close(expected, f[u * n + v], 1e-11);
      }
  }
}

TEST(WalkLoss, SenderKnownTakesTheBestNeighbour) {
  // docs/math.md §5.4: the graph term of (u, v) becomes max over the two ring neighbours w of v of G(u, w); the
  // neighbour may be u itself (G(u, u) included).
  const int n = 11, steps = 30;
  Graph g = ring_graph(n);
  auto w = gossip_matrix(g, Weighting::metropolis);
  auto p = params(steps, WalkLossMethod::finite);
  p.sender = SenderView::known;
  auto f = walk_loss_matrix(g, w, p);
  const double scale = (double(steps) / n) * 2, constant = harmonic(steps) / n;
  for (int u = 0; u < n; ++u)
    for (int v = 0; v < n; ++v) {
      if (u == v) continue;
      const double left = ring_graph_term(n, (u - v + 1 + n) % n, steps, false);
      const double right = ring_graph_term(n, (u - v - 1 + 2 * n) % n, steps, false);
      expect_close(scale * (constant + std::max(left, right)), f[u * n + v], 1e-11);
    }
}

TEST(WalkLoss, CompleteGraphHasNoGraphTerm) {
  // W = J/n: eigenvalues 1 and 0, so the graph term vanishes (docs/math.md §5.3, Remark 7.8):
  // E3 gives alpha T ln T / (sigma^2 n^2), E2 and E1 give N_u (alpha / sigma^2) H_T / n.
  const int n = 20, steps = 500;
  Graph g = complete_graph(n);
  auto w = gossip_matrix(g, Weighting::metropolis);
  auto spectral = walk_loss_matrix(g, w, params(steps, WalkLossMethod::spectral));
  auto finite = walk_loss_matrix(g, w, params(steps, WalkLossMethod::finite));
  auto series = walk_loss_matrix(g, w, params(steps, WalkLossMethod::series));
  for (int u = 0; u < n; ++u)
    for (int v = 0; v < n; ++v) {
      if (u == v) continue;
      expect_close(2.0 * steps * std::log(double(steps)) / (n * n), spectral[u * n + v], 1e-12);
      expect_close(2.0 * steps * harmonic(steps) / (n * n), finite[u * n + v], 1e-12);
      expect_close(2.0 * steps * harmonic(steps) / (n * n), series[u * n + v], 1e-12);
    }
}

TEST(WalkLoss, SeriesEqualsFiniteSpectralSum) {
  // E1 (propagation) and E2 (spectral) are the same finite sum (docs/math.md §5.3), sender known or not.
  Graph g = erdos_renyi_graph(60, 0.1, 4);
  auto w = gossip_matrix(g, Weighting::metropolis);
  for (SenderView sender : {SenderView::anonymous, SenderView::known}) {
    auto p = params(25, WalkLossMethod::finite);
    p.sender = sender;
    auto finite = walk_loss_matrix(g, w, p);
    p.method = WalkLossMethod::series;
    auto series = walk_loss_matrix(g, w, p);
    for (std::size_t i = 0; i < finite.size(); ++i) expect_close(finite[i], series[i], 1e-11);
  }
}

TEST(WalkLoss, SpectralAndSeriesAgreeAsTGrows) {
  // E3 replaces H_T by ln T and S_T(lambda) by -ln(1 - lambda). Once the constant (H_T - ln T)/n is put back,
  // what remains is sum_i phi_i(u) phi_i(v) (S_T + ln(1 - lambda_i)), of order |lambda|^(T+1) / (T + 1).
  Graph g = erdos_renyi_graph(80, 0.12, 9);
  auto w = gossip_matrix(g, Weighting::metropolis);
  double previous = 1e300;
  for (int steps : {2, 8, 32, 128, 512}) {
    auto spectral = walk_loss_matrix(g, w, params(steps, WalkLossMethod::spectral));
    auto series = walk_loss_matrix(g, w, params(steps, WalkLossMethod::series));
    const double scale = double(steps) / 80 * 2,
                 constant_gap = (harmonic(steps) - std::log(double(steps))) / 80;
    double worst = 0;
    for (std::size_t i = 0; i < series.size(); ++i)
      if (i % 81 != 0) worst = std::max(worst, std::fabs((series[i] - spectral[i]) / scale - constant_gap));
    if (previous > 1e-13) {  // until rounding level
      EXPECT_LT(worst, previous) << "T = " << steps;
    }
    previous = worst;
  }
  EXPECT_LT(previous, 1e-12);
}

TEST(WalkLoss, AppendixZHypercubeByDistance) {
  // docs/math.md §Z item 3: hypercube d = 11, W-MH, sigma = 1, alpha = 2, T_RW = 1150, u = 0.
  const double e3[] = {0.117,   0.0153,  0.00544, 0.00339, 0.00271, 0.00242,
                       0.00226, 0.00216, 0.00209, 0.00204, 0.00200};
  const double e2[] = {0.117,   0.0156,  0.00576, 0.00370, 0.00303, 0.00274,
                       0.00258, 0.00248, 0.00241, 0.00236, 0.00232};
  Graph g = hypercube_graph(11);
  auto w = gossip_matrix(g, Weighting::metropolis);
  const int steps = random_walk_horizon(g.n, 1.0, spectral_summary(w).gap(GapDefinition::second));
  ASSERT_EQ(steps, 1150);
  // The constant term alone: (alpha T / (sigma^2 n)) ln(T) / n = 0.003865.
  EXPECT_NEAR(2.0 * 1150 / 2048 * std::log(1150.0) / 2048, 0.003865, 5e-7);
  for (WalkLossMethod method : {WalkLossMethod::spectral, WalkLossMethod::series}) {
    auto p = params(steps, method);
    p.source = 0;
    auto row = walk_loss_matrix(g, w, p);
    std::vector<double> sum(12, 0.0);
    std::vector<int> count(12, 0);
    for (int v = 1; v < 2048; ++v) {
      sum[__builtin_popcount(v)] += row[v];
      ++count[__builtin_popcount(v)];
    }
    for (int d = 1; d <= 11; ++d) {
      const double expected = (method == WalkLossMethod::spectral ? e3 : e2)[d - 1];
      EXPECT_NEAR(sum[d] / count[d], expected, 0.006 * expected) << to_string(method) << " distance " << d;
    }
  }
}

TEST(WalkLoss, ClipBoundsToTheLocalLoss) {
  Graph g = erdos_renyi_graph(50, 0.1, 2);
  auto w = gossip_matrix(g, Weighting::metropolis);
  auto p = params(40, WalkLossMethod::spectral);
  p.sigma = 0.5;
  auto raw = walk_loss_matrix(g, w, p);
  p.clip = true;
  auto clipped = walk_loss_matrix(g, w, p);
  const double local = walk_local_loss(p);
  EXPECT_DOUBLE_EQ(local, 4.0);
  for (std::size_t i = 0; i < raw.size(); ++i) EXPECT_EQ(clipped[i], std::clamp(raw[i], 0.0, local));
}

TEST(WalkLoss, ContributionsScaleLinearly) {
  // RDP composes additively over N_u contributions (docs/math.md §5.2).
  Graph g = ring_graph(9);
  auto w = gossip_matrix(g, Weighting::metropolis);
  auto p = params(18, WalkLossMethod::finite);
  auto expected_count = walk_loss_matrix(g, w, p);  // N_u = T/n = 2
  p.contributions = 5;
  auto five = walk_loss_matrix(g, w, p);
  for (std::size_t i = 0; i < five.size(); ++i) expect_close(expected_count[i] * 2.5, five[i], 1e-13);
}

TEST(WalkLoss, TilesAndSourceRowsMatchTheWholeMatrix) {
  Graph g = erdos_renyi_graph(70, 0.1, 6);
  auto w = gossip_matrix(g, Weighting::metropolis);
  for (WalkLossMethod method : {WalkLossMethod::spectral, WalkLossMethod::series}) {
    auto p = params(30, method);
    auto whole = walk_loss_matrix(g, w, p);
    p.tile_sources = 7;
    WalkLossRun run;
    auto tiled = walk_loss_matrix(g, w, p, &run);
    EXPECT_EQ(run.tiles, 10);
    for (std::size_t i = 0; i < whole.size(); ++i) expect_close(whole[i], tiled[i], 1e-13);
    p.tile_sources = 0;
    p.source = 33;
    auto row = walk_loss_matrix(g, w, p);
    for (int v = 0; v < 70; ++v) expect_close(whole[33 * 70 + v], row[v], 1e-13);
  }
}

TEST(WalkLoss, HorizonMatchesTheReferenceRule) {
  // docs/math.md §2.3 / Appendix Z item 13: T_RW = floor(20 ceil(ln n / gap) (0.25 + sigma^2) / sigma^2).
  EXPECT_EQ(random_walk_horizon(2048, 1.0, 1.0 / 6.0), 1150);
  EXPECT_EQ(random_walk_horizon(2025, 1.0, 9.851e-4), 193225);
  EXPECT_EQ(random_walk_horizon(100, 2.0, 0.5), 20 * 10 * 17 / 16);
  EXPECT_THROW(random_walk_horizon(100, 1.0, 0.0), InvalidInput);
}

TEST(WalkLoss, WeakConvexityCondition) {
  auto p = params(10, WalkLossMethod::spectral);
  p.alpha = 2;
  p.sigma = 1.9;  // sigma^2 = 3.61: below 2 alpha (alpha - 1) = 4, above alpha (alpha - 1)/2 = 1
  EXPECT_FALSE(walk_weak_convexity_holds(p, true));
  EXPECT_TRUE(walk_weak_convexity_holds(p, false));
  p.sigma = 2;
  EXPECT_TRUE(walk_weak_convexity_holds(p, true));
}

TEST(WalkLoss, RejectsBadInput) {
  Graph g = ring_graph(6);
  auto w = gossip_matrix(g, Weighting::metropolis);
  auto expect_invalid = [&](auto mutate) {
    auto p = params(5, WalkLossMethod::spectral);
    mutate(p);
    EXPECT_THROW(walk_loss_matrix(g, w, p), InvalidInput);
  };
  expect_invalid([](WalkLossParams& p) { p.alpha = 0.5; });
  expect_invalid([](WalkLossParams& p) { p.sigma = 0; });
  expect_invalid([](WalkLossParams& p) { p.steps = 0; });
  expect_invalid([](WalkLossParams& p) { p.contributions = -1; });
  expect_invalid([](WalkLossParams& p) { p.source = 6; });
  Graph two = graph_from_edges(4, std::vector<std::pair<node_t, node_t>>{{0, 1}, {2, 3}});
  EXPECT_THROW(
      walk_loss_matrix(two, gossip_matrix(two, Weighting::metropolis), params(5, WalkLossMethod::series)),
      InvalidInput);
  EXPECT_THROW(parse_walk_loss_method("closed"), InvalidInput);
  EXPECT_THROW(parse_sender_view("nobody"), InvalidInput);
}

}  // namespace
}  // namespace netdp
