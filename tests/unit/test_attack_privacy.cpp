// Privacy beside reconstruction (docs/math.md §7.2): hand-computed projections on small graphs, the LDP level
// reached exactly by the exact reconstruction's set and by no one else on several graphs, the single attacker
// against the exact gossip accountant's view (kernels/gossip_view_kernels.hpp, t_start 0), and epsilon
// against the analytic Gaussian curve.
#include <gtest/gtest.h>

#include <cmath>

#include "accounting/gossip_view.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/attack/attack_gossip.hpp"
#include "netdp/attack/attack_privacy.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "test_attack_graphs.hpp"

namespace netdp::attack {
namespace {

struct Observed {
  GossipAttackResult attack;
  std::vector<std::int8_t> mask;
  AttackPrivacy privacy;
};

Observed run(const Graph& g, std::vector<node_t> attackers, int steps, AttackPrivacyParams privacy,
             bool secagg = false) {
  GossipAttackParams p;
  p.steps = steps;
  p.secagg = secagg;
  const GossipRounds rounds(g, WeightsSpec{Weighting::metropolis, ""}, p);
  Observed r;
  r.attack = attack_gossip(rounds, attackers, p, false, false);
  r.mask.assign(static_cast<std::size_t>(g.n), 0);
  for (node_t j : r.attack.reconstructible) r.mask[static_cast<std::size_t>(j)] = 1;
  r.privacy = attack_privacy(rounds, {attackers}, r.mask, secagg, privacy);
  return r;
}

// The kite 0-1, 1-2, 1-3, 3-4 with W-MH: W_01 = W_12 = W_13 = 1/4, W_34 = 1/3, diagonal 3/4, 1/4, 3/4, 5/12,
// 2/3. Attacker 0 receives theta_1^t. T = 2: rows e_0, e_1, (1,1,1,1,0)/4, so span{e_0, e_1, e_2 + e_3}:
// ||P e_2||^2 = ||P e_3||^2 = 1/2, ||P e_4||^2 = 0. T = 3 adds (W^2)_{1,:} = (1, 1, 1, 2/3, 1/3)/4, i.e. the
// direction (0, 0, 3, 2, 1): on nodes 2..4 the view misses only c = (1, -1, -1), so ||P e_u||^2 = 1 - 1/3.
Graph kite() {
  return from_edges(5, {{0, 1}, {1, 2}, {1, 3}, {3, 4}});
}

TEST(AttackPrivacy, KiteByHand) {
  const AttackPrivacyParams params{.sigma = 0.5, .sensitivity = 1};  // LDP level mu = 2
  const Observed two = run(kite(), {0}, 2, params);
  EXPECT_EQ(two.attack.reconstructible, (std::vector<node_t>{0, 1}));
  EXPECT_EQ(two.privacy.ldp_mu, 2.0);
  EXPECT_EQ(two.privacy.mu[0], 2.0);
  EXPECT_EQ(two.privacy.mu[1], 2.0);
  EXPECT_NEAR(two.privacy.mu[2], 2 * std::sqrt(0.5), 1e-14);
  EXPECT_NEAR(two.privacy.mu[3], 2 * std::sqrt(0.5), 1e-14);
  EXPECT_NEAR(two.privacy.mu[4], 0.0, 1e-7);  // sqrt of a rounding-level projection
  EXPECT_EQ(two.privacy.rank_max, 3);

  const Observed three = run(kite(), {0}, 3, params);
  EXPECT_EQ(three.attack.reconstructible, (std::vector<node_t>{0, 1}));
  for (int u = 2; u < 5; ++u) EXPECT_NEAR(three.privacy.projection[std::size_t(u)], 2.0 / 3.0, 1e-14) << u;
  EXPECT_NEAR(three.privacy.mu[4], 2 * std::sqrt(2.0 / 3.0), 1e-14);
  EXPECT_EQ(three.privacy.rank_max, 4);
  EXPECT_NEAR(three.privacy.gap_hidden, 1.0 / 3.0, 1e-14);
  EXPECT_EQ(three.privacy.clamped, 0);
}

// docs/math.md §6.9's ring: n = 8, W = 1/3, T = 2, attacker 0 (it knows its noise): it receives y_1, y_7,
// then (y_0 + y_1 + y_2)/3 and (y_6 + y_7 + y_0)/3, so it computes y_2 and y_6: nodes 0, 1, 2, 6, 7 at the
// LDP level, 3, 4, 5 at 0.
TEST(AttackPrivacy, RingOfSectionSixNine) {
  const Observed r = run(ring_graph(8), {0}, 2, {.sigma = 1, .sensitivity = 1});
  EXPECT_EQ(r.attack.reconstructible, (std::vector<node_t>{0, 1, 2, 6, 7}));
  for (int u : {0, 1, 2, 6, 7}) EXPECT_EQ(r.privacy.mu[std::size_t(u)], 1.0) << u;
  for (int u : {3, 4, 5}) EXPECT_NEAR(r.privacy.projection[std::size_t(u)], 0.0, 1e-15) << u;
}

// Secure aggregation on the kite: attacker 0 knows its own states theta_0^{t+1}, rows (W^{t+1})_{0,:}.
// T = 1: (3/4, 1/4, 0, 0, 0) with e_0 gives e_1 only; T = 2: (W^2)_{0,:} = (10, 4, 1, 1, 0)/16 adds e_2 +
// e_3.
TEST(AttackPrivacy, KiteSecureAggregation) {
  const Observed one = run(kite(), {0}, 1, {.sigma = 1, .sensitivity = 1}, true);
  EXPECT_EQ(one.attack.reconstructible, (std::vector<node_t>{0, 1}));
  EXPECT_NEAR(one.privacy.projection[2], 0.0, 1e-15);
  const Observed two = run(kite(), {0}, 2, {.sigma = 1, .sensitivity = 1}, true);
  EXPECT_NEAR(two.privacy.projection[2], 0.5, 1e-14);
  EXPECT_NEAR(two.privacy.projection[3], 0.5, 1e-14);
}

// The LDP level is reached by exactly the exact reconstruction's set, every attacker alone and a pair; the
// floating-point projection, computed independently of the exact test, separates the two sets clearly.
TEST(AttackPrivacy, LdpLevelExactlyOnTheReconstructibleSet) {
  struct Case {
    Graph g;
    int steps;
  };
  const std::vector<Case> cases{{florentine_families_graph(), 3},
                                {grid_graph(4, 5), 4},
                                {erdos_renyi_graph(40, 0.12, 5), 5},
                                {path_graph(12), 6},
                                {hypercube_graph(4), 3},
                                {random_regular_graph(30, 3, 2), 6}};
  const AttackPrivacyParams params{.sigma = 0.7, .sensitivity = 1.3, .delta = 1e-5};
  for (const Case& c : cases) {
    GossipAttackParams p;
    p.steps = c.steps;
    const GossipRounds rounds(c.g, WeightsSpec{Weighting::metropolis, ""}, p);
    const AllAttackersResult all = attack_gossip_all(rounds, p, false);
    std::vector<std::vector<node_t>> sets;
    for (node_t a = 0; a < c.g.n; ++a) sets.push_back({a});
    const AttackPrivacy priv = attack_privacy(rounds, sets, all.reconstructible, false, params);
    const double ldp = 1.3 / 0.7;
    std::int64_t at_ldp = 0;
    for (std::size_t k = 0; k < priv.mu.size(); ++k) {
      if (all.reconstructible[k]) {
        EXPECT_EQ(priv.mu[k], ldp);
        EXPECT_GT(priv.projection[k], 1 - 1e-9) << k;  // the float basis agrees
        ++at_ldp;
      } else {
        EXPECT_LT(priv.mu[k], ldp);
        EXPECT_LT(priv.projection[k], 1 - 1e-9) << k;
      }
    }
    std::int64_t reconstructed = 0;
    for (int x : all.reconstructed) reconstructed += x;
    EXPECT_EQ(at_ldp, reconstructed);
    EXPECT_GT(at_ldp, c.g.n);          // more than the attackers themselves ...
    EXPECT_LT(at_ldp, c.g.n * c.g.n);  // ... and not everyone: both sides are tested
    EXPECT_EQ(priv.clamped, 0);
    // A pair of attackers: the same equivalence.
    const std::vector<node_t> pair{0, c.g.n / 2};
    const GossipAttackResult r = attack_gossip(rounds, pair, p, false, false);
    std::vector<std::int8_t> mask(static_cast<std::size_t>(c.g.n), 0);
    for (node_t j : r.reconstructible) mask[static_cast<std::size_t>(j)] = 1;
    const AttackPrivacy two = attack_privacy(rounds, {pair}, mask, false, params);
    for (std::size_t u = 0; u < mask.size(); ++u) {
      EXPECT_EQ(two.mu[u] == ldp, mask[u] == 1) << u;
      EXPECT_LE(two.mu[u], ldp);
    }
  }
}

// One attacker sees what observer v of the exact gossip accountant sees with t_start = 0, steps = T and
// knowledge of its own noise: rows e_v and W^t e_w, w in N(v), t < T. The same Krylov basis, except that the
// attack keeps exactly the exact rank's directions per block where the accountant applies its floor: where
// the accountant's basis has the exact rank too, the projections agree to rounding.
TEST(AttackPrivacy, SingleAttackerIsTheGossipView) {
  const Graph g = erdos_renyi_graph(36, 0.15, 11);
  const int steps = 4;
  GossipAttackParams p;
  p.steps = steps;
  const GossipRounds rounds(g, WeightsSpec{Weighting::metropolis, ""}, p);
  const AllAttackersResult all = attack_gossip_all(rounds, p, false);
  std::vector<std::vector<node_t>> sets;
  for (node_t a = 0; a < g.n; ++a) sets.push_back({a});
  const AttackPrivacy priv = attack_privacy(rounds, sets, all.reconstructible, false, {.sigma = 2});

  const CsrMatrix w = make_weights(g, WeightsSpec{Weighting::metropolis, ""});
  const kernels::GossipViewProblem view = gossip_view_problem(g, w, 0, steps, true);
  std::vector<double> projections(static_cast<std::size_t>(g.n * g.n));
  std::vector<kernels::GossipViewObserver> observers(static_cast<std::size_t>(g.n));
  kernels::gossip_view_cpu(view, 0, g.n, -1, projections, observers);
  EXPECT_EQ(priv.floor, kernels::gossip_view_floor(view));
  int compared = 0;
  for (node_t v = 0; v < g.n; ++v) {
    const auto i = static_cast<std::size_t>(v);
    EXPECT_EQ(priv.rank[i], all.rank[i]) << v;
    if (observers[i].rank != all.rank[i]) continue;
    ++compared;
    for (std::size_t u = 0; u < static_cast<std::size_t>(g.n); ++u) {
      const std::size_t k = i * static_cast<std::size_t>(g.n) + u;
      EXPECT_NEAR(priv.projection[k], projections[k], 1e-12) << v << ' ' << u;
      if (!all.reconstructible[k]) {
        EXPECT_EQ(priv.mu[k], 0.5 * std::sqrt(priv.projection[k]));
      }
    }
  }
  EXPECT_EQ(compared, g.n);
}

// The centre of the 9 x 9 grid, T = 30: exact rank 65. Rounding breaks the grid's symmetry and the Krylov
// recurrence amplifies it, so a basis built with the floor alone grows to rank 81 and puts every node at the
// LDP level; keeping the exact dimensions gives the values of a 60-digit mpmath Gram-Schmidt of the same rows
// (0.75 for nodes 0, 1 and 10, to 5e-9), invariant under the symmetries fixing the centre.
TEST(AttackPrivacy, GridCentreKeepsTheSymmetry) {
  const int side = 9;
  const Observed r = run(grid_graph(side, side), {40}, 30, {.sigma = 1});
  EXPECT_EQ(r.attack.rank, 65);
  EXPECT_EQ(r.privacy.rank[0], 65);
  const auto& p = r.privacy.projection;
  for (int u : {0, 1, 10}) EXPECT_NEAR(p[std::size_t(u)], 0.75, 1e-8) << u;
  for (int row = 0; row < side; ++row)
    for (int col = 0; col < side; ++col) {
      const double x = p[std::size_t(row * side + col)];
      EXPECT_NEAR(x, p[std::size_t(row * side + (side - 1 - col))], 1e-8) << row << ' ' << col;
      EXPECT_NEAR(x, p[std::size_t((side - 1 - row) * side + col)], 1e-8) << row << ' ' << col;
      EXPECT_NEAR(x, p[std::size_t(col * side + row)], 1e-8) << row << ' ' << col;
    }
}

// epsilon(delta) inverts the analytic Gaussian curve delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu -
// mu/2) (docs/math.md §1.2), evaluated here with erfc.
TEST(AttackPrivacy, EpsilonOnTheGaussianCurve) {
  const Observed r = run(kite(), {0}, 3, {.sigma = 0.8, .sensitivity = 1, .delta = 1e-4});
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  for (std::size_t u = 0; u < 5; ++u) {
    const double mu = r.privacy.mu[u], eps = r.privacy.epsilon[u];
    ASSERT_GT(eps, 0) << u;
    const double delta = phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2);
    EXPECT_NEAR(delta, 1e-4, 1e-10) << u;
  }
  EXPECT_EQ(r.privacy.epsilon[0], r.privacy.ldp_epsilon);
}

// The by-distance rows on the path 0-1-2 beside the edge 3-4, every node alone, T = 3: every node of the
// attacker's component is reconstructed (rows e_a, then its neighbours' values and their averages), the
// 3 x 2 + 2 x 3 = 12 pairs across components see nothing (mu 0) and come last.
TEST(AttackPrivacy, ByDistanceUnreachableLast) {
  const Graph g = from_edges(5, {{0, 1}, {1, 2}, {3, 4}});
  GossipAttackParams p;
  p.steps = 3;
  const GossipRounds rounds(g, WeightsSpec{Weighting::metropolis, ""}, p);
  const AllAttackersResult all = attack_gossip_all(rounds, p, false);
  std::vector<std::vector<node_t>> sets;
  for (node_t a = 0; a < g.n; ++a) sets.push_back({a});
  const AttackPrivacy priv = attack_privacy(rounds, sets, all.reconstructible, false, {.sigma = 1});
  const auto rows = privacy_by_distance(g, sets, all.reconstructible, priv);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].distance, 0);
  EXPECT_EQ(rows[0].pairs, 5);
  EXPECT_EQ(rows[1].distance, 1);
  EXPECT_EQ(rows[1].pairs, 6);  // 0-1, 1-0, 1-2, 2-1, 3-4, 4-3
  EXPECT_EQ(rows[2].pairs, 2);  // 0-2, 2-0
  EXPECT_EQ(rows[3].distance, -1);
  EXPECT_EQ(rows[3].pairs, 12);
  EXPECT_EQ(rows[3].mu_max, 0.0);
  EXPECT_EQ(rows[1].reconstructible + rows[2].reconstructible, 8);
}

TEST(AttackPrivacy, Refusals) {
  GossipAttackParams p;
  p.steps = 2;
  const GossipRounds rounds(kite(), WeightsSpec{Weighting::metropolis, ""}, p);
  const std::vector<std::int8_t> mask(5, 0);
  EXPECT_THROW(attack_privacy(rounds, {{0}}, mask, false, {.sigma = 0}), InvalidParameter);
  EXPECT_THROW(attack_privacy(rounds, {{0}}, mask, false, {.sigma = 1, .delta = 1}), InvalidParameter);
  GossipAttackParams d = p;
  d.dynamic = 0.3;
  const GossipRounds dynamic(ring_graph(6), WeightsSpec{Weighting::metropolis, ""}, d);
  EXPECT_THROW(attack_privacy(dynamic, {{0}}, std::vector<std::int8_t>(6, 0), false, {.sigma = 1}),
               InvalidParameter);
}

}  // namespace
}  // namespace netdp::attack
