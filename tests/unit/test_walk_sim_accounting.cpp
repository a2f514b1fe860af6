// Empirical per-walk accounting (docs/math.md §4.1.3): hand-made walks computed by hand, the
// sufficient-statistics code against a brute-force pair-list implementation (both receiver bookkeepings of
// docs/math.md §4.1.3), walk_sim's aggregates against per-run brute force, the shape of E2 (Fig. 7.1b) and
// the utility of private summation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "netdp/core/error.hpp"

#include "netdp/core/graph_generators.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/dp/shuffling.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "netdp/simulation/walk_sim_theory.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

// ---- Hand formulas (docs/math.md §1.4 C2 / C4, 1.5 SS2, 1.2 G6), independent of the library. ----

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

// The same walk with the reference code's bookkeeping (docs/math.md §4.1.3, --bookkeeping reference):
// last_send starts at node 0 for every node, and at t the receiver last_send[v] is read before the send
// p_{t-1} -> v is recorded (last_send[p_{t-1}] = v). Only four entries change:
//   t=1: v=1, first cycle: receiver 0 (initial) = sender 0  -> obs 1: u0 (1,2)   [definition (1,1)]
//   t=3: v=2, first cycle: receiver 0 (initial) = sender 0  -> obs 2: u0 (3,2)   [definition (3,1)]
//   t=4: v=2 after the self-transition 2 -> 2: v's send at 3 is not recorded yet, so the receiver is still
//        the initial 0                                       -> obs 2: u0 (1,1)   [definition (1,0)]
//   t=5: v=3, first cycle: receiver 0 (initial), sender 2   -> obs 3: u0 (5,1)   [definition (5,0)]
//   t=8: v=1 after the self-transition 1 -> 1: receiver = whom 1 sent to at its previous-but-one visit
//        (t=1 -> 0), its send at 7 not recorded yet          -> obs 1: u0 (1,1)   [definition (1,0)]
// (t=2, 6, 7, 9 read a receiver set by a send recorded earlier: the same as the definition.)
const std::vector<std::vector<std::vector<Entry>>> kHandListsReference = {
    {{}, {{2, 2}, {4, 0}}, {{2, 0}, {4, 1}}, {{2, 0}, {4, 1}}},
    {{{1, 2}, {6, 2}, {1, 1}}, {}, {{1, 0}, {6, 0}, {1, 0}}, {{1, 0}, {6, 0}, {1, 0}}},
    {{{3, 2}, {1, 1}, {5, 0}}, {{3, 0}, {1, 0}, {5, 1}}, {}, {{3, 0}, {1, 0}, {5, 1}}},
    {{{5, 1}}, {{5, 0}}, {{5, 1}}, {}},
};

// A second hand-made walk for the bookkeepings' corner cases: n = 4, start at node 2 (not node 0), path
// 2 2 2 1 3 1 1 0 1 3 (T = 10): a self-transition of the start at t = 1, two in a row, node 0's own first
// cycle, and a stale receiver other than node 0. Definition (last_send = -1, the send recorded first):
//   t=1: v=2, m=1, sender 2 (itself), receiver 2 (sent to itself at 0)  -> obs 2: all c = 0
//   t=2: v=2, m=1, sender 2, receiver 2                                  -> obs 2: all c = 0
//   t=3: v=1, m=3, sender 2, no receiver (first cycle)                   -> obs 1: u2 (3,1)
//   t=4: v=3, m=4, sender 1, no receiver                                 -> obs 3: u1 (4,1)
//   t=5: v=1, m=2, sender 3, receiver 3 (sent at 3)                      -> obs 1: u3 (2,2)
//   t=6: v=1, m=1, sender 1 (itself), receiver 1 (sent to itself at 5)   -> obs 1: all c = 0
//   t=7: v=0, m=7, sender 1, no receiver                                 -> obs 0: u1 (7,1)
//   t=8: v=1, m=2, sender 0, receiver 0 (sent at 6)                      -> obs 1: u0 (2,2)
//   t=9: v=3, m=5, sender 1, receiver 1 (sent at 4)                      -> obs 3: u1 (5,2)
// Reference (last_send = 0, read before the send p_{t-1} -> v is recorded):
//   t=1: receiver last_send[2] = 0 (initial; the start's send 2 -> 2 not recorded yet) -> obs 2: u0 (1,1)
//   t=2: receiver last_send[2] = 2 (recorded at t=1): itself                           -> obs 2: all c = 0
//   t=3: receiver 0 (initial), sender 2                  -> obs 1: u0 (3,1) u2 (3,1)
//   t=4: receiver 0 (initial), sender 1                  -> obs 3: u0 (4,1) u1 (4,1)
//   t=5: receiver 3 (recorded at t=4), sender 3          -> obs 1: u3 (2,2)
//   t=6: receiver last_send[1] = 3 (stale: the send 1 -> 1 at 5 is recorded after this read), sender 1
//                                                        -> obs 1: u3 (1,1)
//   t=7: v=0: receiver last_send[0] = 0 = v itself, sender 1 -> obs 0: u1 (7,1)
//   t=8: receiver 0 (recorded at t=7), sender 0          -> obs 1: u0 (2,2)
//   t=9: receiver 1 (recorded at t=5), sender 1          -> obs 3: u1 (5,2)
const std::vector<node_t> kCornerPath = {2, 2, 2, 1, 3, 1, 1, 0, 1, 3};
const std::vector<int> kCornerCycles = {1, 4, 2, 2};
const std::vector<std::vector<std::vector<Entry>>> kCornerListsDefinition = {
    {{}, {{7, 1}}, {{7, 0}}, {{7, 0}}},
    {{{3, 0}, {2, 0}, {1, 0}, {2, 2}},
     {},
     {{3, 1}, {2, 0}, {1, 0}, {2, 0}},
     {{3, 0}, {2, 2}, {1, 0}, {2, 0}}},
    {{{1, 0}, {1, 0}}, {{1, 0}, {1, 0}}, {}, {{1, 0}, {1, 0}}},
    {{{4, 0}, {5, 0}}, {{4, 1}, {5, 2}}, {{4, 0}, {5, 0}}, {}},
};
const std::vector<std::vector<std::vector<Entry>>> kCornerListsReference = {
    {{}, {{7, 1}}, {{7, 0}}, {{7, 0}}},
    {{{3, 1}, {2, 0}, {1, 0}, {2, 2}},
     {},
     {{3, 1}, {2, 0}, {1, 0}, {2, 0}},
     {{3, 0}, {2, 2}, {1, 1}, {2, 0}}},
    {{{1, 1}, {1, 0}}, {{1, 0}, {1, 0}}, {}, {{1, 0}, {1, 0}}},
    {{{4, 1}, {5, 0}}, {{4, 1}, {5, 2}}, {{4, 0}, {5, 0}}, {}},
};

void expect_lists(const std::vector<node_t>& path, const std::vector<int>& cycles,
                  const std::vector<std::vector<std::vector<Entry>>>& lists, const WalkSimParams& p) {
  const int n = 4;
  const PathAccounting a = account_path(path, n, p);
  for (int v = 0; v < n; ++v) {
    EXPECT_EQ(a.cycles[v], cycles[v]);
    EXPECT_NEAR(a.local[v], ldp(p, cycles[v]), 1e-12);
    for (int u = 0; u < n; ++u) {
      std::vector<double> eps;
      for (const Entry& e : lists[v][u])
        eps.push_back(cycle_eps(p, n, e.m, p.view == WalkView::known ? e.c : 0));
      const double expected = u == v ? 0.0 : kairouz(eps, p.delta);
      EXPECT_NEAR(a.loss[u * n + v], expected, 1e-12 * std::max(1.0, expected))
          << "u " << u << " v " << v << ' ' << to_string(p.bookkeeping);
    }
  }
}

void expect_hand_walk(const WalkSimParams& p) {
  const bool reference = p.bookkeeping == WalkBookkeeping::reference;
  expect_lists(kHandPath, kHandCycles, reference ? kHandListsReference : kHandLists, p);
  expect_lists(kCornerPath, kCornerCycles, reference ? kCornerListsReference : kCornerListsDefinition, p);
}

TEST(WalkAccounting, HandMadeWalkGaussianBothViews) {
  WalkSimParams p;
  p.eps0 = 0.8;
  p.delta = 1e-3;
  for (auto bookkeeping : {WalkBookkeeping::definition, WalkBookkeeping::reference}) {
    p.bookkeeping = bookkeeping;
    p.view = WalkView::known;
    expect_hand_walk(p);
    p.view = WalkView::hidden;  // c = 0 everywhere: the bookkeeping does not matter
    expect_hand_walk(p);
  }
  p.bookkeeping = WalkBookkeeping::definition;
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
  for (auto bookkeeping : {WalkBookkeeping::definition, WalkBookkeeping::reference}) {
    p.bookkeeping = bookkeeping;
    p.view = WalkView::known;
    expect_hand_walk(p);
    p.view = WalkView::hidden;
    expect_hand_walk(p);
  }
}

TEST(WalkAccounting, ReferenceBookkeepingByHand) {
  // Pair (0 -> 1) of the hand-made walk to the last digit, reference bookkeeping: (1, c = 2), (6, c = 2),
  // (1, c = 1), where the definition has (1, 1), (6, 2), (1, 0).
  WalkSimParams p;
  p.eps0 = 0.8;
  p.delta = 1e-3;
  p.bookkeeping = WalkBookkeeping::reference;
  const double reference = kairouz({2 * 0.8, 2 * 0.8 / std::sqrt(6.0), 0.8}, 1e-3);
  EXPECT_NEAR(account_path(kHandPath, 4, p).loss[0 * 4 + 1], reference, 1e-12);
  p.bookkeeping = WalkBookkeeping::definition;
  const double definition =
      kairouz({0.8, 2 * 0.8 / std::sqrt(6.0), std::log(1 + 0.25 * std::expm1(0.8))}, 1e-3);
  EXPECT_NEAR(account_path(kHandPath, 4, p).loss[0 * 4 + 1], definition, 1e-12);
  EXPECT_GT(reference, definition);
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

// ---- Brute force: the pair lists themselves, from the definition (and from the closed form of the
// reference code's receiver, docs/walk_sim.md "Receiver bookkeeping"). ----

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
    int receiver = previous >= 0 ? path[previous + 1] : -1;
    if (p.bookkeeping == WalkBookkeeping::reference) {
      // The reference code: p_{j+1} for v's last visit j <= t - 2 (its send at t - 1 is recorded only after
      // this cycle), node 0 when v has none.
      receiver = 0;
      for (int j = int(t) - 2; j >= 0; --j)
        if (path[j] == v) {
          receiver = path[j + 1];
          break;
        }
    }
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
  for (auto bookkeeping : {WalkBookkeeping::definition, WalkBookkeeping::reference})
    for (auto mechanism : {WalkMechanism::gaussian, WalkMechanism::histogram})
      for (auto view : {WalkView::known, WalkView::hidden})
        for (std::uint64_t seed : {1u, 2u}) {
          WalkSimParams p = testing::accounted_walk_params(200, 1, seed, 0.3, 1e-6);
          p.mechanism = mechanism;
          p.view = view;
          p.bookkeeping = bookkeeping;
          p.start = parse_walk_start(seed == 1 ? "node:0" : "node:7");  // the start need not be node 0
          for (const WalkModel& m : {complete_walk(n), csr_walk(ring, parse_walk_weights("lazy-uniform"))}) {
            const auto path = sample_walk(m, p, 0);
            std::vector<int> cycles;
            const auto expected = brute_force(path, n, p, cycles);
            const PathAccounting a = account_path(path, n, p);
            for (int v = 0; v < n; ++v) EXPECT_EQ(a.cycles[v], cycles[v]);
            for (std::size_t i = 0; i < expected.size(); ++i)
              ASSERT_NEAR(a.loss[i], expected[i], 1e-11 * std::max(1.0, expected[i]))
                  << to_string(bookkeeping) << ' ' << to_string(mechanism) << ' ' << to_string(view)
                  << " seed " << seed << " pair " << i;
          }
        }
}

TEST(WalkAccounting, ReferenceBookkeepingChangesAboutHundredOverNEntries) {
  // docs/walk_sim.md "Receiver bookkeeping": on K_n with T = 100 n the two bookkeepings differ in about
  // 100/n entries per observer (one per self-transition whose stale receiver is another node) plus one per
  // first cycle (the initial node 0). Counted on the brute-force lists of a few walks.
  for (int n : {10, 50}) {
    WalkSimParams p;
    p.steps = 100 * n;
    p.eps0 = 0.1;
    p.delta = 1e-7;
    double changed = 0;
    const int runs = 4;
    for (int run = 0; run < runs; ++run) {
      const auto path = sample_walk(complete_walk(n), p, run);
      std::vector<int> cycles;
      p.bookkeeping = WalkBookkeeping::definition;
      const auto definition = brute_force(path, n, p, cycles);
      p.bookkeeping = WalkBookkeeping::reference;
      const auto reference = brute_force(path, n, p, cycles);
      const PathAccounting a = account_path(path, n, p);
      for (std::size_t i = 0; i < reference.size(); ++i) {
        EXPECT_GE(reference[i], definition[i]);  // an entry only ever gains a participant
        ASSERT_NEAR(a.loss[i], reference[i], 1e-11 * std::max(1.0, reference[i]));
      }
      // Entries: self-transitions where the stale receiver differs from v, plus first cycles of v != 0.
      std::vector<int> last_send(n, 0);
      std::vector<bool> seen(n, false);
      seen[path[0]] = true;
      for (std::size_t t = 1; t < path.size(); ++t) {
        const int v = path[t], s = path[t - 1];
        if ((s == v || !seen[v]) && last_send[v] != v) ++changed;
        seen[v] = true;
        last_send[s] = v;
      }
    }
    const double per_observer = changed / runs / n;
    EXPECT_GT(per_observer, 100.0 / n * 0.7) << "n " << n;
    EXPECT_LT(per_observer, 100.0 / n * 1.3 + 1) << "n " << n;
  }
}

// ---- walk_sim's aggregates against per-run brute force. ----

void expect_aggregates_match(const Graph& g, const WalkModel& m, WalkBookkeeping bookkeeping) {
  DistanceCounts distances;
  ASSERT_TRUE(distance_counts(g, distances));
  WalkSimParams p = testing::accounted_walk_params(300, 6, 8, 0.2, 1e-6);
  p.bookkeeping = bookkeeping;
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

TEST(WalkAccounting, AggregatesMatchPerRunAccounting) {
  const Graph g = erdos_renyi_graph(12, 0.35, 4);
  expect_aggregates_match(g, csr_walk(g, parse_walk_weights("uniform")), WalkBookkeeping::definition);
  // The reference bookkeeping's initial receiver, node 0, is mostly not a neighbour: its pairs land at
  // their own hop distance; the lazy walk adds self-transitions (stale receivers).
  const auto from_zero = bfs_distances(g, 0);
  ASSERT_GT(*std::max_element(from_zero.begin(), from_zero.end()), 1);
  for (const char* weights : {"uniform", "lazy-uniform"})
    expect_aggregates_match(g, csr_walk(g, parse_walk_weights(weights)), WalkBookkeeping::reference);
}

TEST(WalkAccounting, ReferenceBookkeepingRunsOnTheCpu) {
  WalkSimParams p;
  p.steps = 100;
  p.bookkeeping = WalkBookkeeping::reference;
  EXPECT_EQ(parse_walk_bookkeeping("reference"), WalkBookkeeping::reference);
  EXPECT_EQ(parse_walk_bookkeeping("definition"), WalkBookkeeping::definition);
  EXPECT_EQ(to_string(WalkBookkeeping::reference), "reference");
  EXPECT_EQ(to_string(WalkBookkeeping::definition), "definition");
  EXPECT_THROW(parse_walk_bookkeeping("spec"), InvalidInput);
  p.device = parse_device_spec("cuda");
  try {
    validate(p, 10);
    ADD_FAILURE() << "device cuda accepted the reference bookkeeping";
  } catch (const InvalidParameter& e) {
    EXPECT_EQ(e.parameter(), "bookkeeping");
    EXPECT_NE(std::string(e.what()).find("bookkeeping reference runs on the CPU only"), std::string::npos)
        << e.what();
  }
  p.device = parse_device_spec("auto");
  const WalkSimResult r = walk_sim(complete_walk(10), p);
  EXPECT_EQ(r.device.rfind("cpu", 0), 0u) << r.device;
  EXPECT_EQ(r.device_note, "auto: bookkeeping reference runs on the CPU only");
  // A hand-made distance table without the hop distances from node 0 is refused.
  const Graph g = ring_graph(10);
  DistanceCounts d;
  ASSERT_TRUE(distance_counts(g, d));
  ASSERT_EQ(d.from_node0.size(), 10u);
  EXPECT_EQ(d.from_node0[5], 5);
  d.from_node0.clear();
  p.device = parse_device_spec("cpu");
  EXPECT_THROW(walk_sim(csr_walk(g, parse_walk_weights("uniform")), p, &d), InvalidInput);
}

// ---- E2 (Fig. 7.1b): the empirical network loss is far below LDP and decreases with n. ----

TEST(WalkAccounting, FigureSevenOneBShape) {
  double previous = 1e300;
  for (int n : {10, 20, 50}) {
    WalkSimParams p = testing::accounted_walk_params(100 * n, 10, 1, 0.1, 1e-7);
    const WalkSimResult r = walk_sim(complete_walk(n), p);
    EXPECT_LT(r.network.mean(), r.local.mean() / 3) << "n " << n;
    EXPECT_LT(r.network.max, r.local.min) << "n " << n;
    EXPECT_LT(r.network.mean(), previous) << "n " << n;
    previous = r.network.mean();
    p.view = WalkView::hidden;  // c = 0 everywhere: never more than the known-view loss
    EXPECT_LE(walk_sim(complete_walk(n), p).network.mean(), r.network.mean());
    // The reference code's bookkeeping: 2-7% more (docs/walk_sim.md "Receiver bookkeeping").
    p.view = WalkView::known;
    p.bookkeeping = WalkBookkeeping::reference;
    const double gap = 1 - r.network.mean() / walk_sim(complete_walk(n), p).network.mean();
    EXPECT_GT(gap, 0.015) << "n " << n;
    EXPECT_LT(gap, 0.08) << "n " << n;
  }
}

// ---- Utility of private real summation (docs/math.md §4.1, 3.1). ----

TEST(WalkAccounting, SummationErrorMatchesTheory) {
  const WalkSimParams p = testing::accounted_walk_params(400, 800, 3, 0.5, 1e-5);
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
