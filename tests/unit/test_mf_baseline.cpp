// The earlier Muffliato-SGD bound of E24 (docs/math.md §6.5 "muffliato_mfdl"): a hand calculation on a path,
// a dense implementation written here (matrix powers by plain loops) on three graphs and two weightings,
// docs/math.md Appendix Z item 10 (Florentine saturates at the cap), W = I, threads and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_baseline.hpp"
#include "support/test_support.hpp"

namespace netdp::mf {
namespace {

using testing::expect_invalid;
const double inf = std::numeric_limits<double>::infinity();

using testing::all_nodes;

TEST(MfBaseline, PathOfThreeByHand) {
  // W = D^-1 (A + I) on 0 - 1 - 2: rows (1/2, 1/2, 0), (1/3, 1/3, 1/3), (0, 1/2, 1/2). Attacker 0 observes
  // w in {0, 1}; T = 2. s = 0 (weight 2): W^0 = I, so victim 1 gets 2 and victim 2 gets 0. s = 1 (weight 1):
  // column 0 = (1/2, 1/3, 0), norm^2 13/36; column 1 = (1/2, 1/3, 1/2), norm^2 11/18. Victim 1:
  // (1/3) / (13/36) + (1/3) / (11/18) = 12/13 + 6/11 = 210/143; victim 2: 0 + (1/2) / (11/18) = 9/11.
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  const Matrix s = muffliato_baseline_sum(w, 2, {0}, false);
  EXPECT_EQ(s(0, 0), inf);
  EXPECT_NEAR(s(0, 1), 2 + 210.0 / 143, 1e-14);
  EXPECT_NEAR(s(0, 2), 9.0 / 11, 1e-14);
  // alpha = 3, sigma = 2: factor 3 / 8; victim 1 is capped at T = 2.
  MuffliatoBaselineParams p;
  p.steps = 2;
  p.alpha = 3;
  p.sigma = 2;
  const Matrix loss = muffliato_baseline_loss(w, p, {0, 2}, false);
  EXPECT_EQ(loss(0, 0), inf);
  EXPECT_DOUBLE_EQ(loss(0, 1), 3.0 / 8 * 2);
  EXPECT_NEAR(loss(0, 2), 3.0 / 8 * 9 / 11, 1e-15);
  // Attacker 2 is attacker 0 mirrored.
  EXPECT_DOUBLE_EQ(loss(1, 1), 3.0 / 8 * 2);
  EXPECT_NEAR(loss(1, 0), 3.0 / 8 * 9 / 11, 1e-15);
  EXPECT_EQ(loss(1, 2), inf);
  // Sensitivity Delta scales the loss by Delta^2.
  p.sensitivity = 0.5;
  EXPECT_NEAR(muffliato_baseline_loss(w, p, {0}, false)(0, 2), 3.0 / 32 * 9 / 11, 1e-15);
}

/// The formula with dense powers of W (the tests' plain triple loop): S(u -> v) = sum_s (T - s) sum_{w: W_vw
/// > 0 or w = v} (W^s)_{u,w} / sum_x (W^s)_{x,w}^2.
std::vector<double> dense_sum(const CsrMatrix& w, int steps, node_t v) {
  const auto n = static_cast<std::size_t>(w.n);
  const testing::Dense dense = to_dense(w);
  testing::Dense power = testing::dense_identity(n);
  std::vector<double> out(n, 0.0);
  for (int s = 0; s < steps; ++s) {
    if (s > 0) power = testing::dense_product(dense, power, n);
    for (std::size_t c = 0; c < n; ++c) {
      if (static_cast<node_t>(c) != v && !(dense[static_cast<std::size_t>(v) * n + c] > 0)) continue;
      double norm2 = 0;
      for (std::size_t x = 0; x < n; ++x) norm2 += power[x * n + c] * power[x * n + c];
      for (std::size_t u = 0; u < n; ++u) out[u] += (steps - s) * power[u * n + c] / norm2;
    }
  }
  return out;
}

TEST(MfBaseline, MatchesADenseImplementation) {
  for (const char* graph : {"florentine", "er:n=14,c=1.2,seed=3", "star:n=6"})
    for (const char* weights : {"average", "metropolis"}) {
      const CsrMatrix w = mf_gossip_matrix(make_graph(graph), weights);
      const int steps = 5;
      const Matrix s = muffliato_baseline_sum(w, steps, all_nodes(w.n), true);
      for (node_t v = 0; v < w.n; ++v) {
        const std::vector<double> expected = dense_sum(w, steps, v);
        for (node_t u = 0; u < w.n; ++u)
          if (u == v)
            EXPECT_EQ(s(v, u), inf);
          else
            EXPECT_NEAR(s(v, u), expected[static_cast<std::size_t>(u)],
                        1e-12 * (1 + expected[static_cast<std::size_t>(u)]))
                << graph << " " << weights << " v " << v << " u " << u;
      }
    }
}

TEST(MfBaseline, FlorentineSaturatesAtTheLdpCap) {
  // docs/math.md Appendix Z item 10: T = 10, alpha = 2, sigma = 1, attacker 0: the bound is T alpha / 2 = 10
  // at every distance on this small graph.
  const CsrMatrix w = mf_gossip_matrix(make_graph("florentine"), "average");
  MuffliatoBaselineParams p;
  const Matrix loss = muffliato_baseline_loss(w, p, {0}, false);
  for (node_t u = 1; u < w.n; ++u) EXPECT_EQ(loss(0, u), 10.0) << u;
}

TEST(MfBaseline, IdentityGossipHidesEveryone) {
  // W = I: attacker v observes itself only and (W^s)_{u,v} = 0 for u != v.
  std::vector<Triplet> t;
  for (node_t u = 0; u < 3; ++u) t.push_back({u, u, 1.0});
  const Matrix s = muffliato_baseline_sum(csr_from_triplets(3, t), 4, all_nodes(3), false);
  for (node_t v = 0; v < 3; ++v)
    for (node_t u = 0; u < 3; ++u) EXPECT_EQ(s(v, u), u == v ? inf : 0.0);
}

TEST(MfBaseline, ThreadsDoNotChangeTheBits) {
  const CsrMatrix w = mf_gossip_matrix(make_graph("er:n=40,c=1,seed=5"), "average");
  const Matrix one = muffliato_baseline_sum(w, 6, all_nodes(w.n), false);
  const Matrix many = muffliato_baseline_sum(w, 6, all_nodes(w.n), true);
  EXPECT_EQ(one.a, many.a);
}

TEST(MfBaseline, BadInput) {
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  MuffliatoBaselineParams p;
  p.steps = 0;
  expect_invalid([&] { muffliato_baseline_loss(w, p, {0}, false); }, "steps must be");
  p.steps = 2;
  p.alpha = 1;
  expect_invalid([&] { muffliato_baseline_loss(w, p, {0}, false); }, "alpha must be");
  p.alpha = 2;
  p.sigma = 0;
  expect_invalid([&] { muffliato_baseline_loss(w, p, {0}, false); }, "sigma must be");
  p.sigma = 1;
  p.sensitivity = -1;
  expect_invalid([&] { muffliato_baseline_loss(w, p, {0}, false); }, "sensitivity must be");
}

}  // namespace
}  // namespace netdp::mf
