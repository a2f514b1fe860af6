// Reconstruction attacks on gossip averaging (docs/math.md §7.1-7.2): hand-worked small graphs, the Fig. 4.1
// example, the path graph's closed form, exact against floating point, and the batched all-attackers run.
#include <gtest/gtest.h>

#include <numeric>

#include "netdp/attack/attack_gossip.hpp"
#include "netdp/attack/echelon.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "test_attack_graphs.hpp"

namespace netdp::attack {
namespace {

// docs/math.md §7.2: the graph of Fig. 4.1.
Graph figure_4_1() {
  return from_edges(12, {{0, 2},
                         {1, 2},
                         {2, 3},
                         {2, 4},
                         {1, 5},
                         {1, 7},
                         {1, 8},
                         {5, 9},
                         {9, 10},
                         {9, 11},
                         {11, 6},
                         {7, 8},
                         {7, 9},
                         {7, 11}});
}

GossipAttackResult run(const Graph& g, std::vector<node_t> attackers, int steps,
                       Method method = Method::exact, bool secagg = false,
                       Weighting w = Weighting::metropolis) {
  GossipAttackParams p;
  p.steps = steps;
  p.method = method;
  p.secagg = secagg;
  const GossipRounds rounds(g, WeightsSpec{w, ""}, p);
  return attack_gossip(rounds, attackers, p);
}

std::vector<node_t> range(node_t first, node_t last) {
  std::vector<node_t> v(static_cast<std::size_t>(last - first));
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(AttackGossip, FigureFourOne) {
  for (Weighting w : {Weighting::metropolis, Weighting::hamilton_literal}) {
    const auto r = run(figure_4_1(), {0, 1}, 3, Method::exact, false, w);
    EXPECT_EQ(r.observed, (std::vector<node_t>{2, 5, 7, 8}));
    EXPECT_EQ(r.rows_total, 2 + 3 * 4);
    EXPECT_EQ(r.rank, 11);
    std::vector<node_t> expected{0, 1, 2, 5, 6, 7, 8, 9, 10, 11};
    EXPECT_EQ(r.reconstructible, expected);
    EXPECT_TRUE(r.primes_agree);
    ASSERT_EQ(r.primes.size(), 2u);
    EXPECT_EQ(r.primes[0].rank, 11);
    // 3 and 4 hang symmetrically off node 2: identical columns, one relation x3 + x4 known.
    EXPECT_EQ(r.indistinguishable, (std::vector<std::vector<node_t>>{{3, 4}}));
    EXPECT_EQ(r.relations, (std::vector<std::vector<node_t>>{{3, 4}}));
    // Well conditioned: the reference's floating-point reduction agrees.
    EXPECT_EQ(r.float_reconstructible, expected);
    EXPECT_EQ(r.float_rank, 11);
    EXPECT_EQ(r.svd_rank, 11);
    EXPECT_LT(r.max_error, 1e-9);
  }
}

// Path 0-1-2, attacker 0, W-MH: W = [[2/3,1/3,0],[1/3,1/3,1/3],[0,1/3,2/3]]. T = 1: rows e0, e1 (rank 2);
// T = 2 adds (1/3, 1/3, 1/3), so x2 follows.
TEST(AttackGossip, ThreeNodePathByHand) {
  const auto t1 = run(path(3), {0}, 1);
  EXPECT_EQ(t1.rank, 2);
  EXPECT_EQ(t1.reconstructible, (std::vector<node_t>{0, 1}));
  EXPECT_TRUE(t1.relations.empty());
  const auto t2 = run(path(3), {0}, 2);
  EXPECT_EQ(t2.rank, 3);
  EXPECT_EQ(t2.reconstructible, (std::vector<node_t>{0, 1, 2}));
  EXPECT_LT(t2.max_error, 1e-9);
}

// Star: centre 0, leaves 1, 2, 3; attacker leaf 1 sees only the centre. Leaves 2 and 3 are symmetric for
// ever: x0 and x1 known, x2 + x3 known, nothing more (rank 3 from T = 2 on).
TEST(AttackGossip, StarLeafByHand) {
  const Graph star = from_edges(4, {{0, 1}, {0, 2}, {0, 3}});
  for (int T : {2, 5, 20}) {
    const auto r = run(star, {1}, T);
    EXPECT_EQ(r.rank, 3);
    EXPECT_EQ(r.reconstructible, (std::vector<node_t>{0, 1}));
    EXPECT_EQ(r.relations, (std::vector<std::vector<node_t>>{{2, 3}}));
    EXPECT_EQ(r.indistinguishable, (std::vector<std::vector<node_t>>{{2, 3}}));
  }
  EXPECT_EQ(run(star, {1}, 1).rank, 2);
}

// Remark 4.5 on the path 0-1-2 with the centre as attacker: without secure aggregation it reads x0 and x2;
// with it, only (W^t)_{1,:}, symmetric in 0 and 2, so only x0 + x2 leaks.
TEST(AttackGossip, SecureAggregationByHand) {
  EXPECT_EQ(run(path(3), {1}, 1).reconstructible, (std::vector<node_t>{0, 1, 2}));
  const auto r = run(path(3), {1}, 4, Method::exact, true);
  EXPECT_EQ(r.rows_total, 1 + 4);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.reconstructible, (std::vector<node_t>{1}));
  EXPECT_EQ(r.relations, (std::vector<std::vector<node_t>>{{0, 2}}));
}

// An attacker at the end of a path: W is tridiagonal, so (W^t)_{1,:} reaches node t + 1 first; the rows are
// triangular and exactly {0, ..., min(T, n - 1)} are reconstructible.
TEST(AttackGossip, PathClosedForm) {
  for (int T : {1, 3, 5, 7, 9}) {
    const auto r = run(path(10), {0}, T);
    const node_t last = std::min(T, 9);
    EXPECT_EQ(r.rank, last + 1) << T;
    EXPECT_EQ(r.reconstructible, range(0, last + 1)) << T;
    EXPECT_TRUE(r.primes_agree);
    EXPECT_EQ(r.float_reconstructible, r.reconstructible) << T;
    EXPECT_LT(r.max_error, 1e-9) << T;
  }
}

// A long horizon: on a 40-node path the last rows hold entries near 3^-39 ~ 1e-19, below the reference's
// tolerances. Exact arithmetic still finds every node; the floating-point reduction loses the far end.
TEST(AttackGossip, ExactSurvivesLongHorizon) {
  const auto r = run(path(40), {0}, 39);
  EXPECT_EQ(r.rank, 40);
  EXPECT_EQ(r.reconstructible, range(0, 40));
  EXPECT_TRUE(r.primes_agree);
  EXPECT_LT(r.float_reconstructible.size(), 40u);
  EXPECT_LT(r.float_rank, 40);
  const auto f = run(path(40), {0}, 39, Method::floating);
  EXPECT_EQ(f.reconstructible, r.float_reconstructible);
  EXPECT_TRUE(f.primes.empty());
}

TEST(AttackGossip, AllAttackersMatchesOneByOne) {
  const Graph g = figure_4_1();
  GossipAttackParams p;
  p.steps = 3;
  const GossipRounds rounds(g, WeightsSpec{}, p);
  const AllAttackersResult all = attack_gossip_all(rounds, p);
  EXPECT_TRUE(all.primes_agree);
  for (node_t a = 0; a < g.n; ++a) {
    const auto one = attack_gossip(rounds, {a}, p, false, true);
    EXPECT_EQ(all.rank[static_cast<std::size_t>(a)], one.rank) << a;
    EXPECT_EQ(all.reconstructed[static_cast<std::size_t>(a)], static_cast<int>(one.reconstructible.size()))
        << a;
    EXPECT_EQ(all.float_reconstructed[static_cast<std::size_t>(a)],
              static_cast<int>(one.float_reconstructible.size()));
    for (node_t j = 0; j < g.n; ++j) {
      const bool in = std::binary_search(one.reconstructible.begin(), one.reconstructible.end(), j);
      EXPECT_EQ(all.reconstructible[static_cast<std::size_t>(a * g.n + j)], in ? 1 : 0);
    }
  }
}

// Remark 4.6: a time-varying graph whose rounds keep every edge is the static one; dropping edges never
// shows more than the static graph would through the same... (not monotone in general), so check only
// determinism and the field's agreement.
TEST(AttackGossip, DynamicRounds) {
  GossipAttackParams p;
  p.steps = 4;
  p.dynamic = 0.3;
  p.seed = 7;
  const Graph g = figure_4_1();
  const GossipRounds a(g, WeightsSpec{}, p), b(g, WeightsSpec{}, p);
  const auto ra = attack_gossip(a, {0, 1}, p), rb = attack_gossip(b, {0, 1}, p);
  EXPECT_EQ(ra.reconstructible, rb.reconstructible);
  EXPECT_TRUE(ra.primes_agree);
  EXPECT_LT(ra.max_error, 1e-9);
  EXPECT_EQ(ra.float_reconstructible, ra.reconstructible);
}

TEST(AttackGossip, ParseAttackers) {
  bool every = false;
  EXPECT_EQ(parse_attackers("3,1", 5, 0, &every), (std::vector<node_t>{1, 3}));
  EXPECT_FALSE(every);
  EXPECT_TRUE(parse_attackers("all", 5, 0, &every).empty());
  EXPECT_TRUE(every);
  const auto r = parse_attackers("random:3", 10, 4, &every);
  EXPECT_EQ(r.size(), 3u);
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
  EXPECT_THROW(parse_attackers("5", 5, 0, &every), InvalidParameter);
  EXPECT_THROW(parse_attackers("1,1", 5, 0, &every), InvalidParameter);
  EXPECT_THROW(parse_attackers("random:6", 5, 0, &every), InvalidParameter);
  EXPECT_THROW(parse_attackers("x", 5, 0, &every), InvalidParameter);
}

TEST(AttackGossip, ExactNeedsRationalWeights) {
  GossipAttackParams p;
  p.steps = 0;
  EXPECT_THROW(GossipRounds(path(3), WeightsSpec{}, p), InvalidParameter);
}

// The field: Montgomery products against 128-bit arithmetic, inverses, rationals.
TEST(AttackGossip, ModularField) {
  for (std::uint64_t prime : kPrimes) {
    const ModularField f(prime);
    const std::uint64_t a = prime - 12345, b = 987654321987ULL;
    const auto expected = static_cast<std::uint64_t>(static_cast<unsigned __int128>(a) * b % prime);
    EXPECT_EQ(f.to_integer(f.mul(f.from_integer(static_cast<std::int64_t>(a)),
                                 f.from_integer(static_cast<std::int64_t>(b)))),
              expected);
    EXPECT_EQ(f.to_integer(f.mul(f.from_rational(1, 3), f.from_integer(3))), 1u);
    EXPECT_EQ(f.to_integer(f.from_integer(-1)), prime - 1);
  }
}

}  // namespace
}  // namespace netdp::attack
