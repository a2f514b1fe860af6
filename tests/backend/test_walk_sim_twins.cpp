// The walk engine's twins byte for byte (docs/walk_sim.md "CPU and CUDA twins"): the CPU twin
// (kernels/cpu/walk_sim_cpu.cpp, WalkPlainCpuEngine) against the CUDA twin (kernels/cuda/walk_sim_cuda.cu,
// walk_sim_cuda) on the same plain views, for several graphs, seeds, batch sizes and thread counts: every
// tally vector and the visit-count map must be equal. Built twice: against the backend of the build (the
// CUDA cases skip where no device answers) and as test_walk_sim_twins_emulated against the emulated device
// (the .cu source built for the host, docs/cuda_backend.md "The emulated device"), so CI compares the twins
// without a GPU. Label twins.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "netdp/simulation/walk_sim.hpp"
#include "support/cuda_required.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp {
namespace {

constexpr std::int64_t kTimeCap = std::int64_t{1} << 16;   // the driver's histogram caps
constexpr std::int64_t kVisitCap = std::int64_t{1} << 20;  // (src/simulation/walk_sim.cpp)

struct TwinCase {
  std::string what;
  WalkModel model;
  WalkStart start;
  std::int64_t steps, runs;
};

std::vector<TwinCase> cases() {
  std::vector<TwinCase> c;
  c.push_back({"complete n = 50", complete_walk(50), {StartKind::node, 0}, 3000, 23});
  // n = 3: Lemire rejections (the retry stream) and visit counts far above the window of the block bins.
  c.push_back({"complete n = 3, uniform start", complete_walk(3), {StartKind::uniform}, 40000, 5});
  c.push_back({"directed ring", directed_ring_walk(17), {StartKind::uniform}, 1000, 9});
  c.push_back({"star", make_walk_model("star:n=9", "uniform"), {StartKind::stationary}, 2000, 11});
  for (const char* weights : {"uniform", "lazy-uniform", "metropolis"})
    c.push_back({std::string("ER ") + weights,
                 make_walk_model("er:n=60,p=0.1,seed=3", weights),
                 {StartKind::stationary},
                 4000,
                 17});
  // n > 2 T: hashed visit tables.
  c.push_back({"ER n = 3000, hashed tables",
               make_walk_model("er:n=3000,p=0.003,seed=5", "uniform"),
               {StartKind::node, 4},
               400,
               13});
  return c;
}

kernels::WalkTables tables_of(const WalkModel& m) {
  return {m.kind, m.n, m.offsets, m.targets, m.thresholds};
}

WalkSimParams params_of(const TwinCase& c, std::uint64_t seed) {
  WalkSimParams p;
  p.steps = c.steps;
  p.runs = c.runs;
  p.seed = seed;
  p.accounting = false;
  p.start = c.start;
  return p;
}

kernels::WalkRunSpec spec_of(const WalkSimParams& p, std::int64_t batch) {
  return {p.seed, p.steps, p.runs, batch, p.start.kind != StartKind::node, p.start.node, 0, 0};
}

double nv_of(const TwinCase& c, const WalkSimParams& p) {
  // Any bound works for the comparison; the complete graph's is CB1's in the driver. Here a middle value,
  // so that the count above it is neither 0 nor everything.
  return double(p.steps) / double(c.model.n);
}

std::vector<node_t> starts_of(const TwinCase& c, const WalkSimParams& p, std::int64_t first,
                              std::int64_t count) {
  std::vector<node_t> s;
  if (p.start.kind == StartKind::node) return s;
  for (std::int64_t k = 0; k < count; ++k) s.push_back(walk_start(c.model, p, first + k));
  return s;
}

kernels::WalkVisitTallies cpu_twin(const TwinCase& c, const WalkSimParams& p, std::int64_t batch, int threads,
                                   bool dense) {
  kernels::WalkPlainCpuEngine engine(tables_of(c.model), spec_of(p, batch), threads,
                                     std::min(p.steps, kTimeCap), std::min(p.steps, kVisitCap), nv_of(c, p),
                                     dense);
  for (std::int64_t first = 0; first < p.runs; first += batch) {
    const std::int64_t count = std::min(batch, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    engine.run_batch(first, count, starts);
  }
  kernels::WalkVisitTallies t;
  engine.finish(t);
  return t;
}

kernels::WalkVisitTallies cuda_twin(const TwinCase& c, const WalkSimParams& p, std::int64_t batch) {
  const auto engine =
      kernels::walk_sim_cuda(tables_of(c.model), spec_of(p, batch), 0, std::min(p.steps, kTimeCap),
                             std::min(p.steps, kVisitCap), nv_of(c, p));
  const std::int64_t size = engine->plan().batch_runs;
  kernels::WalkVisitTallies t;
  for (std::int64_t first = 0; first < p.runs; first += size) {
    const std::int64_t count = std::min(size, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    engine->run_batch(first, count, starts, t);
  }
  engine->finish(t);
  return t;
}

/// Byte for byte: same sizes and memcmp of every vector, the same visit-count map.
void expect_same_bytes(const kernels::WalkVisitTallies& a, const kernels::WalkVisitTallies& b,
                       const std::string& what) {
  const auto same = [&](const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y,
                        const char* name) {
    ASSERT_EQ(x.size(), y.size()) << what << ": " << name;
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(std::int64_t)), 0) << what << ": " << name;
    EXPECT_EQ(x, y) << what << ": " << name;  // names the first differing entry
  };
  same(a.visits, b.visits, "visits");
  same(a.returns, b.returns, "returns");
  same(a.return_time_sum, b.return_time_sum, "return_time_sum");
  same(a.hits, b.hits, "hits");
  same(a.hitting_time_sum, b.hitting_time_sum, "hitting_time_sum");
  same(a.return_counts, b.return_counts, "return_counts");
  same(a.hitting_counts, b.hitting_counts, "hitting_counts");
  EXPECT_EQ(a.visit_counts, b.visit_counts) << what << ": visit_counts";
  EXPECT_EQ(a.above_nv, b.above_nv) << what << ": above_nv";
}

/// What any correct run satisfies, so that two empty or equally broken results cannot pass: R T visits, R
/// hits-or-starts per visited node and run, returns = visits - (node, run) pairs visited.
void expect_consistent(const kernels::WalkVisitTallies& t, const WalkSimParams& p, node_t n,
                       const std::string& what) {
  std::int64_t visits = 0, returns = 0, hits = 0, pairs = 0, unvisited = 0;
  for (node_t v = 0; v < n; ++v) {
    visits += t.visits[v];
    returns += t.returns[v];
    hits += t.hits[v];
  }
  for (const auto& [c, count] : t.visit_counts) {
    pairs += count;
    if (c == 0) unvisited = count;
  }
  EXPECT_EQ(visits, p.steps * p.runs) << what;
  EXPECT_EQ(pairs, std::int64_t{n} * p.runs) << what;
  EXPECT_EQ(hits + p.runs, std::int64_t{n} * p.runs - unvisited) << what;  // the start is no hit
  EXPECT_EQ(returns, visits - (std::int64_t{n} * p.runs - unvisited)) << what;
  std::int64_t binned = 0;
  for (std::int64_t c : t.return_counts) binned += c;
  EXPECT_EQ(binned, returns) << what;
}

TEST(WalkSimTwins, PlainWalksCpuTwinEqualsCudaTwin) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const TwinCase& c : cases()) {
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{20240611}}) {
      const WalkSimParams p = params_of(c, seed);
      for (std::int64_t batch : {std::int64_t{1}, std::int64_t{7}, p.runs}) {
        const std::string what =
            c.what + ", seed " + std::to_string(seed) + ", batch " + std::to_string(batch);
        const kernels::WalkVisitTallies gpu = cuda_twin(c, p, batch);
        const kernels::WalkVisitTallies cpu = cpu_twin(c, p, batch, 2, false);
        expect_consistent(cpu, p, c.model.n, what + ", CPU twin");
        expect_same_bytes(cpu, gpu, what);
      }
    }
  }
}

TEST(WalkSimTwins, DenseBodyOfTheCpuTwinEqualsCudaTwin) {
  // walk::PlainWalkBody (what walks of T >= 2^32 take) against the CUDA twin's compact tables.
  NETDP_NEEDS_CUDA_DEVICE();
  for (const TwinCase& c : cases()) {
    const WalkSimParams p = params_of(c, 5);
    const std::string what = c.what + ", dense CPU body";
    const kernels::WalkVisitTallies cpu = cpu_twin(c, p, 4, 2, true);
    expect_consistent(cpu, p, c.model.n, what);
    expect_same_bytes(cpu, cuda_twin(c, p, p.runs), what);
  }
}

TEST(WalkSimTwins, CpuTwinIsTheSameForAnyThreadCount) {
  for (const TwinCase& c : cases()) {
    const WalkSimParams p = params_of(c, 9);
    const kernels::WalkVisitTallies one = cpu_twin(c, p, p.runs, 1, false);
    expect_consistent(one, p, c.model.n, c.what);
    expect_same_bytes(one, cpu_twin(c, p, 3, 3, false), c.what + ", 3 threads, batch 3");
    expect_same_bytes(one, cpu_twin(c, p, 5, 2, true), c.what + ", dense, 2 threads, batch 5");
  }
}

TEST(WalkSimTwins, CpuTwinStopsWhenProgressSaysSo) {
  // A false answer skips the walks not started: fewer than R T visits, and every one of a whole walk.
  const TwinCase c{"complete n = 10", complete_walk(10), {StartKind::node, 0}, 1 << 20, 8};
  const WalkSimParams p = params_of(c, 3);
  kernels::WalkPlainCpuEngine engine(tables_of(c.model), spec_of(p, p.runs), 1, kTimeCap, kVisitCap, 1e300);
  std::int64_t reported = 0;
  engine.run_batch(0, p.runs, {}, [&](std::int64_t positions) {
    reported += positions;
    return reported < 3 * p.steps;
  });
  kernels::WalkVisitTallies t;
  engine.finish(t);
  std::int64_t visits = 0;
  for (std::int64_t v : t.visits) visits += v;
  EXPECT_EQ(visits, 3 * p.steps);
  EXPECT_EQ(reported, 3 * p.steps);
}

}  // namespace
}  // namespace netdp
