// CUDA walks (docs/walk_sim.md "CUDA"): the same seed gives exactly the CPU's visit statistics (same Philox
// words and integer maths, docs/design.md principle 2) on the complete graph, CSR walks and the directed
// ring, for several batch sizes and every start rule; the accounting agrees with the CPU's to rounding.
// Skipped where no CUDA device answers (failed under NETDP_REQUIRE_CUDA=1, support/cuda_required.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "support/cuda_required.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp {
namespace {

WalkSimParams plain(std::int64_t steps, std::int64_t runs, DeviceKind device, std::int64_t batch = 0) {
  WalkSimParams p;
  p.steps = steps;
  p.runs = runs;
  p.seed = 20240611;
  p.accounting = false;
  p.batch_runs = batch;
  p.device = {device, 0};
  return p;
}

void expect_same_histogram(const TimeHistogram& a, const TimeHistogram& b, const std::string& what) {
  EXPECT_EQ(a.counts, b.counts) << what;
  EXPECT_EQ(a.overflow, b.overflow) << what;
  EXPECT_EQ(a.overflow_sum, b.overflow_sum) << what;
  EXPECT_EQ(a.total, b.total) << what;
  EXPECT_EQ(a.sum, b.sum) << what;
}

// CPU and CUDA on the same walks: every integer statistic must agree exactly.
void expect_same_walks(const WalkModel& m, WalkSimParams p, const std::string& what) {
  p.device = {DeviceKind::cpu, 0};
  const WalkSimResult cpu = walk_sim(m, p);
  for (std::int64_t batch : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, p.runs}) {
    p.device = {DeviceKind::cuda, 0};
    p.batch_runs = batch;
    const WalkSimResult gpu = walk_sim(m, p);
    const std::string label = what + ", batch " + std::to_string(batch);
    EXPECT_EQ(gpu.device.substr(0, 4), "cuda") << label;
    EXPECT_EQ(cpu.visits, gpu.visits) << label;
    EXPECT_EQ(cpu.returns, gpu.returns) << label;
    EXPECT_EQ(cpu.return_time_sum, gpu.return_time_sum) << label;
    EXPECT_EQ(cpu.hits, gpu.hits) << label;
    EXPECT_EQ(cpu.hitting_time_sum, gpu.hitting_time_sum) << label;
    EXPECT_EQ(cpu.visit_counts, gpu.visit_counts) << label;
    EXPECT_EQ(cpu.visit_counts_above_nv, gpu.visit_counts_above_nv) << label;
    expect_same_histogram(cpu.return_times, gpu.return_times, label + ", return times");
    expect_same_histogram(cpu.hitting_times, gpu.hitting_times, label + ", hitting times");
  }
}

TEST(WalkSimCuda, CompleteGraphMatchesTheCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  const WalkModel m = complete_walk(50);
  WalkSimParams p = plain(3000, 40, DeviceKind::cuda);
  expect_same_walks(m, p, "complete, node start");
  p.start = {StartKind::uniform, 0};
  expect_same_walks(m, p, "complete, uniform start");
  // n = 3 keeps Lemire rejections (and the retry stream) frequent enough to be exercised.
  expect_same_walks(complete_walk(3), plain(100000, 9, DeviceKind::cuda), "complete n = 3");
}

TEST(WalkSimCuda, CsrWalksMatchTheCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const char* weights : {"uniform", "lazy-uniform", "metropolis"}) {
    const WalkModel m = make_walk_model("er:n=60,p=0.1,seed=3", weights);
    WalkSimParams p = plain(5000, 33, DeviceKind::cuda);
    p.start = {StartKind::node, 7};
    expect_same_walks(m, p, std::string(weights) + ", node start");
    p.start = {StartKind::stationary, 0};
    expect_same_walks(m, p, std::string(weights) + ", stationary start");
    p.start = {StartKind::uniform, 0};
    expect_same_walks(m, p, std::string(weights) + ", uniform start");
  }
  // A star's uniform walk: pi = d_v / 2m far from uniform, and the walk alternates through the hub.
  WalkSimParams p = plain(2000, 20, DeviceKind::cuda);
  p.start = {StartKind::stationary, 0};
  expect_same_walks(make_walk_model("star:n=9", "uniform"), p, "star, stationary start");
}

TEST(WalkSimCuda, DirectedRingMatchesTheCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  WalkSimParams p = plain(1000, 12, DeviceKind::cuda);
  p.start = {StartKind::uniform, 0};
  expect_same_walks(directed_ring_walk(17), p, "directed ring");
}

TEST(WalkSimCuda, VisitCountsAboveTheDenseCap) {
  NETDP_NEEDS_CUDA_DEVICE();
  // T > 2^20 on n = 2: both nodes pass the dense visit-count bins (the sparse path of either backend).
  expect_same_walks(complete_walk(2), plain((std::int64_t{1} << 20) + 5000, 3, DeviceKind::cuda),
                    "complete n = 2, long walks");
}

/// A walk of the stepping tests: its name, model and start rule.
struct WalkCase {
  std::string what;
  WalkModel model;
  WalkStart start;
};

// The stepping mode (docs/cuda_backend.md "Walk engine for throughput"): no per-node state, several walks per
// thread; each walk's end node, start visits and first return are those of the CPU's path, and the visit
// totals are walk_sim's, for batches of 1, 7 and all.
TEST(WalkSimCuda, SteppingModeWalksTheCpuPaths) {
  NETDP_NEEDS_CUDA_DEVICE();
  const std::vector<WalkCase> cases = {
      {"complete n = 50", complete_walk(50), {StartKind::node, 3}},
      {"lazy-uniform ER",
       make_walk_model("er:n=60,p=0.1,seed=3", "lazy-uniform"),
       {StartKind::stationary, 0}},
      {"metropolis ER", make_walk_model("er:n=60,p=0.1,seed=3", "metropolis"), {StartKind::uniform, 0}},
      {"directed ring", directed_ring_walk(17), {StartKind::uniform, 0}}};
  for (const WalkCase& c : cases) {
    WalkSimParams p = plain(2000, 30, DeviceKind::cpu);
    p.start = c.start;
    const WalkSimResult cpu = walk_sim(c.model, p);
    for (std::int64_t batch : {std::int64_t{1}, std::int64_t{7}, p.runs}) {
      const std::string label = c.what + ", batch " + std::to_string(batch);
      const kernels::WalkTables tables{c.model.kind, c.model.n, c.model.offsets, c.model.targets,
                                       c.model.thresholds};
      kernels::WalkRunSpec spec;
      spec.seed = p.seed;
      spec.steps = p.steps;
      spec.runs = p.runs;
      spec.batch_runs = batch;
      spec.per_walk_start = c.start.kind != StartKind::node;
      spec.start_node = c.start.node;
      const auto engine = kernels::walk_steps_cuda(tables, spec, 0, true);
      EXPECT_EQ(engine->plan().batch_runs, batch) << label;
      for (std::int64_t first = 0; first < p.runs; first += batch) {
        const std::int64_t count = std::min(batch, p.runs - first);
        std::vector<node_t> starts;
        if (spec.per_walk_start)
          for (std::int64_t k = 0; k < count; ++k) starts.push_back(walk_start(c.model, p, first + k));
        const std::span<const kernels::walk::WalkStepSummary> out = engine->run_batch(first, count, starts);
        ASSERT_EQ(out.size(), static_cast<std::size_t>(count)) << label;
        for (std::int64_t k = 0; k < count; ++k) {
          const std::vector<node_t> path = sample_walk(c.model, p, first + k);
          const auto start_visits = std::count(path.begin(), path.end(), path[0]);
          const auto again = std::find(path.begin() + 1, path.end(), path[0]);
          const std::int64_t first_return = again == path.end() ? 0 : again - path.begin();
          const kernels::walk::WalkStepSummary& s = out[static_cast<std::size_t>(k)];
          ASSERT_EQ(s.end, path.back()) << label << ", run " << first + k;
          ASSERT_EQ(s.start_visits, start_visits) << label << ", run " << first + k;
          ASSERT_EQ(s.first_return, first_return) << label << ", run " << first + k;
        }
      }
      EXPECT_EQ(engine->visits(), cpu.visits) << label;
    }
  }
}

// walk_sim with statistics visits on CUDA runs the stepping engine (walk_steps_cuda, docs/cuda_backend.md
// "Walk engine for throughput"): the visit totals of the CPU's full run of the same walks, nothing else; the
// CPU's visits mode gives the same totals.
TEST(WalkSimCuda, VisitsOnlyRunsTheSteppingEngine) {
  NETDP_NEEDS_CUDA_DEVICE();
  const std::vector<WalkCase> cases = {
      {"complete n = 40", complete_walk(40), {StartKind::uniform, 0}},
      {"uniform ER", make_walk_model("er:n=60,p=0.1,seed=3", "uniform"), {StartKind::node, 5}},
      {"metropolis ER", make_walk_model("er:n=60,p=0.1,seed=3", "metropolis"), {StartKind::stationary, 0}},
      {"directed ring", directed_ring_walk(17), {StartKind::uniform, 0}}};
  for (const WalkCase& c : cases) {
    WalkSimParams p = plain(1500, 21, DeviceKind::cpu);
    p.start = c.start;
    const WalkSimResult full = walk_sim(c.model, p);
    p.statistics = WalkStatistics::visits;
    const WalkSimResult cpu = walk_sim(c.model, p);
    EXPECT_EQ(cpu.engine, "cpu") << c.what;
    EXPECT_EQ(cpu.visits, full.visits) << c.what;
    EXPECT_TRUE(cpu.returns.empty()) << c.what;
    for (std::int64_t batch : {std::int64_t{0}, std::int64_t{1}, std::int64_t{8}}) {
      const std::string label = c.what + ", batch " + std::to_string(batch);
      p.device = {DeviceKind::cuda, 0};
      p.batch_runs = batch;
      const WalkSimResult gpu = walk_sim(c.model, p);
      EXPECT_EQ(gpu.engine, "cuda stepping") << label;
      EXPECT_EQ(gpu.visits, full.visits) << label;
      EXPECT_TRUE(gpu.returns.empty() && gpu.hits.empty() && gpu.visit_counts.empty()) << label;
      EXPECT_EQ(gpu.batches, batch == 0 ? 1 : (p.runs + batch - 1) / batch) << label;
      p.device = {DeviceKind::cpu, 0};
    }
  }
  // The full statistics stay on the statistics engine.
  WalkSimParams p = plain(100, 3, DeviceKind::cuda);
  EXPECT_EQ(walk_sim(complete_walk(10), p).engine, "cuda statistics");
}

// CPU and CUDA accounting of the same walks (docs/walk_sim.md "CUDA (accounted walks)"): integer results
// exactly, the per-cycle sums bit for bit (same table, same order), so the losses differ only by the
// device's libm in C4 (and the noise's log / sin): relative 1e-10 is far above that and far below any bug.
void expect_near(double cpu, double gpu, const std::string& what) {
  EXPECT_NEAR(gpu, cpu, 1e-10 * std::max(1.0, std::fabs(cpu))) << what;
}

void expect_same_stats(const LossStats& a, const LossStats& b, const std::string& what) {
  EXPECT_EQ(a.weight, b.weight) << what;
  expect_near(a.mean(), b.mean(), what + " mean");
  expect_near(a.min, b.min, what + " min");
  expect_near(a.max, b.max, what + " max");
}

void expect_same_accounting(const WalkModel& m, WalkSimParams p, const std::string& what,
                            const DistanceCounts* distances = nullptr) {
  p.device = {DeviceKind::cpu, 0};
  const WalkSimResult cpu = walk_sim(m, p, distances);
  for (std::int64_t batch : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, p.runs}) {
    p.device = {DeviceKind::cuda, 0};
    p.batch_runs = batch;
    const WalkSimResult gpu = walk_sim(m, p, distances);
    const std::string label = what + ", batch " + std::to_string(batch);
    EXPECT_EQ(gpu.device.substr(0, 4), "cuda") << label;
    EXPECT_EQ(cpu.visits, gpu.visits) << label;
    EXPECT_EQ(cpu.cycles, gpu.cycles) << label;
    EXPECT_EQ(cpu.visit_counts, gpu.visit_counts) << label;
    expect_same_stats(cpu.network, gpu.network, label + ", network");
    expect_same_stats(cpu.local, gpu.local, label + ", local");
    ASSERT_EQ(cpu.by_distance.size(), gpu.by_distance.size()) << label;
    for (std::size_t d = 1; d < cpu.by_distance.size(); ++d)
      expect_same_stats(cpu.by_distance[d], gpu.by_distance[d], label + ", distance " + std::to_string(d));
    ASSERT_EQ(cpu.observer_loss.size(), gpu.observer_loss.size()) << label;
    for (std::size_t v = 0; v < cpu.observer_loss.size(); ++v) {
      expect_near(cpu.observer_loss[v], gpu.observer_loss[v], label + ", observer " + std::to_string(v));
      EXPECT_EQ(cpu.node_local[v], gpu.node_local[v]) << label << ", node " << v;
    }
    // Quantiles: the sketch's bin of a value near a bin edge may differ by one (relative width 2e-4).
    ASSERT_EQ(cpu.network_quantiles.size(), gpu.network_quantiles.size()) << label;
    for (std::size_t i = 0; i < cpu.network_quantiles.size(); ++i)
      EXPECT_NEAR(gpu.network_quantiles[i].second, cpu.network_quantiles[i].second,
                  4.001e-4 * cpu.network_quantiles[i].second)
          << label << ", quantile " << cpu.network_quantiles[i].first;
    ASSERT_EQ(cpu.utility.size(), gpu.utility.size()) << label;
    for (std::size_t r = 0; r < cpu.utility.size(); ++r) {
      EXPECT_EQ(cpu.utility[r].truth, gpu.utility[r].truth) << label << ", run " << r;
      EXPECT_EQ(cpu.utility[r].noises, gpu.utility[r].noises) << label << ", run " << r;
      EXPECT_NEAR(gpu.utility[r].estimate, cpu.utility[r].estimate, 1e-12 * cpu.utility[r].noises)
          << label << ", run " << r;
    }
  }
}

WalkSimParams accounted(std::int64_t steps, std::int64_t runs) {
  WalkSimParams p = plain(steps, runs, DeviceKind::cuda);
  p.accounting = true;
  return p;
}

TEST(WalkSimCuda, AccountingOnTheCompleteGraphMatchesTheCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  WalkSimParams p = accounted(5000, 20);  // T = 100 n, the Fig. 7.1b setting at n = 50
  expect_same_accounting(complete_walk(50), p, "complete, known view");
  p.view = WalkView::hidden;
  expect_same_accounting(complete_walk(50), p, "complete, hidden view");
  p.view = WalkView::known;
  p.mechanism = WalkMechanism::histogram;
  p.start = {StartKind::uniform, 0};
  expect_same_accounting(complete_walk(50), p, "complete, histogram, uniform start");
  // n = 2: every step is a self-loop or a swap, the receiver/sender corner cases of RunAccountant::cycle.
  expect_same_accounting(complete_walk(2), accounted(3000, 9), "complete n = 2");
}

TEST(WalkSimCuda, AccountingOnCsrGraphsMatchesTheCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const char* weights : {"uniform", "lazy-uniform", "metropolis"}) {
    Graph g;
    const WalkModel m = make_walk_model("er:n=60,p=0.1,seed=3", weights, &g);
    DistanceCounts distances;
    ASSERT_TRUE(distance_counts(g, distances, std::int64_t{1} << 20));
    WalkSimParams p = accounted(6000, 13);
    p.start = {StartKind::stationary, 0};
    expect_same_accounting(m, p, std::string(weights) + ", with distances", &distances);
  }
}

TEST(WalkSimCuda, AccountingOnTheDirectedRingMatchesTheCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  // The ring's utility adds noise once every n - 1 hops (Alg 5.1).
  expect_same_accounting(directed_ring_walk(17), accounted(1700, 11), "directed ring");
}

TEST(WalkSimCuda, AccountingBeyondTheCycleTable) {
  NETDP_NEEDS_CUDA_DEVICE();
  // T - 1 > 2^20 on n = 2 * 10^6: most first visits come after position 2^20, and a first visit at t closes
  // a cycle of t positions, longer than the host's table: the device's Gaussian formula takes over.
  expect_same_accounting(complete_walk(2'000'000), accounted((std::int64_t{1} << 20) + 4000, 2),
                         "complete n = 2e6, long cycles");
}

TEST(WalkSimCuda, CpuOnlyRequests) {
  NETDP_NEEDS_CUDA_DEVICE();
  WalkSimParams p = accounted(100, 2);
  p.save_paths = true;
  EXPECT_THROW(walk_sim(complete_walk(10), p), InvalidInput);
  p = accounted((std::int64_t{1} << 20) + 2, 1);
  p.mechanism = WalkMechanism::histogram;
  EXPECT_THROW(walk_sim(complete_walk(10), p), InvalidInput);
  p.device = {DeviceKind::automatic, 0};
  p.steps = 200;  // short enough for the CPU, still refused above; auto now takes the GPU
  EXPECT_EQ(walk_sim(complete_walk(10), p).device.substr(0, 4), "cuda");
  p.save_paths = true;
  const WalkSimResult r = walk_sim(complete_walk(10), p);
  EXPECT_EQ(r.device.substr(0, 3), "cpu");
  EXPECT_NE(r.device_note.find("CPU only"), std::string::npos) << r.device_note;
}

}  // namespace
}  // namespace netdp
