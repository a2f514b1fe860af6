// The exact accountant on gossip schedules (docs/math.md §6.9, time-varying schedules): hand calculations
// (the ring of §6.9 as a constant schedule, a two-round schedule on a path of 4 nodes, three randomized
// ticks), a constant schedule against the fixed-W Krylov engine, an independent dense computation (the
// explicit rows of W_{0:t}, their row space from LAPACK's SVD), invariants (the best single message <= exact
// <= the LDP level), and bit-identical results over sources, threads and observer batches.
#include <gtest/gtest.h>
#include <lapacke.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "support/gossip_schedules.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using testing::constant_schedule;
using testing::Dense;
using testing::randomized;
using testing::synchronous;

constexpr auto kInput = ObserverKnowledge::input;
constexpr auto kNoise = ObserverKnowledge::input_and_noise;

GossipLossParams exact(int t_start, ObserverKnowledge knows) {
  GossipLossParams p;  // the default accounting is exact
  p.observer_knows = knows;
  p.t_start = t_start;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

double at(const std::vector<double>& f, node_t n, node_t u, node_t v) {
  return f[static_cast<std::size_t>(u) * n + v];
}

/// T copies of the round of g stored one by one (constant = false): the explicit-rows path.
GossipSchedule repeated_schedule(const Graph& g, int steps) {
  GossipSchedule s = constant_schedule(g, steps);
  s.constant = false;
  s.rounds.assign(static_cast<std::size_t>(steps), s.rounds.front());
  return s;
}

/// The rows v receives (docs/math.md §6.1, §6.3), from dense products W_{0:t}, then e_v when it knows its
/// noise.
std::vector<std::vector<double>> view_rows(const GossipSchedule& s, const GossipLossParams& p, node_t v) {
  const std::size_t n = s.n;
  Dense product = testing::dense_identity(n);
  std::vector<std::vector<double>> rows;
  auto row = [&](node_t w) {
    return std::vector<double>(product.begin() + w * n, product.begin() + (w + 1) * n);
  };
  for (int t = 0; t < s.steps; ++t) {
    Dense w_t;
    if (s.randomized()) {
      const auto [a, b] = s.activations[t];
      if (t >= p.t_start && a != b && (a == v || b == v)) rows.push_back(row(a == v ? b : a));
      w_t = testing::dense_identity(n);
      if (a != b) w_t[a * n + a] = w_t[b * n + b] = w_t[a * n + b] = w_t[b * n + a] = 0.5;
    } else {
      if (t >= p.t_start)
        for (node_t w : s.round(t).graph.neighbors(v)) rows.push_back(row(w));
      w_t = to_dense(s.round(t).w);
    }
    product = testing::dense_product(w_t, product, n);
  }
  if (p.observer_knows == kNoise) {
    rows.emplace_back(n, 0.0);
    rows.back()[v] = 1.0;
  }
  return rows;
}

/// ||P e_u||^2 for every u from the right singular vectors of A (LAPACK dgesvd): the rows of V^T whose
/// singular value is above 1e-11 of the largest span A's row space. The case must be well conditioned (every
/// singular value below 1e-11 or above 1e-6 of the largest).
std::vector<double> svd_projections(const std::vector<std::vector<double>>& a, std::size_t n) {
  std::vector<double> out(n, 0.0);
  if (a.empty()) return out;
  const lapack_int m = static_cast<lapack_int>(a.size()), cols = static_cast<lapack_int>(n);
  std::vector<double> matrix(a.size() * n), sigma(std::min(a.size(), n)), vt(n * n), superb(n);
  for (std::size_t i = 0; i < a.size(); ++i) std::copy(a[i].begin(), a[i].end(), matrix.begin() + i * n);
  const lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', m, cols, matrix.data(), cols,
                                         sigma.data(), nullptr, 1, vt.data(), cols, superb.data());
  EXPECT_EQ(info, 0);
  const double top = sigma.front();
  for (std::size_t k = 0; k < sigma.size(); ++k) {
    EXPECT_TRUE(sigma[k] < 1e-11 * top || sigma[k] > 1e-6 * top)
        << "ill-conditioned case: " << sigma[k] / top;
    if (sigma[k] < 1e-11 * top) continue;
    for (std::size_t u = 0; u < n; ++u) out[u] += vt[k * n + u] * vt[k * n + u];
  }
  return out;
}

/// The largest ldp (row_u)^2 / ||row||^2 over the messages of `rows` (e_v excluded): one message alone.
double best_single_message(const std::vector<std::vector<double>>& rows, std::size_t messages, node_t u) {
  double best = 0;
  for (std::size_t i = 0; i < messages; ++i) {
    double norm = 0;
    for (double x : rows[i]) norm += x * x;
    best = std::max(best, rows[i][u] * rows[i][u] / norm);
  }
  return best;
}

/// The exact losses against the dense reference, and the invariants, for every pair.
void expect_matches_reference(const GossipSchedule& s, const GossipLossParams& p) {
  const auto f = gossip_loss_sequence_matrix(s, p);
  const double ldp = gossip_ldp_loss(p);
  for (node_t v = 0; v < s.n; ++v) {
    const auto rows = view_rows(s, p, v);
    const auto reference = svd_projections(rows, s.n);
    const std::size_t messages = rows.size() - (p.observer_knows == kNoise ? 1 : 0);
    for (node_t u = 0; u < s.n; ++u) {
      if (u == v) continue;
      ASSERT_NEAR(at(f, s.n, u, v), ldp * reference[u], 1e-10) << "u = " << u << ", v = " << v;
      EXPECT_LE(at(f, s.n, u, v), ldp);
      EXPECT_GE(at(f, s.n, u, v), ldp * best_single_message(rows, messages, u) * (1 - 1e-12));
    }
  }
}

TEST(GossipViewSequence, RingAsAConstantScheduleByHand) {
  // docs/math.md §6.9: ring n = 8, W = 1/3, two rounds from t = 0, v = 0, u = 2: 2/3 (input), 1 (with its
  // noise).
  for (const GossipSchedule& s : {constant_schedule(ring_graph(8), 2), repeated_schedule(ring_graph(8), 2)}) {
    EXPECT_NEAR(at(gossip_loss_sequence_matrix(s, exact(0, kInput)), 8, 2, 0), 2.0 / 3.0, 1e-14);
    EXPECT_NEAR(at(gossip_loss_sequence_matrix(s, exact(0, kNoise)), 8, 2, 0), 1.0, 1e-14);
  }
  const GossipSchedule s = repeated_schedule(ring_graph(8), 2);
  // One source: only the observers whose messages can hold x_2 (within two hops: 0, 1, 3, 4) get a basis.
  GossipLossParams one = exact(0, kInput);
  one.source = 2;
  GossipLossRun run;
  const auto row = gossip_loss_sequence_matrix(s, one, &run);
  EXPECT_EQ(run.view_observers, 4);
  EXPECT_NEAR(row[0], 2.0 / 3.0, 1e-14);
  for (node_t v : {5, 6, 7}) EXPECT_EQ(row[v], 0.0);
}

TEST(GossipViewSequence, TwoRoundsOnFourNodesByHand) {
  // Round 0 on the path 0-1-2-3 (Metropolis: 1/3 on every edge, diagonal 2/3, 1/3, 1/3, 2/3), round 1 on the
  // edge {1, 2}. Observer 1 receives e0 and e2 at t = 0, then row 2 of W_0 = (0, 1, 1, 1)/3 at t = 1.
  // Removing its e2 part leaves (e1 + e3)/sqrt2, so ||P e3||^2 = 1/2; knowing its noise, v also has e1, and
  // e3 is in the view: 1. Theorem 6.1 charges (1/3)^2 / (3/9) = 1/3 for u = 3. By the reflection 0 <-> 3, 1
  // <-> 2 of round 0 (round 1 is fixed by it), observer 2 and u = 0 give the same values. alpha = 2, sigma =
  // Delta = 1.
  const GossipSchedule s =
      synchronous({path_graph(4), graph_from_edges(4, std::vector<std::pair<node_t, node_t>>{{1, 2}})});
  const auto input = gossip_loss_sequence_matrix(s, exact(0, kInput));
  const auto noise = gossip_loss_sequence_matrix(s, exact(0, kNoise));
  EXPECT_NEAR(at(input, 4, 3, 1), 0.5, 1e-14);
  EXPECT_NEAR(at(noise, 4, 3, 1), 1.0, 1e-14);
  EXPECT_NEAR(at(input, 4, 0, 2), 0.5, 1e-14);
  EXPECT_NEAR(at(input, 4, 0, 1), 1.0, 1e-14);  // its own message at t = 0
  EXPECT_NEAR(at(input, 4, 2, 1), 1.0, 1e-14);
  GossipLossParams theorem = exact(0, kInput);
  theorem.accounting = GossipAccounting::theorem;
  EXPECT_NEAR(at(gossip_loss_sequence_matrix(s, theorem), 4, 3, 1), 1.0 / 3.0, 1e-14);
  // Observer 0 hears only node 1 at t = 0 (e1) and nobody at t = 1: u = 2, 3 are not in its view.
  EXPECT_EQ(at(input, 4, 2, 0), 0.0);
  EXPECT_EQ(at(input, 4, 3, 0), 0.0);
  // From t = 1 only round 1's messages count: observer 1 gets (0, 1, 1, 1)/3 alone, 1/3 for each of 2, 3.
  EXPECT_NEAR(at(gossip_loss_sequence_matrix(s, exact(1, kInput)), 4, 3, 1), 1.0 / 3.0, 1e-14);
}

TEST(GossipViewSequence, RandomizedTicksByHand) {
  // n = 3, ticks {0,1}, {1,2}, {0,2} (docs/math.md §6.3: messages carry the values before the averaging).
  // Observer 0: e1 at tick 0, then row 2 of W_{0:2} = (1, 1, 2)/4 at tick 2; without e1 that is (1, 0,
  // 2)/sqrt5, so u = 2 gets 4/5 (input) and 1 with e0 in the view. Observer 2: row 1 of W_{0:1} = (1, 1, 0)/2
  // at tick 1, row 0 of W_{0:2} (unchanged since tick 0) at tick 2: one direction, 1/2 for u = 0 and u = 1
  // either way.
  const GossipSchedule s = randomized(3, {{0, 1}, {1, 2}, {0, 2}});
  const auto input = gossip_loss_sequence_matrix(s, exact(0, kInput));
  const auto noise = gossip_loss_sequence_matrix(s, exact(0, kNoise));
  EXPECT_NEAR(at(input, 3, 2, 0), 0.8, 1e-14);
  EXPECT_NEAR(at(noise, 3, 2, 0), 1.0, 1e-14);
  EXPECT_NEAR(at(input, 3, 1, 0), 1.0, 1e-14);
  for (const auto& f : {input, noise}) {
    EXPECT_NEAR(at(f, 3, 0, 2), 0.5, 1e-14);
    EXPECT_NEAR(at(f, 3, 1, 2), 0.5, 1e-14);
  }
}

TEST(GossipViewSequence, ConstantScheduleEqualsTheFixedAccountant) {
  // A constant schedule of T + t_start rounds is gossip_loss with T steps from t_start (docs/math.md §6.1):
  // stored as constant it goes to the Krylov engine (the same bits); the same rounds stored one by one go
  // through the explicit rows of W^t, equal to rounding.
  for (std::uint64_t seed : {1u, 2u}) {
    const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(30, 0.15, seed));
    for (int t_start : {0, 1})
      for (auto knows : {kInput, kNoise}) {
        GossipLossParams p = exact(t_start, knows);
        p.alpha = 3, p.sigma = 1.5, p.sensitivity = 0.8;
        p.steps = 4;
        const auto fixed = gossip_loss_matrix(g, w, p);
        EXPECT_EQ(gossip_loss_sequence_matrix(constant_schedule(g, 4 + t_start), p), fixed);
        GossipLossRun run;
        const auto sequence = gossip_loss_sequence_matrix(repeated_schedule(g, 4 + t_start), p, &run);
        EXPECT_EQ(run.propagation, "explicit-rows");
        ASSERT_EQ(fixed.size(), sequence.size());
        for (std::size_t i = 0; i < fixed.size(); ++i) ASSERT_NEAR(fixed[i], sequence[i], 1e-10) << i;
      }
  }
}

TEST(GossipViewSequence, MatchesAnIndependentDenseComputation) {
  // Different graphs per round, two with isolated nodes (W_uu = 1), and randomized ticks (some idle).
  const GossipSchedule varying =
      synchronous({erdos_renyi_graph(12, 0.2, 1), erdos_renyi_graph(12, 0.15, 2, false),
                   erdos_renyi_graph(12, 0.3, 3), erdos_renyi_graph(12, 0.1, 4, false)});
  std::vector<std::pair<node_t, node_t>> ticks;
  for (int t = 0; t < 30; ++t) ticks.push_back({node_t((7 * t + 3) % 10), node_t((3 * t * t + 1) % 10)});
  const GossipSchedule random_ticks = randomized(10, ticks);
  for (const GossipSchedule* s : {&varying, &random_ticks})
    for (int t_start : {0, 1})
      for (auto knows : {kInput, kNoise}) {
        GossipLossParams p = exact(t_start, knows);
        p.alpha = 4, p.sigma = 2, p.sensitivity = 0.5;
        expect_matches_reference(*s, p);
      }
}

TEST(GossipViewSequence, SourcesThreadsAndBatchesChangeNoBit) {
  const GossipSchedule s = synchronous(
      {erdos_renyi_graph(40, 0.1, 5), erdos_renyi_graph(40, 0.12, 6, false), erdos_renyi_graph(40, 0.1, 7)});
  GossipLossParams p = exact(0, kNoise);
  GossipLossRun run;
  const auto all = gossip_loss_sequence_matrix(s, p, &run);
  EXPECT_EQ(run.accounting, "exact");
  EXPECT_EQ(run.passes, 1);  // one batch of observers
  EXPECT_EQ(run.view_observers, 40);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto serial = gossip_loss_sequence_matrix(s, p);
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(all.data(), serial.data(), all.size() * sizeof(double)), 0);
  // Room for the products, the projections and a few bases only: several passes over the schedule.
  p.memory_limit = 8 * (2 * 40 * 40 + 40 + 40 * 40 + 40 * 40) + 16 * 40 * 40;
  const auto batched = gossip_loss_sequence_matrix(s, p, &run);
  EXPECT_GT(run.passes, 1);
  EXPECT_EQ(std::memcmp(all.data(), batched.data(), all.size() * sizeof(double)), 0);
  p.memory_limit = 1000;
  EXPECT_THROW(gossip_loss_sequence_matrix(s, p), InsufficientMemory);
  p.memory_limit = 0;
  for (node_t u : {0, 17, 39}) {
    p.source = u;
    const auto row = gossip_loss_sequence_matrix(s, p);
    ASSERT_EQ(row.size(), std::size_t(40));
    EXPECT_EQ(std::memcmp(row.data(), all.data() + std::size_t(u) * 40, 40 * sizeof(double)), 0) << u;
  }
}

}  // namespace
}  // namespace netdp
