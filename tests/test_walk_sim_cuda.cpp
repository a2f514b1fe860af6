// CUDA plain walks (docs/walk_sim.md "CUDA"): the same seed gives exactly the CPU's visit statistics (same
// Philox words and integer maths, DESIGN principle 2) on the complete graph, CSR walks and the directed ring,
// for several batch sizes and every start rule. Skipped where no CUDA device answers.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "netdp/device.hpp"
#include "netdp/error.hpp"
#include "netdp/walk_sim.hpp"

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
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const WalkModel m = complete_walk(50);
  WalkSimParams p = plain(3000, 40, DeviceKind::cuda);
  expect_same_walks(m, p, "complete, node start");
  p.start = {StartKind::uniform, 0};
  expect_same_walks(m, p, "complete, uniform start");
  // n = 3 keeps Lemire rejections (and the retry stream) frequent enough to be exercised.
  expect_same_walks(complete_walk(3), plain(100000, 9, DeviceKind::cuda), "complete n = 3");
}

TEST(WalkSimCuda, CsrWalksMatchTheCpu) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
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
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  WalkSimParams p = plain(1000, 12, DeviceKind::cuda);
  p.start = {StartKind::uniform, 0};
  expect_same_walks(directed_ring_walk(17), p, "directed ring");
}

TEST(WalkSimCuda, VisitCountsAboveTheDenseCap) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  // T > 2^20 on n = 2: both nodes pass the dense visit-count bins (the sparse path of either backend).
  expect_same_walks(complete_walk(2), plain((std::int64_t{1} << 20) + 5000, 3, DeviceKind::cuda),
                    "complete n = 2, long walks");
}

TEST(WalkSimCuda, AccountingIsCpuOnly) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  WalkSimParams p = plain(100, 2, DeviceKind::cuda);
  p.accounting = true;
  EXPECT_THROW(walk_sim(complete_walk(10), p), InvalidInput);
  p.device = {DeviceKind::automatic, 0};
  const WalkSimResult r = walk_sim(complete_walk(10), p);
  EXPECT_EQ(r.device.substr(0, 3), "cpu");
  EXPECT_NE(r.device_note.find("CPU only"), std::string::npos) << r.device_note;
}

}  // namespace
}  // namespace netdp
