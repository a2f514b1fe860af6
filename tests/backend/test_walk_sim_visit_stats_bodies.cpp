// The walk engine for throughput (docs/cuda_backend.md "Walk engine for throughput") run on the host
// through the source the GPU compiles: the statistics body with compact visit tables and block-level tallies
// (common/walk_sim_visit_stats.hpp) gives exactly the CPU engine's visit statistics (walk_sim), whatever the
// layout (direct or hashed tables, block or global memory, windows, block shape); the stepping body
// (common/walk_sim_stepping.hpp) walks the CPU's paths (sample_walk), several walks per thread. Label
// device-bodies: no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/walk_sim_stepping.hpp"
#include "common/walk_sim_visit_stats.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "walk_sim_bodies_support.hpp"

namespace netdp {
namespace {

using namespace walk_bodies_test;

// Every walk kind and start rule; n = 3000 with T = 200 needs hashed tables (n > 2 T).
std::vector<WalkCase> cases() {
  std::vector<WalkCase> c;
  c.push_back({"complete n = 50", complete_walk(50), {StartKind::node, 0}, 4000});
  c.push_back({"complete n = 3 (retries)", complete_walk(3), {StartKind::node, 2}, 20000});
  for (const char* weights : {"uniform", "lazy-uniform", "metropolis"})
    c.push_back({std::string(weights) + ", stationary start",
                 make_walk_model("er:n=60,p=0.1,seed=3", weights),
                 {StartKind::stationary, 0},
                 3000});
  c.push_back({"star, node start", make_walk_model("star:n=9", "uniform"), {StartKind::node, 4}, 2000});
  c.push_back({"directed ring", directed_ring_walk(17), {StartKind::uniform, 0}, 1000});
  c.push_back({"er n = 3000, hashed tables",
               make_walk_model("er:n=3000,p=0.002,seed=5", "uniform"),
               {StartKind::uniform, 0},
               200});
  return c;
}

struct Shape {
  std::string what;
  int blocks, threads;
  std::int64_t batch;
};

/// walk_sim_cuda's statistics launches on the host: batches of `batch` walks, `blocks` x `threads` resident
/// threads with their global tables (unless in block memory).
void run_visit_stats(const WalkModel& model, const WalkSimParams& p, const walk::VisitStatsLayout& g,
                     const Shape& shape, HostTallies& h, std::map<std::int64_t, std::int64_t>& sparse) {
  const auto residents = static_cast<std::size_t>(shape.blocks * shape.threads);
  std::vector<walk::VisitSlot> tables(residents * static_cast<std::size_t>(g.capacity));
  std::vector<std::uint32_t> keys(g.bits > 0 ? tables.size() : 0);
  std::vector<node_t> starts(static_cast<std::size_t>(shape.batch));
  for (std::int64_t first = 0; first < p.runs; first += shape.batch) {
    const std::int64_t count = std::min(shape.batch, p.runs - first);
    for (std::int64_t k = 0; k < count; ++k)
      starts[static_cast<std::size_t>(k)] = walk_start(model, p, first + k);
    const walk::VisitStatsBatch b{p.seed,        first, count,         p.steps,
                                  starts.data(), 0,     tables.data(), keys.data()};
    walk::for_kind(model.kind, [&](auto kind) {
      walk::host_for_each_block(count, shape.blocks, shape.threads,
                                walk::VisitStatsBody<kind.value>{view(model), b, g, h.view()});
    });
    h.drain(sparse);
  }
  EXPECT_TRUE(std::all_of(tables.begin(), tables.end(), [](walk::VisitSlot s) { return s.count == 0; }))
      << "the fold leaves every table empty";
  EXPECT_TRUE(std::all_of(keys.begin(), keys.end(), [](std::uint32_t k) { return k == 0; }));
}

/// The layouts a case is run with: the engine's plan, everything in global memory with tiny windows (the
/// global paths of every tally), and hashed tables at load up to 0.8 (long probe chains, wrap-around).
std::vector<std::pair<std::string, walk::VisitStatsLayout>> layouts(const WalkCase& c, std::int64_t time_cap,
                                                                    std::int64_t visit_cap) {
  std::vector<std::pair<std::string, walk::VisitStatsLayout>> out;
  const walk::VisitStatsLayout planned =
      walk::plan_visit_stats(c.model.n, c.steps, 32, 96 * 1024, time_cap, visit_cap);
  out.emplace_back("planned", planned);
  walk::VisitStatsLayout global = planned;
  global.shared_tables = false;
  global.node_bins = false;
  global.time_window = 3;
  global.visit_window = 2;
  global.visit_lo = c.steps / c.model.n;
  out.emplace_back("global, tiny windows", global);
  walk::VisitStatsLayout hashed = planned;
  hashed.bits = 1;
  while ((std::int64_t{1} << hashed.bits) * 4 < std::min<std::int64_t>(c.model.n, c.steps) * 5) ++hashed.bits;
  hashed.capacity = std::int64_t{1} << hashed.bits;
  hashed.shared_tables = true;
  out.emplace_back("hashed, load 0.8", hashed);
  return out;
}

TEST(WalkSimVisitStatsBodies, StatisticsBodyGivesTheCpuTallies) {
  for (const WalkCase& c : cases()) {
    WalkSimParams p = params(c.steps, 23, false);
    p.start = c.start;
    const WalkSimResult cpu = walk_sim(c.model, p);
    const std::int64_t time_cap = std::min(p.steps, kTimeCap), visit_cap = std::min(p.steps, kVisitCap);
    for (const auto& [layout_name, g] : layouts(c, time_cap, visit_cap)) {
      for (const Shape& shape : {Shape{"1 block of 32, one batch", 1, 32, p.runs},
                                 Shape{"2 blocks of 5, batches of 7", 2, 5, 7}}) {
        const std::int64_t overflow_per_walk = std::min<std::int64_t>(c.model.n, p.steps / (visit_cap + 1));
        HostTallies h(c.model.n, time_cap, visit_cap, cpu_nv(c.model, p), overflow_per_walk * shape.batch);
        std::map<std::int64_t, std::int64_t> sparse;
        run_visit_stats(c.model, p, g, shape, h, sparse);
        expect_cpu_tallies(cpu, h, sparse, c.what + ", " + layout_name + ", " + shape.what);
      }
    }
  }
}

TEST(WalkSimVisitStatsBodies, StatisticsBeyondTheHistogramAndVisitCaps) {
  // Caps 4 and 1000 (the body takes them as parameters) on n = 2, T = 3000: returns above time_cap go to the
  // overflow bin, every visit count (about 1500) to the overflow list; the totals are those of the library
  // (its tallies of caps 2^16 and 2^20, where every bin of these caps is exact).
  const WalkModel m = complete_walk(2);
  const WalkSimParams p = params(3000, 5, false);
  const walk::VisitStatsLayout g = walk::plan_visit_stats(2, p.steps, 4, 96 * 1024, 4, 1000);
  EXPECT_EQ(g.time_window, 6);
  HostTallies compact(2, 4, 1000, INFINITY, 2 * 5);
  std::map<std::int64_t, std::int64_t> compact_sparse;
  run_visit_stats(m, p, g, Shape{"", 1, 4, 5}, compact, compact_sparse);
  const WalkSimResult cpu = walk_sim(m, p);
  EXPECT_EQ(as_int(compact.visits), cpu.visits);
  EXPECT_EQ(as_int(compact.return_sum), cpu.return_time_sum);
  EXPECT_EQ(compact_sparse, cpu.visit_counts);  // every count is above 1000
  for (std::size_t t = 1; t <= 4; ++t)
    EXPECT_EQ(static_cast<std::int64_t>(compact.return_counts[t]), cpu.return_times.counts[t]) << t;
  EXPECT_EQ(compact_sparse.size(), walk_sim(m, p).visit_counts.size());
  EXPECT_GT(compact.return_counts.back(), 0u);
}

TEST(WalkSimVisitStatsBodies, LayoutPlanByHand) {
  // n = 50, T = 4000, 128 threads, 96 KiB = 12288 words: direct tables of 50 slots; bins 2 x 1024 + 512 +
  // 5 x 50 + 1 = 2811 words, tables 128 x 50 = 6400 more: 9211 <= 12288, so in block memory.
  walk::VisitStatsLayout g = walk::plan_visit_stats(50, 4000, 128, 96 * 1024, 4000, 4000);
  EXPECT_EQ(g.capacity, 50);
  EXPECT_EQ(g.bits, 0);
  EXPECT_EQ(g.time_window, 1024);
  EXPECT_EQ(g.visit_window, 512);
  EXPECT_EQ(g.visit_lo, 0);  // T / n = 80 < 256
  EXPECT_TRUE(g.node_bins);
  EXPECT_TRUE(g.shared_tables);
  EXPECT_EQ(g.block_words(128, 50), 9211);
  // n = 3000, T = 200: hashed, 2^9 = 512 >= 400 slots, 512 + 256 words per table: 128 tables do not fit.
  g = walk::plan_visit_stats(3000, 200, 128, 96 * 1024, 200, 200);
  EXPECT_EQ(g.bits, 9);
  EXPECT_EQ(g.capacity, 512);
  EXPECT_EQ(g.table_words(), 768);
  EXPECT_FALSE(g.shared_tables);
  EXPECT_EQ(g.time_window, 202);
  EXPECT_EQ(g.visit_window, 201);
  // n = 10, T = 10^6: visit counts around 10^5, the window [10^5 - 256, 10^5 + 256).
  g = walk::plan_visit_stats(10, 1'000'000, 128, 96 * 1024, 65536, 1 << 20);
  EXPECT_EQ(g.visit_lo, 100000 - 256);
  // n = 10^6: 5 n node totals do not fit a quarter of the block.
  EXPECT_FALSE(walk::plan_visit_stats(1'000'000, 10'000'000, 128, 96 * 1024, 65536, 1 << 20).node_bins);
}

/// The stepping body's expectations from the CPU's path of `run`: end, start visits, first return.
walk::WalkStepSummary from_path(const std::vector<node_t>& path) {
  walk::WalkStepSummary s{path.back(), 0, 0};
  for (std::size_t t = 0; t < path.size(); ++t)
    if (path[t] == path[0]) {
      ++s.start_visits;
      if (t > 0 && s.first_return == 0) s.first_return = static_cast<std::int64_t>(t);
    }
  return s;
}

template <int kLanes>
void expect_stepping(const WalkCase& c, const WalkSimParams& p, const WalkSimResult& cpu, bool block_visits,
                     int blocks, int threads) {
  const std::string what = c.what + ", lanes " + std::to_string(kLanes) +
                           (block_visits ? ", block" : ", global") + " visits, " + std::to_string(blocks) +
                           " x " + std::to_string(threads);
  std::vector<node_t> starts;
  for (std::int64_t run = 0; run < p.runs; ++run) starts.push_back(walk_start(c.model, p, run));
  std::vector<walk::WalkStepSummary> out(static_cast<std::size_t>(p.runs));
  std::vector<Counter> visits(static_cast<std::size_t>(c.model.n));
  walk::WalkStepBatch b;
  b.seed = p.seed;
  b.count = p.runs;
  b.groups = (p.runs + kLanes - 1) / kLanes;
  b.steps = p.steps;
  b.starts = starts.data();
  b.summaries = out.data();
  b.visits = visits.data();
  b.block_visits = block_visits;
  walk::for_kind(c.model.kind, [&](auto kind) {
    walk::host_for_each_block(b.groups, blocks, threads,
                              walk::WalkStepBody<kind.value, kLanes>{view(c.model), b});
  });
  EXPECT_EQ(as_int(visits), cpu.visits) << what;
  for (std::int64_t run = 0; run < p.runs; ++run) {
    const walk::WalkStepSummary e = from_path(sample_walk(c.model, p, run));
    const walk::WalkStepSummary& s = out[static_cast<std::size_t>(run)];
    ASSERT_EQ(s.end, e.end) << what << ", run " << run;
    ASSERT_EQ(s.start_visits, e.start_visits) << what << ", run " << run;
    ASSERT_EQ(s.first_return, e.first_return) << what << ", run " << run;
  }
}

TEST(WalkSimVisitStatsBodies, SteppingBodyWalksTheCpuPaths) {
  for (const WalkCase& c : cases()) {
    WalkSimParams p = params(std::min<std::int64_t>(c.steps, 3000), 23, false);
    p.start = c.start;
    const WalkSimResult cpu = walk_sim(c.model, p);
    // 23 walks: 4 lanes leave one inactive in the last group, 3 lanes two; 2 blocks of 3 stride over groups.
    expect_stepping<1>(c, p, cpu, false, 1, 32);
    expect_stepping<3>(c, p, cpu, true, 2, 3);
    expect_stepping<4>(c, p, cpu, true, 1, 8);
    expect_stepping<4>(c, p, cpu, false, 2, 3);
  }
}

}  // namespace
}  // namespace netdp
