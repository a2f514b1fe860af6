// Empirical per-walk accounting (MATH_SPEC 4.1.3): a hand-made walk computed by hand, the
// sufficient-statistics code against a brute-force pair-list implementation, walk_sim's aggregates against
// per-run brute force, the shape of E2 (Fig. 7.1b) and the utility of private summation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "netdp/core/graph_generators.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/dp/shuffling.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace netdp {
namespace {

// ---- Hand formulas (MATH_SPEC 1.4 C2 / C4, 1.5 SS2, 1.2 G6), written out independently of the library. ----

double mass_of(const WalkSimParams& p, int m) {
  return p.mechanism == WalkMechanism::gaussian ? p.eps0 / std::sqrt(double(m))
                                                : dp::shuffle_epsilon(p.eps0, m, p.delta);
}

double cycle_eps(const WalkSimParams& p, int n, int m, int c) {
  const double mass = mass_of(p, m);
  if (c == 0) return std::log(1 + (1 - std::pow(1 - 1.0 / n, m)) * (std::exp(mass) - 1));
  return c == 1 ? mass : 2 * mass;
}

double kairouz(const std::vector<double>& eps, double delta) {
  if (eps.empty()) return 0;
  const double k = double(eps.size()), d = k * delta;
  double first = 0, squares = 0, sum = 0;
  for (double e : eps) {
    first += (std::exp(e) - 1) * e / (std::exp(e) + 1);
    squares += e * e;
    sum += e;
  }
  const double e = std::numbers::e;
  const double second = e + std::sqrt(squares) / d > 1 / d
                            ? std::sqrt(2 * squares * std::log(1 / d))
                            : std::sqrt(2 * squares * std::log(e + std::sqrt(squares) / d));
  return std::min(first + second, sum);
}

double ldp(const WalkSimParams& p, int k) {
  return std::sqrt(2 * k * std::log(1 / p.delta)) * p.eps0 + k * p.eps0 * (std::exp(p.eps0) - 1);
}

struct Entry {
  int m, c;
};

// ---- The hand-made walk. ----
// n = 4, path 0 1 0 2 2 3 0 1 1 2 (T = 10). Cycles, with "receiver" = whom v sent to at its previous visit
// and "sender" = the previous position:
//   t=1: v=1, m=1-0=1, sender 0, no receiver             -> obs 1: u0 (1,1) u2 (1,0) u3 (1,0)
//   t=2: v=0, m=2-0=2, sender 1, receiver 1 (sent at 0)  -> obs 0: u1 (2,2) u2 (2,0) u3 (2,0)
//   t=3: v=2, m=3-0=3, sender 0, no receiver             -> obs 2: u0 (3,1) u1 (3,0) u3 (3,0)
//   t=4: v=2, m=4-3=1, sender 2 (itself), no receiver    -> obs 2: u0 (1,0) u1 (1,0) u3 (1,0)
//   t=5: v=3, m=5-0=5, sender 2, no receiver             -> obs 3: u0 (5,0) u1 (5,0) u2 (5,1)
//   t=6: v=0, m=6-2=4, sender 3, receiver 2 (sent at 2)  -> obs 0: u1 (4,0) u2 (4,1) u3 (4,1)
//   t=7: v=1, m=7-1=6, sender 0, receiver 0 (sent at 1)  -> obs 1: u0 (6,2) u2 (6,0) u3 (6,0)
//   t=8: v=1, m=8-7=1, sender 1 (itself), receiver 1 (it sent to itself at 7: not a participant u)
//                                                        -> obs 1: u0 (1,0) u2 (1,0) u3 (1,0)
//   t=9: v=2, m=9-4=5, sender 1, receiver 3 (sent at 4)  -> obs 2: u0 (5,0) u1 (5,1) u3 (5,1)
const std::vector<node_t> kHandPath = {0, 1, 0, 2, 2, 3, 0, 1, 1, 2};
// kHandLists[v][u]: the entries of pair (u -> v), known view.
const std::vector<std::vector<std::vector<Entry>>> kHandLists = {
    {{}, {{2, 2}, {4, 0}}, {{2, 0}, {4, 1}}, {{2, 0}, {4, 1}}},
    {{{1, 1}, {6, 2}, {1, 0}}, {}, {{1, 0}, {6, 0}, {1, 0}}, {{1, 0}, {6, 0}, {1, 0}}},
    {{{3, 1}, {1, 0}, {5, 0}}, {{3, 0}, {1, 0}, {5, 1}}, {}, {{3, 0}, {1, 0}, {5, 1}}},
    {{{5, 0}}, {{5, 0}}, {{5, 1}}, {}},
};
const std::vector<int> kHandCycles = {2, 3, 3, 1};

void expect_hand_walk(const WalkSimParams& p) {
  const int n = 4;
  const PathAccounting a = account_path(kHandPath, n, p);
  for (int v = 0; v < n; ++v) {
    EXPECT_EQ(a.cycles[v], kHandCycles[v]);
    EXPECT_NEAR(a.local[v], ldp(p, kHandCycles[v]), 1e-12);
    for (int u = 0; u < n; ++u) {
      std::vector<double> eps;
      for (const Entry& e : kHandLists[v][u])
        eps.push_back(cycle_eps(p, n, e.m, p.view == WalkView::known ? e.c : 0));
      const double expected = u == v ? 0.0 : kairouz(eps, p.delta);
      EXPECT_NEAR(a.loss[u * n + v], expected, 1e-12 * std::max(1.0, expected)) << "u " << u << " v " << v;
    }
  }
}

TEST(WalkAccounting, HandMadeWalkGaussianBothViews) {
  WalkSimParams p;
  p.eps0 = 0.8;
  p.delta = 1e-3;
  expect_hand_walk(p);
  p.view = WalkView::hidden;
  expect_hand_walk(p);
  // One pair by hand to the last digit: (1 -> 0), known: entries (2, c = 2) and (4, c = 0).
  p.view = WalkView::known;
  const double e1 = 2 * 0.8 / std::sqrt(2.0), e2 = std::log(1 + (1 - std::pow(0.75, 4)) * std::expm1(0.4));
  EXPECT_NEAR(account_path(kHandPath, 4, p).loss[1 * 4 + 0], kairouz({e1, e2}, 1e-3), 1e-12);
}

TEST(WalkAccounting, HandMadeWalkHistogramBothViews) {
  WalkSimParams p;
  p.mechanism = WalkMechanism::histogram;
  p.eps0 = 0.4;
  p.delta = 1e-4;
  expect_hand_walk(p);
  p.view = WalkView::hidden;
  expect_hand_walk(p);
}

TEST(WalkAccounting, LongListUsesTheKairouzBranch) {
  // A long alternating walk 0 1 0 1 ...: every cycle has m = 2 and c = 2 for the other node, so C4's
  // first + second term is smaller than the plain sum.
  std::vector<node_t> path;
  for (int t = 0; t < 401; ++t) path.push_back(t % 2);
  WalkSimParams p;
  p.eps0 = 0.1;
  p.delta = 1e-7;
  const PathAccounting a = account_path(path, 2, p);
  std::vector<double> eps{0.1};  // (1 -> 1): t = 1, m = 1, sender 0, no receiver
  for (int i = 0; i < 199; ++i) eps.push_back(2 * 0.1 / std::sqrt(2.0));  // then m = 2, c = 2
  EXPECT_NEAR(a.loss[0 * 2 + 1], kairouz(eps, 1e-7), 1e-12);
  double sum = 0;
  for (double e : eps) sum += e;
  EXPECT_LT(a.loss[0 * 2 + 1], 0.9 * sum);
}

// ---- Brute force: the pair lists themselves, from the definition. ----

std::vector<double> brute_force(const std::vector<node_t>& path, int n, const WalkSimParams& p,
                                std::vector<int>& cycles) {
  std::vector<std::vector<std::vector<double>>> lists(n, std::vector<std::vector<double>>(n));
  cycles.assign(n, 0);
  for (std::size_t t = 1; t < path.size(); ++t) {
    const node_t v = path[t], sender = path[t - 1];
    int previous = -1;  // v's previous visit
    for (int j = int(t) - 1; j >= 0; --j)
      if (path[j] == v) {
        previous = j;
        break;
      }
    const int m = int(t) - std::max(previous, 0);
    const int receiver = previous >= 0 ? path[previous + 1] : -1;
    ++cycles[v];
    for (int u = 0; u < n; ++u) {
      if (u == v) continue;
      const int c = p.view == WalkView::known ? int(u == receiver) + int(u == sender) : 0;
      lists[v][u].push_back(cycle_eps(p, n, m, c));
    }
  }
  std::vector<double> loss(std::size_t(n) * n, 0.0);
  for (int v = 0; v < n; ++v)
    for (int u = 0; u < n; ++u)
      if (u != v) loss[std::size_t(u) * n + v] = dp::heterogeneous_composition(lists[v][u], p.delta).epsilon;
  return loss;
}

TEST(WalkAccounting, SufficientStatisticsEqualPairLists) {
  const int n = 10;
  const Graph ring = ring_graph(n);
  for (auto mechanism : {WalkMechanism::gaussian, WalkMechanism::histogram})
    for (auto view : {WalkView::known, WalkView::hidden})
      for (std::uint64_t seed : {1u, 2u}) {
        WalkSimParams p;
        p.steps = 200;
        p.seed = seed;
        p.eps0 = 0.3;
        p.delta = 1e-6;
        p.mechanism = mechanism;
        p.view = view;
        for (const WalkModel& m : {complete_walk(n), csr_walk(ring, parse_walk_weights("lazy-uniform"))}) {
          const auto path = sample_walk(m, p, 0);
          std::vector<int> cycles;
          const auto expected = brute_force(path, n, p, cycles);
          const PathAccounting a = account_path(path, n, p);
          for (int v = 0; v < n; ++v) EXPECT_EQ(a.cycles[v], cycles[v]);
          for (std::size_t i = 0; i < expected.size(); ++i)
            ASSERT_NEAR(a.loss[i], expected[i], 1e-11 * std::max(1.0, expected[i]))
                << to_string(mechanism) << ' ' << to_string(view) << " seed " << seed << " pair " << i;
        }
      }
}

// ---- walk_sim's aggregates against per-run brute force. ----

TEST(WalkAccounting, AggregatesMatchPerRunAccounting) {
  const Graph g = erdos_renyi_graph(12, 0.35, 4);
  const WalkModel m = csr_walk(g, parse_walk_weights("uniform"));
  DistanceCounts distances;
  ASSERT_TRUE(distance_counts(g, distances));
  WalkSimParams p;
  p.steps = 300;
  p.runs = 6;
  p.seed = 8;
  p.eps0 = 0.2;
  p.delta = 1e-6;
  p.quantiles = {0.1, 0.5, 0.9};
  const WalkSimResult r = walk_sim(m, p, &distances);

  const int n = g.n;
  std::vector<double> all, observer(n, 0.0);
  std::vector<std::vector<double>> by_distance(n);
  double local_sum = 0, local_min = 1e300, local_max = 0;
  for (std::int64_t run = 0; run < p.runs; ++run) {
    const PathAccounting a = account_path(sample_walk(m, p, run), n, p);
    for (int v = 0; v < n; ++v) {
      const auto d = bfs_distances(g, v);
      for (int u = 0; u < n; ++u) {
        if (u == v) continue;
        const double x = a.loss[std::size_t(u) * n + v];
        all.push_back(x);
        by_distance[d[u]].push_back(x);
        observer[v] += x / (n - 1) / double(p.runs);
      }
      local_sum += a.local[v] * (n - 1);
      local_min = std::min(local_min, a.local[v]);
      local_max = std::max(local_max, a.local[v]);
    }
  }
  double sum = 0;
  for (double x : all) sum += x;
  EXPECT_EQ(r.network.weight, double(all.size()));
  EXPECT_NEAR(r.network.mean(), sum / double(all.size()), 1e-12);
  EXPECT_EQ(r.network.min, *std::min_element(all.begin(), all.end()));
  EXPECT_EQ(r.network.max, *std::max_element(all.begin(), all.end()));
  EXPECT_NEAR(r.local.mean(), local_sum / double(all.size()), 1e-12);
  EXPECT_EQ(r.local.min, local_min);
  EXPECT_EQ(r.local.max, local_max);
  for (int v = 0; v < n; ++v) EXPECT_NEAR(r.observer_loss[v], observer[v], 1e-12);
  for (int d = 1; d < n; ++d) {
    if (by_distance[d].empty()) continue;
    ASSERT_LT(std::size_t(d), r.by_distance.size());
    double s = 0;
    for (double x : by_distance[d]) s += x;
    EXPECT_EQ(r.by_distance[d].weight, double(by_distance[d].size()));
    EXPECT_NEAR(r.by_distance[d].mean(), s / double(by_distance[d].size()), 1e-12) << "distance " << d;
  }
  std::sort(all.begin(), all.end());
  for (const auto& [q, value] : r.network_quantiles) {
    const double exact = all[std::size_t(std::ceil(q * double(all.size()))) - 1];
    EXPECT_NEAR(value, exact, 2e-4 * exact) << "q " << q;
  }
}

// ---- E2 (Fig. 7.1b): the empirical network loss is far below LDP and decreases with n. ----

TEST(WalkAccounting, FigureSevenOneBShape) {
  double previous = 1e300;
  for (int n : {10, 20, 50}) {
    WalkSimParams p;
    p.steps = 100 * n;
    p.runs = 10;
    p.seed = 1;
    p.eps0 = 0.1;
    p.delta = 1e-7;
    const WalkSimResult r = walk_sim(complete_walk(n), p);
    EXPECT_LT(r.network.mean(), r.local.mean() / 3) << "n " << n;
    EXPECT_LT(r.network.max, r.local.min) << "n " << n;
    EXPECT_LT(r.network.mean(), previous) << "n " << n;
    previous = r.network.mean();
    p.view = WalkView::hidden;  // c = 0 everywhere: never more than the known-view loss
    EXPECT_LE(walk_sim(complete_walk(n), p).network.mean(), r.network.mean());
  }
}

// ---- Utility of private real summation (MATH_SPEC 4.1, 3.1). ----

TEST(WalkAccounting, SummationErrorMatchesTheory) {
  WalkSimParams p;
  p.steps = 400;
  p.runs = 800;
  p.seed = 3;
  p.eps0 = 0.5;
  p.delta = 1e-5;
  const double sigma = std::sqrt(2 * std::log(1.25 / p.delta)) / p.eps0;  // G2, sensitivity 1
  const WalkModel complete = complete_walk(10), ring = make_walk_model("ring:n=10", "directed-ring");
  for (const WalkModel* m : {&complete, &ring}) {
    const WalkSimResult r = walk_sim(*m, p);
    EXPECT_NEAR(r.sigma_loc, sigma, 1e-12);
    const std::int64_t noises = m == &ring ? (p.steps - 1) / 9 + 1 : p.steps;  // Alg 5.1: every n - 1 hops
    double sum = 0, squares = 0;
    for (const UtilityRun& u : r.utility) {
      EXPECT_EQ(u.noises, noises);
      EXPECT_GT(u.truth, 0);
      EXPECT_LT(u.truth, double(p.steps));
      sum += u.estimate - u.truth;
      squares += (u.estimate - u.truth) * (u.estimate - u.truth);
    }
    const double runs = double(p.runs), sd = std::sqrt(double(noises)) * sigma;
    EXPECT_NEAR(sum / runs, 0.0, 4 * sd / std::sqrt(runs));
    EXPECT_NEAR(std::sqrt(squares / runs), sd, 0.1 * sd);  // sd of the estimate ~ 1/sqrt(2R) = 2.5%
    EXPECT_NEAR(summation_theory_std(*m, p.steps, sigma), m == &ring ? std::sqrt(44.0) * sigma : 20 * sigma,
                1e-9);
  }
  // The ring's truth is the sum of the values along 0, 1, 2, ...: every node 40 times.
  const WalkSimResult r = walk_sim(ring, p);
  EXPECT_NEAR(r.utility[0].truth, r.utility[1].truth, 1e-9);
}

}  // namespace
}  // namespace netdp
