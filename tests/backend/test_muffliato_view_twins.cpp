// The exact accountant of linear Muffliato-GD runs, its twins byte for byte (docs/cuda_backend.md "Muffliato
// exact twins"): the CPU twin (muffliato_view_twin_cpu, whole rows and contiguous slots) and the CUDA twin
// (kernels/cuda/muffliato_view_cuda.cu, one entry or one observer per thread, interleaved slots) run the
// bodies of common/muffliato_view_bodies.hpp, so their shares and reports must be equal to the last bit; and
// the library's shares through either device agree with the CPU's production engine to rounding. Built twice
// (tests/CMakeLists.txt, label twins): against the backend of the build (skipped where no CUDA device
// answers; on a GPU the bytes must agree too) and as *_emulated against the emulated device (label
// device-bodies).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "muffliato_view_kernels.hpp"
#include "netdp/accounting/muffliato_exact.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "support/cuda_required.hpp"
#include "support/gossip_schedules.hpp"
#include "support/twins_compare.hpp"

namespace netdp {
namespace {

struct Shares {
  std::vector<double> share;
  std::vector<kernels::GossipViewObserver> reports;
};

struct Setting {
  int rounds = 3, gossip_steps = 2;
  double state_factor = 1;
  bool knows_noise = true, same_shift = true;
  std::int64_t source = -1;
  std::vector<double> gammas = {1.2};
};

/// Both twins on `s` (memory_limit forces batches on the CUDA twin); the number of its batches in *batches.
std::pair<Shares, Shares> both_twins(const GossipSchedule& s, const Setting& c, std::int64_t memory_limit,
                                     std::int64_t* batches) {
  const kernels::MuffliatoViewProblem problem{ScheduleView(s), c.gammas,      c.rounds,     c.gossip_steps,
                                              c.state_factor,  c.knows_noise, c.same_shift, c.source};
  const kernels::MuffliatoViewPlan plan = kernels::muffliato_view_plan(problem);
  std::vector<RoundView> rounds;
  std::vector<std::int64_t> capacities;
  const kernels::MuffliatoViewArrays arrays =
      kernels::muffliato_view_arrays(problem, plan, rounds, capacities);
  const std::size_t entries = c.source >= 0 ? std::size_t(s.n) : std::size_t(s.n) * std::size_t(s.n);
  Shares cpu{std::vector<double>(entries, 0.0), std::vector<kernels::GossipViewObserver>(std::size_t(s.n))};
  Shares cuda = cpu;
  kernels::muffliato_view_twin_cpu(arrays, cpu.share.data(), cpu.reports.data());
  *batches =
      kernels::muffliato_view_cuda(arrays, 0, memory_limit, cuda.share.data(), cuda.reports.data()).batches;
  return {cpu, cuda};
}

void expect_same(const Shares& cpu, const Shares& cuda, const std::string& what) {
  testing::expect_same_bytes(cpu.share, cuda.share, what + ", shares");
  testing::expect_same_reports(cpu.reports, cuda.reports, what);
}

GossipSchedule er_rounds(node_t n, double c, int steps, std::uint64_t seed) {
  std::vector<Graph> graphs;
  for (int t = 0; t < steps; ++t)
    graphs.push_back(
        erdos_renyi_graph(n, std::min(1.0, c / double(n)), seed + static_cast<std::uint64_t>(t)));
  return testing::synchronous(graphs);
}

TEST(MuffliatoViewTwins, SharesAndReportsAreTheSameBytes) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule varying = er_rounds(14, 3.0, 3, 21),
                       ring = testing::constant_schedule(ring_graph(9), 3),
                       star = testing::constant_schedule(star_graph(8), 4);
  int compared = 0;
  for (const GossipSchedule* s : {&varying, &ring, &star})
    for (bool knows : {true, false})
      for (bool same : {true, false})
        for (std::int64_t source : {std::int64_t{-1}, std::int64_t{1}}) {
          if (source >= 0 && !(knows && same)) continue;  // one source case per schedule
          Setting c;
          c.rounds = s == &star ? 4 : 3;
          c.gossip_steps = s == &ring ? 1 : 3;
          c.state_factor = s == &varying ? 0.7 : 1.0;
          c.knows_noise = knows;
          c.same_shift = same;
          c.source = source;
          c.gammas = s == &varying ? std::vector<double>{1.1, 1.3, 1.05} : std::vector<double>{1.2};
          std::int64_t batches = 0;
          const auto [cpu, cuda] = both_twins(*s, c, 0, &batches);
          EXPECT_EQ(batches, 1);
          expect_same(cpu, cuda,
                      "n=" + std::to_string(s->n) + (knows ? " knows" : "") + (same ? " GD" : " SGD bound") +
                          " source " + std::to_string(source));
          ++compared;
        }
  EXPECT_EQ(compared, 15);
}

TEST(MuffliatoViewTwins, BatchesMoveNoBit) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule s = er_rounds(12, 3.0, 2, 4);
  Setting c;
  c.rounds = 2;
  // The three 12 x 24 coefficient buffers, the shares and the rounds take about 9 KB; a basis up to 7 KB.
  testing::expect_batches_move_no_bit(
      [&](std::int64_t limit, std::int64_t* batches) { return both_twins(s, c, limit, batches); },
      expect_same, 30000);
}

/// The library on either device: the CUDA twin against the CPU's production engine (BLAS blocks), to
/// rounding.
TEST(MuffliatoViewTwins, TheLibraryAgreesOnEitherDevice) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule s = er_rounds(13, 3.0, 3, 8);
  const std::vector<double> gammas = {1.2};
  MuffliatoExactParams p;
  p.rounds = 3;
  p.gossip_steps = 2;
  p.device = {DeviceKind::cpu, 0};
  const MuffliatoExactResult cpu = muffliato_exact_shares(s, gammas, p);
  p.device = {DeviceKind::cuda, 0};
  const MuffliatoExactResult cuda = muffliato_exact_shares(s, gammas, p);
  EXPECT_EQ(cuda.run.device.rfind("cuda:0", 0), 0U) << cuda.run.device;
  ASSERT_EQ(cpu.share.size(), cuda.share.size());
  double largest = 0;
  for (std::size_t i = 0; i < cpu.share.size(); ++i)
    largest = std::max(largest, std::abs(cpu.share[i] - cuda.share[i]));
  EXPECT_LT(largest, 1e-12);
  EXPECT_GT(*std::max_element(cuda.share.begin(), cuda.share.end()), 0.1);
  EXPECT_EQ(cpu.run.view_rank_max, cuda.run.view_rank_max);
}

TEST(MuffliatoViewTwins, TheCudaTwinRefusesBadInput) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule s = er_rounds(10, 3.0, 2, 2);
  Setting c;
  c.rounds = 2;
  const kernels::MuffliatoViewProblem problem{ScheduleView(s), c.gammas,      c.rounds,     c.gossip_steps,
                                              c.state_factor,  c.knows_noise, c.same_shift, c.source};
  const kernels::MuffliatoViewPlan plan = kernels::muffliato_view_plan(problem);
  std::vector<RoundView> rounds;
  std::vector<std::int64_t> capacities;
  kernels::MuffliatoViewArrays arrays = kernels::muffliato_view_arrays(problem, plan, rounds, capacities);
  std::vector<double> share(100);
  std::vector<kernels::GossipViewObserver> reports(10);
  // The three 10 x 20 coefficient buffers alone take 4,800 bytes.
  EXPECT_THROW(kernels::muffliato_view_cuda(arrays, 0, 4000, share.data(), reports.data()),
               InsufficientMemory);
  EXPECT_THROW(kernels::muffliato_view_cuda(arrays, 3, 0, share.data(), reports.data()), DeviceUnavailable);
  arrays.gamma_count = 2 + 1;  // neither one nor T
  EXPECT_THROW(kernels::muffliato_view_cuda(arrays, 0, 0, share.data(), reports.data()), InvalidInput);
}

}  // namespace
}  // namespace netdp
