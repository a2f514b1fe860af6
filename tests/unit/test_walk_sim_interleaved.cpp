// Interleaved CPU walks (docs/walk_sim.md "Interleaved CPU walks"): a thread advancing K plain CSR walks
// together must give exactly the results of one walk at a time (walks_in_flight = 1) for the same seed, for
// every step rule (uniform, lazy, Metropolis, a file W with an absorbing node), start rule, group size
// (including groups that do not divide the runs), thread count and batch size; and its visit, return-time
// and hitting-time statistics must equal those recomputed here, slowly and independently, from the paths of
// the one-walk sampler (sample_walk).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/walk_sim_math.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "simulation/walk_sim_run.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

WalkSimResult run_with(const WalkModel& m, WalkSimParams p, std::int64_t lanes, int threads,
                       std::int64_t batch = 0) {
  p.walks_in_flight = lanes;
  p.batch_runs = batch;
  return testing::with_threads(threads, [&] { return walk_sim(m, p); });
}

// The statistics of docs/walk_sim.md "Statistics", recomputed from the paths: per run, the visits of each
// node, the gaps between consecutive visits (returns) and the first visit time of every node but the start
// (hits); return / hitting histograms by time (at most `cap`, the rest counted apart).
struct Expected {
  std::vector<std::int64_t> visits, returns, return_sum, hits, hit_sum;
  std::map<std::int64_t, std::int64_t> return_bins, hit_bins, visit_counts;
};

Expected from_paths(const WalkModel& m, const WalkSimParams& p, std::int64_t cap) {
  const auto n = static_cast<std::size_t>(m.n);
  Expected e;
  e.visits.assign(n, 0);
  e.returns = e.return_sum = e.hits = e.hit_sum = e.visits;
  for (std::int64_t run = 0; run < p.runs; ++run) {
    const std::vector<node_t> path = sample_walk(m, p, run);
    std::vector<std::int64_t> count(n, 0), last(n, -1);
    for (std::int64_t t = 0; t < std::int64_t(path.size()); ++t) {
      const auto v = static_cast<std::size_t>(path[t]);
      if (last[v] >= 0) {
        ++e.returns[v];
        e.return_sum[v] += t - last[v];
        ++e.return_bins[std::min(t - last[v], cap + 1)];
      } else if (t > 0) {
        ++e.hits[v];
        e.hit_sum[v] += t;
        ++e.hit_bins[std::min(t, cap + 1)];
      }
      ++count[v];
      last[v] = t;
    }
    for (std::size_t v = 0; v < n; ++v) {
      e.visits[v] += count[v];
      ++e.visit_counts[count[v]];
    }
  }
  return e;
}

std::map<std::int64_t, std::int64_t> bins(const TimeHistogram& h) {
  std::map<std::int64_t, std::int64_t> b;
  for (std::size_t t = 1; t < h.counts.size(); ++t)
    if (h.counts[t] > 0) b[std::int64_t(t)] = h.counts[t];
  if (h.overflow > 0) b[std::int64_t(h.counts.size())] = h.overflow;  // reported only when used
  return b;
}

void expect_matches_paths(const WalkModel& m, const WalkSimParams& p, const WalkSimResult& r) {
  const Expected e = from_paths(m, p, std::min<std::int64_t>(p.steps, std::int64_t{1} << 16));
  EXPECT_EQ(r.visits, e.visits);
  EXPECT_EQ(r.returns, e.returns);
  EXPECT_EQ(r.return_time_sum, e.return_sum);
  EXPECT_EQ(r.hits, e.hits);
  EXPECT_EQ(r.hitting_time_sum, e.hit_sum);
  EXPECT_EQ(bins(r.return_times), e.return_bins);
  EXPECT_EQ(bins(r.hitting_times), e.hit_bins);
  EXPECT_EQ(r.visit_counts, e.visit_counts);
}

struct Case {
  std::string name;
  WalkModel model;
};

std::vector<Case> csr_cases(const std::string& scratch) {
  const Graph er = erdos_renyi_graph(40, 0.15, 3);
  std::vector<Case> cases;
  for (const char* rule : {"uniform", "lazy-uniform", "metropolis"})
    cases.push_back({std::string("er ") + rule, csr_walk(er, parse_walk_weights(rule))});
  // Leaves of degree 1 (every move from a leaf goes to the centre); Metropolis keeps most of a leaf's mass.
  cases.push_back({"star uniform", csr_walk(star_graph(9), parse_walk_weights("uniform"))});
  cases.push_back({"star metropolis", csr_walk(star_graph(9), parse_walk_weights("metropolis"))});
  // Weighted rows over several lines of thresholds and targets: a centre of 60 entries, rows of about 30.
  cases.push_back({"big star metropolis", csr_walk(star_graph(60), parse_walk_weights("metropolis"))});
  cases.push_back(
      {"dense er metropolis", csr_walk(erdos_renyi_graph(60, 0.5, 4), parse_walk_weights("metropolis"))});
  // A file W on the path 0-1-2 whose node 2 is absorbing (W_22 = 1: a one-entry weighted row).
  cases.push_back({"absorbing file", csr_walk(path_graph(3), parse_walk_weights("file:" + scratch))});
  cases.push_back({"two nodes", csr_walk(path_graph(2), parse_walk_weights("lazy-uniform"))});
  return cases;
}

TEST(WalkSimInterleaved, SameResultsAsOneWalkAtATime) {
  testing::ScratchDir dir;
  const std::string w = dir.write("w.txt", "0 0 0.5\n0 1 0.5\n1 0 0.2\n1 1 0.3\n1 2 0.5\n2 2 1\n");
  for (const Case& c : csr_cases(w)) {
    for (StartKind start : {StartKind::node, StartKind::uniform, StartKind::stationary}) {
      WalkSimParams p = testing::plain_walk_params(257, 11, 7);
      p.start.kind = start;
      p.save_paths = true;
      const WalkSimResult one = run_with(c.model, p, 1, 1);
      EXPECT_EQ(one.walks_in_flight, 1);
      for (auto [lanes, threads, batch] :
           {std::tuple{2, 1, 0}, {3, 2, 0}, {8, 2, 0}, {64, 1, 0}, {4, 2, 5}}) {
        SCOPED_TRACE(::testing::Message() << c.name << ", start " << int(start) << ", " << lanes << " lanes, "
                                          << threads << " threads, batch " << batch);
        const WalkSimResult many = run_with(c.model, p, lanes, threads, batch);
        EXPECT_GT(many.walks_in_flight, 1);  // the interleaved engine ran
        testing::expect_same_visit_statistics(one, many);
      }
    }
  }
}

TEST(WalkSimInterleaved, PicksByHighWordsAreTheRowPicks) {
  // weighted_pick_by_high_words against weighted_pick: rows of 1 to 40 nondecreasing thresholds whose high
  // words often tie (steps of at most 2^33 around a few high words, and zero steps), draws at, just below and
  // just above every threshold and at each high word's bounds, 0, the largest and random ones.
  std::mt19937_64 rng(5);
  std::vector<std::uint64_t> c(48);
  std::vector<std::uint32_t> highs(c.size());
  std::int64_t tie_decided = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const auto begin = static_cast<std::int64_t>(rng() % 8),
               end = begin + 1 + static_cast<std::int64_t>(rng() % 40);
    std::uint64_t value = rng() >> 2;
    for (std::int64_t e = 0; e < std::int64_t(c.size()); ++e) {
      value += rng() % 3 == 0 ? 0 : rng() % (std::uint64_t{1} << 33);
      c[e] = value;
      highs[e] = static_cast<std::uint32_t>(c[e] >> 32);
    }
    std::vector<std::uint64_t> draws = {0, ~std::uint64_t{0}, c[begin] + rng() % (c[end - 1] - c[begin] + 1)};
    for (std::int64_t e = begin; e < end; ++e) {
      draws.insert(draws.end(),
                   {c[e], c[e] - 1, c[e] + 1, c[e] >> 32 << 32, (c[e] >> 32 << 32) | 0xffffffffu});
      tie_decided += e > begin && highs[e] == highs[e - 1] && c[e] != c[e - 1];
    }
    for (std::uint64_t u : draws) {
      ASSERT_EQ(kernels::walk::weighted_pick_by_high_words(highs.data(), c.data(), begin, end, u),
                kernels::walk::weighted_pick(c.data(), begin, end, u))
          << "row " << begin << " .. " << end - 1 << ", u " << u;
    }
  }
  EXPECT_GT(tie_decided, 1000);  // the full-width comparison was needed, not only the high words
}

TEST(WalkSimInterleaved, StatisticsEqualThoseOfTheSampledPaths) {
  testing::ScratchDir dir;
  const std::string w = dir.write("w.txt", "0 0 0.5\n0 1 0.5\n1 0 0.2\n1 1 0.3\n1 2 0.5\n2 2 1\n");
  for (const Case& c : csr_cases(w)) {
    SCOPED_TRACE(c.name);
    WalkSimParams p = testing::plain_walk_params(600, 13, 21);
    p.start.kind = StartKind::uniform;
    const WalkSimResult r = run_with(c.model, p, 0, 2);  // automatic: ceil(13 / 2) = 7 walks per thread
    EXPECT_EQ(r.walks_in_flight, 7);
    expect_matches_paths(c.model, p, r);
  }
  // Walks of 1, 2 and 3 positions (no step, one, two), 5 of them in one group.
  const WalkModel er = csr_walk(erdos_renyi_graph(40, 0.15, 3), parse_walk_weights("uniform"));
  for (std::int64_t steps : {1, 2, 3}) {
    SCOPED_TRACE(steps);
    const WalkSimParams p = testing::plain_walk_params(steps, 5, 4);
    expect_matches_paths(er, p, run_with(er, p, 5, 1));
  }
}

TEST(WalkSimInterleaved, OnlyPlainCsrWalksAreInterleaved) {
  WalkSimParams p = testing::plain_walk_params(300, 6, 2);
  p.walks_in_flight = 4;
  EXPECT_EQ(walk_sim(complete_walk(10), p).walks_in_flight, 1);  // no dependent loads to hide
  EXPECT_EQ(walk_sim(make_walk_model("ring:n=5", "directed-ring"), p).walks_in_flight, 1);
  const WalkModel er = csr_walk(erdos_renyi_graph(40, 0.15, 3), parse_walk_weights("uniform"));
  EXPECT_EQ(run_with(er, p, 4, 1).walks_in_flight, 4);
  p.accounting = true;  // the accounted walk keeps one walk at a time (its record design)
  EXPECT_EQ(walk_sim(er, p).walks_in_flight, 1);
}

TEST(WalkSimInterleaved, NegativeWalksInFlightIsRefused) {
  WalkSimParams p = testing::plain_walk_params(10, 2, 0);
  p.walks_in_flight = -1;
  try {
    validate(p, 5);
    FAIL() << "walks_in_flight = -1 accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_EQ(e.parameter(), "walks-in-flight");
  }
}

}  // namespace
}  // namespace netdp
