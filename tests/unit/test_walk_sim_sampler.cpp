// Walk samplers of the Monte Carlo engine: transition frequencies against W (chi-square at significance
// 0.001, fixed seeds), exact visit-count and cycle-length laws on the complete graph, stationary starts, the
// Lemire draw, and reproducibility over threads and batches.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/walk_sim_math.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

// Upper 0.001 quantile of chi-square(df) by Wilson-Hilferty (z = 3.0902); accurate to a few percent for df
// >= 3.
double chi_square_critical(double df) {
  const double z = 3.0902, a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

// Pearson statistic after pooling neighbouring bins (in order) until each pooled expectation is >= 5; the
// degrees of freedom are (pooled bins - 1 - constraints).
struct ChiSquare {
  double statistic = 0;
  int bins = 0;
};
ChiSquare pooled_chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  ChiSquare r;
  double o = 0, e = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    o += observed[i];
    e += expected[i];
    if (e >= 5 || i + 1 == observed.size()) {
      if (e > 0) {
        r.statistic += (o - e) * (o - e) / e;
        ++r.bins;
      }
      o = e = 0;
    }
  }
  return r;
}

double binomial_pmf(int trials, double p, int k) {
  if (k < 0 || k > trials) return 0;
  return std::exp(std::lgamma(trials + 1.0) - std::lgamma(k + 1.0) - std::lgamma(trials - k + 1.0) +
                  k * std::log(p) + (trials - k) * std::log1p(-p));
}

// Transition counts of R sampled walks.
std::vector<std::vector<double>> transitions(const WalkModel& m, const WalkSimParams& p) {
  std::vector<std::vector<double>> counts(m.n, std::vector<double>(m.n, 0.0));
  for (std::int64_t r = 0; r < p.runs; ++r) {
    const auto path = sample_walk(m, p, r);
    EXPECT_EQ(path.size(), std::size_t(p.steps));
    for (std::size_t t = 1; t < path.size(); ++t) counts[path[t - 1]][path[t]] += 1;
  }
  return counts;
}

// Sum over rows of the Pearson statistic of row i's counts against N_i W_i, df = sum_i (support_i - 1).
// Counts off the support of W fail the test.
void expect_rows_match(const std::vector<std::vector<double>>& counts, const std::vector<double>& w, int n) {
  double statistic = 0, df = 0;
  for (int i = 0; i < n; ++i) {
    double total = 0;
    int support = 0;
    for (int j = 0; j < n; ++j) total += counts[i][j];
    for (int j = 0; j < n; ++j) {
      const double wij = w[std::size_t(i) * n + j];
      if (wij == 0) {
        EXPECT_EQ(counts[i][j], 0) << "transition " << i << " -> " << j << " is not in W";
        continue;
      }
      ++support;
      const double e = total * wij;
      ASSERT_GE(e, 5) << "row " << i << " needs more samples";
      statistic += (counts[i][j] - e) * (counts[i][j] - e) / e;
    }
    df += support - 1;
  }
  EXPECT_LT(statistic, chi_square_critical(df)) << "df " << df;
  EXPECT_GT(statistic, 0);
}

TEST(WalkSampler, CompleteGraphIsUniformWithSelfTransitions) {
  const WalkModel m = complete_walk(7);
  const auto counts = transitions(m, testing::plain_walk_params(20000, 10, 11));
  expect_rows_match(counts, std::vector<double>(49, 1.0 / 7), 7);
}

TEST(WalkSampler, UniformLazyAndMetropolisMatchW) {
  const Graph g = florentine_families_graph();  // irregular: degrees 1 to 6
  std::vector<double> uniform(std::size_t(g.n) * g.n, 0.0);
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u)) uniform[std::size_t(u) * g.n + v] = 1.0 / g.degree(u);
  const WalkSimParams p = testing::plain_walk_params(10000, 30, 5);
  expect_rows_match(transitions(csr_walk(g, parse_walk_weights("uniform")), p), uniform, g.n);
  expect_rows_match(transitions(csr_walk(g, parse_walk_weights("lazy-uniform")), p),
                    to_dense(gossip_matrix(g, Weighting::lazy_uniform)), g.n);
  expect_rows_match(transitions(csr_walk(g, parse_walk_weights("metropolis")), p),
                    to_dense(gossip_matrix(g, Weighting::metropolis)), g.n);
}

TEST(WalkSampler, FileMatrixRowsAndStationaryLaw) {
  testing::ScratchDir dir;
  // A row-stochastic, not doubly stochastic W on the path 0-1-2.
  const std::string file =
      dir.write("w.txt", "0 0 0.5\n0 1 0.5\n1 0 0.2\n1 1 0.3\n1 2 0.5\n2 1 0.9\n2 2 0.1\n");
  const Graph g = path_graph(3);
  const WalkModel m = csr_walk(g, parse_walk_weights("file:" + file));
  EXPECT_EQ(m.kind, WalkKind::weighted);
  const std::vector<double> w = {0.5, 0.5, 0, 0.2, 0.3, 0.5, 0, 0.9, 0.1};
  expect_rows_match(transitions(m, testing::plain_walk_params(20000, 5, 2)), w, 3);
  // pi W = pi, solved by hand: pi_0 = 0.4 pi_1... pi = (2, 5, 25/9) normalised.
  const double z = 2 + 5 + 25.0 / 9;
  EXPECT_NEAR(m.pi(0), 2 / z, 1e-10);
  EXPECT_NEAR(m.pi(1), 5 / z, 1e-10);
  EXPECT_NEAR(m.pi(2), 25.0 / 9 / z, 1e-10);
}

TEST(WalkSampler, DirectedRingIsDeterministic) {
  const WalkModel m = make_walk_model("ring:n=5", "directed-ring");
  WalkSimParams p = testing::plain_walk_params(12, 1, 0);
  p.start = {StartKind::node, 3};
  EXPECT_EQ(sample_walk(m, p, 0), (std::vector<node_t>{3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4}));
}

TEST(WalkSampler, StationaryStartFollowsDegrees) {
  const WalkModel m = csr_walk(star_graph(6), parse_walk_weights("uniform"));  // pi = (5, 1, 1, 1, 1, 1) / 10
  WalkSimParams p = testing::plain_walk_params(1, 20000, 9);
  p.start.kind = StartKind::stationary;
  std::vector<double> observed(6, 0.0), expected = {0.5, 0.1, 0.1, 0.1, 0.1, 0.1};
  for (std::int64_t r = 0; r < p.runs; ++r) observed[walk_start(m, p, r)] += 1;
  for (double& e : expected) e *= double(p.runs);
  const ChiSquare c = pooled_chi_square(observed, expected);
  EXPECT_LT(c.statistic, chi_square_critical(c.bins - 1));
}

TEST(WalkSampler, LemireDrawAgreesWithPhiloxNextBelow) {
  int rejected = 0;
  for (std::uint32_t bound : {3u, 1000u, 3'000'000'000u}) {
    for (std::uint64_t offset = 0; offset < 20000; ++offset) {
      PhiloxStream words(4, 8, offset), reference(4, 8, offset);
      std::uint32_t k = 0;
      if (kernels::walk::bounded_draw(words.next_u32(), bound, &k))
        EXPECT_EQ(k, reference.next_below(bound));
      else
        ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);  // bound 3e9 rejects about 30% of the words: the retry path is exercised below
}

TEST(WalkSampler, VisitCountsAreBinomialOnTheCompleteGraph) {
  const int n = 10, steps = 200;
  WalkSimParams p = testing::plain_walk_params(steps, 3000, 21);
  p.start.kind = StartKind::uniform;  // then every node's visits are exactly Bin(T, 1/n)
  const WalkSimResult r = walk_sim(complete_walk(n), p);
  std::vector<double> observed, expected;
  for (int k = 0; k <= steps; ++k) {
    auto it = r.visit_counts.find(k);
    observed.push_back(it == r.visit_counts.end() ? 0.0 : double(it->second));
    expected.push_back(double(p.runs) * n * binomial_pmf(steps, 1.0 / n, k));
  }
  const ChiSquare c = pooled_chi_square(observed, expected);
  EXPECT_LT(c.statistic, chi_square_critical(c.bins - 1));
  std::int64_t visits = 0;
  for (auto v : r.visits) visits += v;
  EXPECT_EQ(visits, p.runs * steps);
}

TEST(WalkSampler, CycleLengthsAreGeometricOnTheCompleteGraph) {
  const int n = 10, steps = 200;
  WalkSimParams p = testing::plain_walk_params(steps, 3000, 22);
  const WalkSimResult r = walk_sim(complete_walk(n), p);
  // Returns: gaps (j, j + m) with 0 <= j, j + m <= T - 1; each has probability (1/n)(1 - 1/n)^(m-1) summed
  // over the nodes, so E[count_m] = R (T - m) (1/n) (1 - 1/n)^(m - 1).
  std::vector<double> observed, expected;
  for (int m = 1; m < steps; ++m) {
    observed.push_back(m < int(r.return_times.counts.size()) ? double(r.return_times.counts[m]) : 0.0);
    expected.push_back(double(p.runs) * (steps - m) * std::pow(1 - 1.0 / n, m - 1) / n);
  }
  const ChiSquare c = pooled_chi_square(observed, expected);
  EXPECT_LT(c.statistic, chi_square_critical(c.bins - 1));
  // First visits of the n - 1 other nodes: geometric(1/n) truncated at T - 1; mean within 1%.
  double hits = 0, hit_sum = 0;
  for (int h = 1; h < steps; ++h) {
    const double e = (n - 1) * std::pow(1 - 1.0 / n, h - 1) / n;
    hits += e;
    hit_sum += h * e;
  }
  EXPECT_NEAR(r.hitting_times.mean(), hit_sum / hits, 0.01 * hit_sum / hits);
  EXPECT_NEAR(double(r.hitting_times.total), p.runs * hits, 5 * std::sqrt(p.runs * hits));
}

// Every field of a loss tally, by name.
constexpr std::pair<const char*, double LossStats::*> kLossFields[] = {
    {"weight", &LossStats::weight},
    {"sum", &LossStats::sum},
    {"compensation", &LossStats::compensation},
    {"min", &LossStats::min},
    {"max", &LossStats::max}};

// Every field of one loss tally, named with `what` in a failure.
void expect_same_loss(const LossStats& x, const LossStats& y, const std::string& what) {
  for (const auto& [name, field] : kLossFields) EXPECT_EQ(x.*field, y.*field) << what << ", " << name;
}

// Everything walk_sim reports, for exact comparisons.
void expect_same(const WalkSimResult& a, const WalkSimResult& b) {
  expect_same_loss(a.network, b.network, "network");
  expect_same_loss(a.local, b.local, "local");
  ASSERT_EQ(a.by_distance.size(), b.by_distance.size());
  for (std::size_t d = 0; d < a.by_distance.size(); ++d)
    expect_same_loss(a.by_distance[d], b.by_distance[d], "distance " + std::to_string(d));
  EXPECT_EQ(a.network_quantiles, b.network_quantiles);
  EXPECT_EQ(a.observer_loss, b.observer_loss);
  EXPECT_EQ(a.node_local, b.node_local);
  EXPECT_EQ(a.cycles, b.cycles);
  testing::expect_same_visit_statistics(a, b);
  ASSERT_EQ(a.utility.size(), b.utility.size());
  for (std::size_t i = 0; i < a.utility.size(); ++i) {
    EXPECT_EQ(a.utility[i].truth, b.utility[i].truth);
    EXPECT_EQ(a.utility[i].estimate, b.utility[i].estimate);
  }
}

WalkSimResult run_with(const WalkModel& m, WalkSimParams p, const DistanceCounts* d, int threads,
                       std::int64_t batch) {
  p.batch_runs = batch;
  return testing::with_threads(threads, [&] { return walk_sim(m, p, d); });
}

TEST(WalkSampler, SameSeedSameResultsForAnyThreadsAndBatches) {
  WalkSimParams p;
  p.steps = 1500;
  p.runs = 7;
  p.seed = 42;
  p.save_paths = true;
  p.start.kind = StartKind::uniform;
  const WalkModel complete = complete_walk(20);
  const WalkSimResult one = run_with(complete, p, nullptr, 1, 0);
  for (auto [threads, batch] : {std::pair{2, 0}, {2, 1}, {2, 3}, {1, 2}}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads, batch " << batch);
    expect_same(one, run_with(complete, p, nullptr, threads, batch));
  }
  for (std::int64_t r = 0; r < p.runs; ++r) EXPECT_EQ(one.paths[r], sample_walk(complete, p, r));

  const Graph g = erdos_renyi_graph(30, 0.2, 3);
  DistanceCounts d;
  ASSERT_TRUE(distance_counts(g, d));
  p.start.kind = StartKind::stationary;
  p.view = WalkView::hidden;
  for (const char* rule : {"lazy-uniform", "metropolis"}) {
    const WalkModel m = csr_walk(g, parse_walk_weights(rule));
    const WalkSimResult a = run_with(m, p, &d, 1, 1), b = run_with(m, p, &d, 2, 4);
    expect_same(a, b);
    EXPECT_GT(a.by_distance.size(), 2u);
  }

  WalkSimParams other = p;
  other.seed = 43;
  const WalkModel m = csr_walk(g, parse_walk_weights("uniform"));
  const WalkSimResult a = walk_sim(m, p, &d), b = walk_sim(m, other, &d);
  EXPECT_NE(a.network.sum, b.network.sum);
  EXPECT_NE(a.paths, b.paths);
}

}  // namespace
}  // namespace netdp
