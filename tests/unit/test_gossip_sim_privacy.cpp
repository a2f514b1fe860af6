// Privacy over the runs of the gossip simulator (docs/math.md §6.1, 6.4) and the sequence protocol: per-run
// losses against independent accountant calls, aggregates against direct computations, the Thm 6.6
// columns against er_gossip_loss_bound, determinism across threads, memory checks and bad input.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/gossip_sim_privacy.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using testing::ScratchDir;

GossipSimParams sim_params(GossipProtocol protocol, int steps, std::int64_t runs) {
  GossipSimParams p = testing::cpu_gossip_params(protocol, steps, runs);
  p.sigma = 2.0;
  p.seed = 5;
  return p;
}

/// Theorem 6.1's accounting, pinned: these tests check the aggregation of (M1) over runs (the exact
/// default: the GossipSimPrivacyExact tests below).
GossipPrivacyParams theorem_params() {
  GossipPrivacyParams q;
  q.accounting = GossipAccounting::theorem;
  return q;
}

GossipLossParams loss_params(const GossipPrivacyParams& q, double sigma) {
  return {.accounting = q.accounting,
          .observer_knows = q.observer_knows,
          .alpha = q.alpha,
          .sigma = sigma,
          .sensitivity = q.sensitivity,
          .t_start = q.t_start,
          .cap_ldp = q.cap_ldp,
          .source = q.source,
          .device = {DeviceKind::cpu, 0}};
}

/// Every computed run's rows, as whole matrices (rows x n), collected through the visitor.
struct RunCollector {
  node_t n = 0, rows = 0, first = 0;
  std::map<std::int64_t, std::vector<double>> runs;
  GossipPrivacyVisitor visitor() {
    return [this](std::int64_t run, node_t first_source, node_t count, std::span<const double> values) {
      auto& m = runs[run];
      m.resize(static_cast<std::size_t>(rows) * n);
      std::copy(values.begin(), values.end(), m.begin() + static_cast<std::size_t>(first_source - first) * n);
      (void)count;
    };
  }
};

void expect_near_all(const std::vector<double>& a, const std::vector<double>& b, double tol,
                     const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], tol * std::max(1.0, std::abs(b[i]))) << what << " entry " << i;
}

/// NumPy's default quantile, written out: position q (m - 1), linear between its neighbours.
double numpy_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = q * double(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(h);
  if (lo + 1 >= v.size()) return v.back();
  return v[lo] + (h - double(lo)) * (v[lo + 1] - v[lo]);
}

TEST(GossipSimPrivacy, SyncEqualsTheFixedAccountantAndRunsAreIdentical) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(30, 0.15, 4));
  for (int t_start : {0, 1})
    for (bool cap : {true, false}) {
      auto p = sim_params(GossipProtocol::sync, 7, 4);
      GossipPrivacyParams q = theorem_params();
      q.alpha = 3;
      q.sensitivity = 0.7;
      q.t_start = t_start;
      q.cap_ldp = cap;
      q.quantiles = {0.5};
      const auto r = gossip_sim_privacy(g, w, p, q);
      // The schedule has T = 7 rounds: messages t = t_start .. 6, i.e. gossip_loss with 7 - t_start steps.
      GossipLossParams lp = loss_params(q, p.sigma);
      lp.steps = 7 - t_start;
      const auto fixed = gossip_loss_matrix(g, w, lp);
      expect_near_all(r.mean, fixed, 1e-12, "mean");
      EXPECT_EQ(r.mean, r.min);
      EXPECT_EQ(r.mean, r.max);
      EXPECT_EQ(r.quantiles.at(0), r.mean);
      EXPECT_TRUE(r.runs_identical);
      EXPECT_EQ(r.runs, 4);
      EXPECT_EQ(r.per_run.size(), 1u);
      EXPECT_TRUE(r.by_union_distance.empty());
      EXPECT_FALSE(r.er.has_value());
      // The runs really are identical: two runs' schedules give the same losses.
      const auto run0 = gossip_loss_sequence_matrix(sample_gossip_schedule(g, p, 0), lp);
      const auto run3 = gossip_loss_sequence_matrix(sample_gossip_schedule(g, p, 3), lp);
      EXPECT_EQ(run0, run3);
    }
}

TEST(GossipSimPrivacy, ErPerRoundRunsAggregatesAndBoundColumns) {
  const node_t n = 36;
  Graph g = erdos_renyi_graph(n, 0.1, 1);  // only n matters for er-per-round; its edges give base distances
  auto p = sim_params(GossipProtocol::er_per_round, 6, 5);
  p.edge_probability = 2.0 * std::log(double(n)) / n;
  GossipPrivacyParams q = theorem_params();
  q.cap_ldp = false;
  q.quantiles = {0.0, 0.5, 0.9, 1.0};
  RunCollector runs{n, n, 0, {}};
  const auto r = gossip_sim_privacy(g, CsrMatrix{}, p, q, {}, runs.visitor());
  ASSERT_EQ(runs.runs.size(), 5u);
  EXPECT_FALSE(r.runs_identical);

  const GossipLossParams lp = loss_params(q, p.sigma);
  const std::size_t pairs = std::size_t(n) * n;
  std::vector<double> sum(pairs, 0.0), low(pairs, 1e300), high(pairs, -1e300), bound_sum(pairs, 0.0);
  std::vector<std::vector<double>> values(pairs);
  LossAggregate near_loss, far_loss;
  std::int64_t exceeded = 0, union_pairs = 0;
  const double ldp = gossip_ldp_loss(lp);
  for (std::int64_t run = 0; run < 5; ++run) {
    const GossipSchedule s = sample_gossip_schedule(g, p, run);
    const auto expected = gossip_loss_sequence_matrix(s, lp);  // an independent call on the run's schedule
    expect_near_all(runs.runs.at(run), expected, 1e-12, "run " + std::to_string(run));
    // Union neighbours and mean degrees, counted here from the rounds' graphs.
    std::vector<char> adjacent(pairs, 0);
    std::vector<std::int64_t> talks(n, 0);
    for (int t = 0; t < s.steps; ++t)
      for (node_t u = 0; u < n; ++u)
        for (node_t v : s.round(t).graph.neighbors(u)) {
          adjacent[std::size_t(u) * n + v] = 1;
          ++talks[v];
        }
    LossAggregate run_pairs;
    for (node_t u = 0; u < n; ++u)
      for (node_t v = 0; v < n; ++v) {
        const std::size_t i = std::size_t(u) * n + v;
        const double f = expected[i];
        sum[i] += f;
        low[i] = std::min(low[i], f);
        high[i] = std::max(high[i], f);
        values[i].push_back(f);
        if (u == v) continue;
        run_pairs.add(f);
        const node_t degree = static_cast<node_t>((talks[v] + 5) / 6);  // ceil(T_v / T)
        const double b =
            er_gossip_loss_bound(n, p.edge_probability, 6, degree, 2.0, 2.0, 1.0, adjacent[i] != 0).value;
        bound_sum[i] += b;
        (adjacent[i] ? near_loss : far_loss).add(f);
        if (adjacent[i]) ++union_pairs;
        if (f > b) ++exceeded;
      }
    EXPECT_NEAR(r.per_run[run].mean_loss, run_pairs.mean(), 1e-12);
    EXPECT_EQ(r.per_run[run].max_loss, run_pairs.max);
    EXPECT_NEAR(r.per_run[run].mean_eps_bar, run_pairs.total() / (double(n) * n), 1e-12);
    double bound = 0;
    for (node_t v = 0; v < n; ++v) bound += ldp * double(talks[v]) / n;
    EXPECT_NEAR(r.per_run[run].eps_bar_bound, bound / n, 1e-12);
  }
  for (std::size_t i = 0; i < pairs; ++i) {
    ASSERT_NEAR(r.mean[i], sum[i] / 5, 1e-12 * std::max(1.0, sum[i]));
    ASSERT_EQ(r.min[i], low[i]);
    ASSERT_EQ(r.max[i], high[i]);
    ASSERT_NEAR(r.er_bound_mean[i], bound_sum[i] / 5, 1e-12 * std::max(1.0, bound_sum[i]));
    for (std::size_t k = 0; k < q.quantiles.size(); ++k)
      ASSERT_NEAR(r.quantiles[k][i], numpy_quantile(values[i], q.quantiles[k]), 1e-15) << i;
  }
  EXPECT_EQ(r.quantiles[0], r.min);  // level 0 and 1 are the extremes
  EXPECT_EQ(r.quantiles[3], r.max);
  ASSERT_TRUE(r.er.has_value());
  EXPECT_EQ(r.er->messages, 6);
  EXPECT_EQ(r.er->neighbour_loss.count, near_loss.count);
  EXPECT_NEAR(r.er->neighbour_loss.mean(), near_loss.mean(), 1e-12);
  EXPECT_NEAR(r.er->other_loss.mean(), far_loss.mean(), 1e-12);
  EXPECT_EQ(r.er->exceeded, exceeded);
  EXPECT_NEAR(r.er->neighbour_bound.mean(), ldp, 1e-15);
  // Union distance 1 = the pairs that talked in some round; their mean is the neighbour mean.
  ASSERT_GE(r.by_union_distance.size(), 3u);
  EXPECT_EQ(r.by_union_distance[2].count, union_pairs);
  EXPECT_NEAR(r.by_union_distance[2].mean(), near_loss.mean(), 1e-12);
  // Base-graph distances, from BFS here: bucket means are means of the per-pair means.
  std::map<node_t, LossAggregate> by_base;
  for (node_t u = 0; u < n; ++u) {
    const auto d = bfs_distances(g, u);
    for (node_t v = 0; v < n; ++v)
      if (u != v) by_base[d[v]].add(sum[std::size_t(u) * n + v] / 5);
  }
  for (const auto& [d, a] : by_base) {
    ASSERT_LT(std::size_t(d + 1), r.by_base_distance.size());
    EXPECT_EQ(r.by_base_distance[d + 1].count, a.count) << d;
    EXPECT_NEAR(r.by_base_distance[d + 1].mean(), a.mean(), 1e-12) << d;
  }
  LossAggregate all = near_loss;
  all.merge(far_loss);
  EXPECT_NEAR(r.overall.mean(), all.mean(), 1e-12);
  EXPECT_EQ(r.overall.max, all.max);
}

TEST(GossipSimPrivacy, SourceRowIsTheRowOfTheFullMatrix) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(24, 0.2, 3));
  auto p = sim_params(GossipProtocol::dropout, 5, 3);
  p.dropout = 0.3;
  GossipPrivacyParams q = theorem_params();
  const auto all = gossip_sim_privacy(g, w, p, q);
  q.source = 7;
  const auto one = gossip_sim_privacy(g, w, p, q);
  ASSERT_EQ(one.rows, 1);
  ASSERT_EQ(one.mean.size(), 24u);
  for (node_t v = 0; v < 24; ++v) {
    EXPECT_EQ(one.mean[v], all.mean[7 * 24 + v]);
    EXPECT_EQ(one.max[v], all.max[7 * 24 + v]);
  }
  EXPECT_TRUE(std::isnan(one.per_run[0].mean_eps_bar));  // needs every source
}

TEST(GossipSimPrivacy, SameResultsOnOneAndTwoThreads) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(30, 0.15, 2));
  const int threads = omp_get_max_threads();
  for (auto protocol : {GossipProtocol::er_per_round, GossipProtocol::randomized, GossipProtocol::dropout}) {
    auto p = sim_params(protocol, protocol == GossipProtocol::randomized ? 200 : 6, 4);
    p.edge_probability = 0.25;
    p.dropout = 0.2;
    GossipPrivacyParams q = theorem_params();
    q.quantiles = {0.25, 0.75};
    omp_set_num_threads(1);
    const auto one = gossip_sim_privacy(g, w, p, q);
    omp_set_num_threads(2);
    const auto two = gossip_sim_privacy(g, w, p, q);
    const std::string name = to_string(protocol);
    EXPECT_EQ(one.mean, two.mean) << name;
    EXPECT_EQ(one.min, two.min) << name;
    EXPECT_EQ(one.max, two.max) << name;
    EXPECT_EQ(one.quantiles, two.quantiles) << name;
    EXPECT_EQ(one.er_bound_mean, two.er_bound_mean) << name;
    ASSERT_EQ(one.per_run.size(), two.per_run.size());
    for (std::size_t i = 0; i < one.per_run.size(); ++i) {
      EXPECT_EQ(one.per_run[i].mean_loss, two.per_run[i].mean_loss) << name;
      EXPECT_EQ(one.per_run[i].mean_eps_bar, two.per_run[i].mean_eps_bar) << name;
    }
    ASSERT_EQ(one.by_union_distance.size(), two.by_union_distance.size());
    for (std::size_t b = 0; b < one.by_union_distance.size(); ++b)
      EXPECT_EQ(one.by_union_distance[b].mean(), two.by_union_distance[b].mean()) << name;
  }
  omp_set_num_threads(threads);
}

// ---- the sequence protocol ----

/// `i j w` lines (0-based, every stored entry), or a general Matrix Market file.
std::string matrix_text(const CsrMatrix& w, bool mtx) {
  std::string text = mtx ? "%%MatrixMarket matrix coordinate real general\n" + std::to_string(w.n) + " " +
                               std::to_string(w.n) + " " + std::to_string(w.nnz()) + "\n"
                         : "# W\n";
  char line[96];
  for (node_t i = 0; i < w.n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      std::snprintf(line, sizeof line, "%d %d %.17g\n", i + (mtx ? 1 : 0), w.columns[k] + (mtx ? 1 : 0),
                    w.values[k]);
      text += line;
    }
  return text;
}

struct TwoMatrices {
  Graph g0, g1;
  CsrMatrix w0, w1;
  std::string list;
};

TwoMatrices write_two_matrices(const ScratchDir& dir) {
  TwoMatrices m;
  const std::pair<node_t, node_t> e0[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {0, 3}};
  const std::pair<node_t, node_t> e1[] = {{0, 2}, {2, 4}, {1, 3}, {3, 5}, {1, 5}};  // node 0, 4 degree 1
  m.g0 = graph_from_edges(6, e0);
  m.g1 = graph_from_edges(6, e1);
  m.w0 = gossip_matrix(m.g0, Weighting::metropolis);
  m.w1 = gossip_matrix(m.g1, Weighting::max_degree);
  dir.write("w0.txt", matrix_text(m.w0, false));
  dir.write("w1.mtx", matrix_text(m.w1, true));
  m.list = dir.write("seq.txt", "# a cycle of two\nw0.txt\n\n  w1.mtx  # second\n");
  return m;
}

TEST(GossipSimSequence, ScheduleAndPrivacyEqualAnExplicitCycle) {
  ScratchDir dir;
  const TwoMatrices m = write_two_matrices(dir);
  Graph base = graph_from_edges(6, std::vector<std::pair<node_t, node_t>>{{0, 1}});
  auto p = sim_params(GossipProtocol::sequence, 5, 3);
  p.sequence = std::make_shared<const std::vector<GossipRound>>(load_gossip_sequence(m.list, 6));
  ASSERT_EQ(p.sequence->size(), 2u);

  GossipSchedule explicit_schedule;
  explicit_schedule.n = 6;
  explicit_schedule.steps = 5;
  for (int t = 0; t < 5; ++t)
    explicit_schedule.rounds.push_back(t % 2 == 0 ? GossipRound{m.w0, m.g0} : GossipRound{m.w1, m.g1});
  const GossipSchedule sampled = sample_gossip_schedule(base, p, 2);
  ASSERT_EQ(sampled.rounds.size(), 5u);
  for (int t = 0; t < 5; ++t) {
    EXPECT_EQ(to_dense(sampled.rounds[t].w), to_dense(explicit_schedule.rounds[t].w)) << t;
    EXPECT_EQ(sampled.rounds[t].graph.adjacency, explicit_schedule.rounds[t].graph.adjacency) << t;
  }

  for (int t_start : {0, 1}) {
    GossipPrivacyParams q = theorem_params();
    q.t_start = t_start;
    q.cap_ldp = false;
    const auto r = gossip_sim_privacy(base, CsrMatrix{}, p, q);
    const auto expected = gossip_loss_sequence_matrix(explicit_schedule, loss_params(q, p.sigma));
    expect_near_all(r.mean, expected, 1e-12, "sequence");
    EXPECT_EQ(r.mean, r.max);
    EXPECT_TRUE(r.runs_identical);
    ASSERT_GE(r.by_union_distance.size(), 2u);  // union of the counted rounds: g0 + g1 (t_start 0, 1)
    EXPECT_EQ(r.by_union_distance[2].count, 2 * (6 + 5));
  }
}

TEST(GossipSimSequence, SimulationAppliesTheMatricesCyclically) {
  ScratchDir dir;
  const TwoMatrices m = write_two_matrices(dir);
  Graph base = graph_from_edges(6, std::vector<std::pair<node_t, node_t>>{});
  auto p = sim_params(GossipProtocol::sequence, 4, 1);
  p.sigma = 0;
  p.init.kind = InitKind::normal;
  p.sequence = std::make_shared<const std::vector<GossipRound>>(load_gossip_sequence(m.list, 6));
  const auto x = initial_values(6, p);
  const auto states = gossip_sim_trajectory(base, CsrMatrix{}, x, p, 0);
  ASSERT_EQ(states.size(), 5u);
  std::vector<double> expected = x;
  for (int t = 1; t <= 4; ++t) {
    const auto w = to_dense(t % 2 == 1 ? m.w0 : m.w1);  // round t - 1 uses W_{(t-1) mod 2}
    std::vector<double> next(6, 0.0);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) next[i] += w[i * 6 + j] * expected[j];
    expected = next;
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(states[t][i], expected[i], 1e-14) << t;
  }
}

TEST(GossipSimSequence, BadFilesNameTheListLineAndMatrix) {
  ScratchDir dir;
  write_two_matrices(dir);  // w0.txt
  dir.write("asym.txt", "0 0 0.5\n0 1 0.5\n1 0 0.25\n1 1 0.75\n");
  dir.write("rows.txt", "0 0 0.5\n0 1 0.25\n1 0 0.25\n1 1 0.5\n");
  dir.write("small.txt", "0 0 1\n1 1 1\n");
  dir.write("bad.txt", "0 0 1\n1 x 1\n");
  struct Case {
    std::string list;
    node_t n;
    std::string line, file, message;
  };
  const Case cases[] = {
      {"asym.txt\n", 2, "line 1", "asym.txt", "not symmetric"},
      {"# c\nrows.txt\n", 2, "line 2", "rows.txt", "sums to"},
      {"w0.txt\n# c\nsmall.txt\n", 6, "line 3", "small.txt", "2 x 2 but the graph has 6 nodes"},
      {"w0.txt\nmissing.txt\n", 6, "line 2", "missing.txt", "cannot open"},
      {"bad.txt\n", 2, "line 1", "bad.txt", "bad.txt:2"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string list = dir.write("list" + std::to_string(i++) + ".txt", c.list);
    try {
      load_gossip_sequence(list, c.n);
      ADD_FAILURE() << c.file << ": no error";
    } catch (const InvalidInput& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(list), std::string::npos) << what;
      EXPECT_NE(what.find(c.line + " ("), std::string::npos) << what;
      EXPECT_NE(what.find(c.file), std::string::npos) << what;
      EXPECT_NE(what.find(c.message), std::string::npos) << what;
    }
  }
  EXPECT_THROW(load_gossip_sequence(dir.write("empty.txt", "# nothing\n\n"), 6), InvalidInput);
  EXPECT_THROW(load_gossip_sequence((dir / "nope.txt").string(), 6), InvalidInput);
  auto p = sim_params(GossipProtocol::sequence, 3, 1);
  EXPECT_THROW(validate(p, 6), InvalidInput);  // no matrices
}

// ---- memory and input checks ----

TEST(GossipSimPrivacy, MemoryIsCheckedBeforeAllocating) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(200, 0.05, 1));
  auto p = sim_params(GossipProtocol::dropout, 3, 1000);
  p.dropout = 0.1;
  GossipPrivacyParams q = theorem_params();
  const std::int64_t base = gossip_sim_privacy_memory(g, w, p, q);
  EXPECT_GT(base, 8 * 2 * 200 * 200);  // at least the accountant's two n x n products
  q.quantiles = {0.5};
  const std::int64_t kept = gossip_sim_privacy_memory(g, w, p, q);
  EXPECT_GE(kept - base, 8LL * 1000 * 200 * 200);  // R x n x n kept values
  q.memory_limit = base + 8LL * 200 * 200 + 1024;  // enough without the kept values
  try {
    gossip_sim_privacy(g, w, p, q);
    ADD_FAILURE() << "no error";
  } catch (const InsufficientMemory& e) {
    EXPECT_NE(std::string(e.what()).find("quantiles keeps every run's losses"), std::string::npos)
        << e.what();
  }
  q.quantiles.clear();
  q.memory_limit = 1 << 20;
  EXPECT_THROW(gossip_sim_privacy(g, w, p, q), InsufficientMemory);
}

TEST(GossipSimPrivacy, BadInput) {
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(10, 0.4, 1));
  // One bad value at a time, every other one valid.
  auto expect_bad = [&](auto change) {
    GossipSimParams p = sim_params(GossipProtocol::sync, 3, 2);
    GossipPrivacyParams q = theorem_params();
    change(p, q);
    EXPECT_THROW(gossip_sim_privacy(g, w, p, q), InvalidInput);
  };
  expect_bad([](auto& p, auto&) { p.sigma = 0; });
  expect_bad([](auto&, auto& q) { q.alpha = 1; });
  expect_bad([](auto&, auto& q) { q.sensitivity = 0; });
  expect_bad([](auto&, auto& q) { q.t_start = 2; });
  expect_bad([](auto&, auto& q) { q.source = 10; });
  expect_bad([](auto&, auto& q) { q.quantiles = {1.5}; });
}

TEST(GossipSimPrivacy, HelpersByHand) {
  const std::vector<double> v{1, 2, 4, 8};
  EXPECT_EQ(sorted_quantile(v, 0), 1);
  EXPECT_EQ(sorted_quantile(v, 1), 8);
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.5), 3);            // position 1.5
  EXPECT_DOUBLE_EQ(sorted_quantile(v, 0.9), 4 + 0.7 * 4);  // position 2.7
  GossipSchedule s;
  s.n = 4;
  s.steps = 4;
  s.activations = {{0, 1}, {2, 2}, {1, 3}, {0, 1}};
  const Graph all = schedule_union_graph(s, 0), later = schedule_union_graph(s, 3);
  EXPECT_EQ(all.num_edges(), 2);
  EXPECT_EQ(later.num_edges(), 1);
  EXPECT_EQ(later.neighbors(0).size(), 1u);
}

TEST(GossipSimPrivacyExact, SyncEqualsTheFixedExactAccountant) {
  // The default accounting is exact (docs/math.md §6.9): on sync the run's constant schedule gives the
  // Krylov engine's values (explicit rows against Krylov blocks, to rounding), for both knowledge models.
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(30, 0.15, 4));
  for (int t_start : {0, 1})
    for (auto knows : {ObserverKnowledge::input, ObserverKnowledge::input_and_noise}) {
      auto p = sim_params(GossipProtocol::sync, 5, 2);
      GossipPrivacyParams q;
      q.alpha = 3;
      q.sensitivity = 0.7;
      q.t_start = t_start;
      q.observer_knows = knows;
      const auto r = gossip_sim_privacy(g, w, p, q);
      GossipLossParams lp = loss_params(q, p.sigma);
      EXPECT_EQ(lp.accounting, GossipAccounting::exact);
      lp.steps = 5 - t_start;
      expect_near_all(r.mean, gossip_loss_matrix(g, w, lp), 1e-10, "mean");
      EXPECT_EQ(r.view.accounting, "exact");
      EXPECT_EQ(r.view.view_observers, 30);
      EXPECT_GE(r.view.view_rank_min, 1);
    }
}

TEST(GossipSimPrivacyExact, EveryRunIsTheExactAccountantOnItsSchedule) {
  // er-per-round: each run's rows are gossip_loss_sequence's exact values on that run's schedule (bit for
  // bit), below the LDP level, and the mean over v stays below eq. 6.4's bound (sum_u ||P_v e_u||^2 is the
  // rank of v's view, at most the T_v messages plus e_v, and e_v's own entry is 1).
  const node_t n = 24;
  Graph g = erdos_renyi_graph(n, 0.1, 1);
  auto p = sim_params(GossipProtocol::er_per_round, 5, 3);
  p.edge_probability = 2.0 * std::log(double(n)) / n;
  GossipPrivacyParams q;
  RunCollector runs{n, n, 0, {}};
  const auto r = gossip_sim_privacy(g, CsrMatrix{}, p, q, {}, runs.visitor());
  const GossipLossParams lp = loss_params(q, p.sigma);
  const double ldp = gossip_ldp_loss(lp);
  for (std::int64_t run = 0; run < 3; ++run) {
    const auto expected = gossip_loss_sequence_matrix(sample_gossip_schedule(g, p, run), lp);
    EXPECT_EQ(runs.runs.at(run), expected) << run;
    for (double f : expected) EXPECT_LE(f, ldp);
    EXPECT_LE(r.per_run[run].mean_eps_bar, r.per_run[run].eps_bar_bound * (1 + 1e-12)) << run;
  }
  EXPECT_EQ(r.view.view_observers, 3 * n);
}

}  // namespace
}  // namespace netdp
