// The time-varying gossip accountant's twins byte for byte (docs/cuda_backend.md "Gossip-loss-sequence
// twins"): the CPU twin (kernels/cpu/gossip_loss_sequence_cpu.cpp, whole rows per index) and the CUDA twin
// (kernels/cuda/gossip_loss_sequence_cuda.cu, one entry per thread) run the bodies of
// common/gossip_loss_sequence_bodies.hpp, so their shares must be equal to the last bit (memcmp) on every
// schedule kind, several graphs, starts and source ranges; and the library's loss rows through either device.
// Built twice (tests/CMakeLists.txt, label twins): against the backend of the build (skipped where no CUDA
// device answers; on a GPU the bytes must agree too, the bodies rounding every operation on their own and
// using no libm function but the correctly rounded sqrt) and as *_emulated against the emulated device (label
// device-bodies), so CI compares the twins without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "accounting/gossip_view_sequence.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/ground/schedule_view.hpp"
#include "support/cuda_required.hpp"
#include "support/gossip_schedules.hpp"
#include "support/twins_compare.hpp"

namespace netdp {
namespace {

using kernels::SequenceKind;
using testing::expect_same_bytes;

/// T rounds on fresh Erdos-Renyi graphs of n nodes (some rounds without edges when c is small).
GossipSchedule er_rounds(node_t n, double c, int steps, std::uint64_t seed) {
  std::vector<Graph> graphs;
  for (int t = 0; t < steps; ++t)
    graphs.push_back(
        erdos_renyi_graph(n, std::min(1.0, c / double(n)), seed + static_cast<std::uint64_t>(t), false));
  return testing::synchronous(graphs);
}

/// `steps` random ticks on K_n's edges, one in five idle (v == w).
GossipSchedule random_ticks(node_t n, int steps, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<node_t> node(0, n - 1);
  std::vector<std::pair<node_t, node_t>> ticks;
  for (int t = 0; t < steps; ++t) {
    const node_t v = node(rng);
    ticks.push_back({v, t % 5 == 4 ? v : node(rng)});
  }
  return testing::randomized(n, ticks);
}

/// The shares of both twins for one problem.
std::pair<std::vector<double>, std::vector<double>> both_twins(const GossipSchedule& s, SequenceKind kind,
                                                               int t_start, int gossip_steps, node_t first,
                                                               node_t count) {
  kernels::SequenceState st(s.n, first, count, kind != SequenceKind::randomized);
  const ScheduleView view(s);
  switch (kind) {
    case SequenceKind::synchronous:
      kernels::sequence_shares_synchronous_cpu(view, t_start, st);
      break;
    case SequenceKind::randomized:
      kernels::sequence_shares_randomized_cpu(view, t_start, st);
      break;
    case SequenceKind::muffliato_c9:
      kernels::muffliato_c9_shares_cpu(view, gossip_steps, st);
      break;
  }
  std::vector<RoundView> rounds;
  kernels::SequenceProblem p = sequence_problem(s, kind, rounds);
  p.t_start = t_start;
  p.gossip_steps = gossip_steps;
  p.first = first;
  p.count = count;
  std::vector<double> cuda(st.shares.size(), -1.0);
  const kernels::CudaSequenceRun run = kernels::gossip_loss_sequence_cuda(p, 0, 0, cuda.data());
  EXPECT_GT(run.device_bytes, 8 * std::int64_t{s.n} * s.n);
  return {st.shares, cuda};
}

TEST(GossipLossSequenceTwins, SynchronousSchedulesGiveTheSameBytes) {
  NETDP_NEEDS_CUDA_DEVICE();
  struct Case {
    GossipSchedule s;
    std::string name;
  };
  std::vector<Case> cases;
  cases.push_back({er_rounds(37, 4.0, 6, 11), "er n=37 c=4 T=6"});
  cases.push_back({er_rounds(50, 0.6, 9, 3), "er n=50 c=0.6 T=9 (sparse rounds, some without edges)"});
  cases.push_back({testing::constant_schedule(ring_graph(17), 8), "ring n=17 constant T=8"});
  cases.push_back({testing::constant_schedule(star_graph(12), 5), "star n=12 constant T=5"});
  cases.push_back({testing::constant_schedule(complete_graph(9), 4), "complete n=9 constant T=4"});
  int compared = 0;
  for (const Case& c : cases) {
    const node_t n = c.s.n;
    for (int t_start : {0, 1})
      for (const auto& [first, count] : {std::pair<node_t, node_t>{0, n}, {3, 1}, {n / 2, n - n / 2}}) {
        const auto [cpu, cuda] = both_twins(c.s, SequenceKind::synchronous, t_start, 1, first, count);
        expect_same_bytes(cpu, cuda,
                          c.name + " t_start " + std::to_string(t_start) + " sources " +
                              std::to_string(first) + "+" + std::to_string(count));
        ++compared;
      }
  }
  EXPECT_EQ(compared, 30);
}

TEST(GossipLossSequenceTwins, RandomizedTicksGiveTheSameBytes) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const auto& [n, steps, seed] : {std::tuple<node_t, int, std::uint64_t>{6, 40, 1}, {23, 300, 7}}) {
    const GossipSchedule s = random_ticks(n, steps, seed);
    for (int t_start : {0, 5})
      for (const auto& [first, count] : {std::pair<node_t, node_t>{0, n}, {2, 3}}) {
        const auto [cpu, cuda] = both_twins(s, SequenceKind::randomized, t_start, 1, first, count);
        expect_same_bytes(cpu, cuda,
                          "randomized n=" + std::to_string(n) + " t_start " + std::to_string(t_start));
      }
  }
}

TEST(GossipLossSequenceTwins, MuffliatoC9GivesTheSameBytes) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule varying = er_rounds(29, 3.0, 4, 5);
  const GossipSchedule fixed = testing::constant_schedule(ring_graph(14), 3);
  for (int K : {1, 3}) {
    for (const GossipSchedule* s : {&varying, &fixed}) {
      const auto [cpu, cuda] = both_twins(*s, SequenceKind::muffliato_c9, 0, K, 0, s->n);
      expect_same_bytes(cpu, cuda, "C.9 n=" + std::to_string(s->n) + " K=" + std::to_string(K));
      const auto [cpu0, cuda0] = both_twins(*s, SequenceKind::muffliato_c9, 0, K, 0, 1);
      expect_same_bytes(cpu0, cuda0, "C.9 source 0, K=" + std::to_string(K));
    }
  }
}

/// The library's rows through --device cpu and --device cuda (the emulated device answers as device 0).
TEST(GossipLossSequenceTwins, TheLibraryGivesTheSameRowsOnEitherDevice) {
  NETDP_NEEDS_CUDA_DEVICE();
  GossipLossParams p;
  p.accounting = GossipAccounting::theorem;
  p.alpha = 3;
  p.sigma = 1.5;
  p.sensitivity = 0.8;
  p.cap_ldp = true;
  const GossipSchedule sync = er_rounds(31, 3.0, 7, 2), ticks = random_ticks(15, 120, 4);
  // Theorem accounting: the twins give equal bytes. Exact: the CPU's production engine sums its blocks with
  // BLAS, so the library's two devices agree to rounding (the twins themselves agree to the bit, above).
  for (GossipAccounting accounting : {GossipAccounting::theorem, GossipAccounting::exact})
    for (const GossipSchedule* s : {&sync, &ticks}) {
      p.accounting = accounting;
      p.device = {DeviceKind::cpu, 0};
      const std::vector<double> cpu = gossip_loss_sequence_matrix(*s, p);
      p.device = {DeviceKind::cuda, 0};
      GossipLossRun run;
      const std::vector<double> cuda = gossip_loss_sequence_matrix(*s, p, &run);
      const std::string what = std::string(s->randomized() ? "library, randomized" : "library, synchronous") +
                               (accounting == GossipAccounting::exact ? ", exact" : ", theorem");
      EXPECT_EQ(run.device.rfind("cuda:0", 0), 0U) << run.device;
      if (accounting == GossipAccounting::theorem) {
        expect_same_bytes(cpu, cuda, what);
        continue;
      }
      ASSERT_EQ(cpu.size(), cuda.size());
      double largest = 0;
      for (std::size_t i = 0; i < cpu.size(); ++i) largest = std::max(largest, std::abs(cpu[i] - cuda[i]));
      EXPECT_LT(largest, 1e-12) << what;
      EXPECT_GT(*std::max_element(cuda.begin(), cuda.end()), 0.1) << what;
    }
  p.accounting = GossipAccounting::theorem;
  p.device = {DeviceKind::cpu, 0};
  const std::vector<double> cpu = muffliato_sgd_loss_sequence_matrix(sync, 2, p);
  p.device = {DeviceKind::cuda, 0};
  expect_same_bytes(cpu, muffliato_sgd_loss_sequence_matrix(sync, 2, p), "library, Muffliato C.9");
}

/// The exact views of `observers` by both twins (projections and reports), at a memory limit that forces
/// `limit` bytes on the CUDA twin (0: none).
struct Views {
  std::vector<double> projections;
  std::vector<kernels::GossipViewObserver> reports;
};
std::pair<Views, Views> both_view_twins(const GossipSchedule& s, int t_start, bool knows, node_t source,
                                        const std::vector<node_t>& observers, std::int64_t limit,
                                        std::int64_t* batches) {
  const ScheduleView view(s);
  const std::vector<std::int64_t> messages = kernels::sequence_messages(view, t_start);
  std::int64_t max_rank = 1;
  for (node_t v = 0; v < s.n; ++v)
    max_rank = std::max(max_rank, kernels::sequence_view_max_rank(s.n, messages[v], knows));
  const kernels::SequenceViewShape shape =
      kernels::sequence_view_shape(view, t_start, messages, knows, observers);
  std::vector<RoundView> rounds;
  kernels::SequenceViewProblem p;
  p.schedule =
      sequence_problem(s, s.randomized() ? SequenceKind::randomized : SequenceKind::synchronous, rounds);
  p.schedule.t_start = t_start;
  p.knows_noise = knows;
  p.floor = kernels::gossip_view_floor_of(s.n, max_rank);
  p.source = source;
  p.observers = observers.data();
  p.count = static_cast<std::int64_t>(observers.size());
  p.capacities = shape.capacities.data();
  p.width_capacity = shape.width_capacity;
  const std::size_t row = source >= 0 ? 1 : static_cast<std::size_t>(s.n);
  Views cpu{std::vector<double>(observers.size() * row, -1.0),
            std::vector<kernels::GossipViewObserver>(observers.size())};
  Views cuda = cpu;
  kernels::sequence_view_twin_cpu(p, cpu.projections.data(), cpu.reports.data());
  *batches =
      kernels::gossip_view_sequence_cuda(p, 0, limit, cuda.projections.data(), cuda.reports.data()).batches;
  return {cpu, cuda};
}

void expect_same_views(const Views& cpu, const Views& cuda, const std::string& what) {
  expect_same_bytes(cpu.projections, cuda.projections, what + ", entries");
  testing::expect_same_reports(cpu.reports, cuda.reports, what);
}

TEST(GossipLossSequenceTwins, ExactViewsGiveTheSameBytes) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule varying = er_rounds(26, 3.0, 5, 9),
                       ring = testing::constant_schedule(ring_graph(13), 6), ticks = random_ticks(11, 60, 3);
  std::vector<node_t> everyone_26(26), everyone_13(13), everyone_11(11), some = {0, 4, 7, 9};
  for (node_t v = 0; v < 26; ++v) everyone_26[v] = v;
  for (node_t v = 0; v < 13; ++v) everyone_13[v] = v;
  for (node_t v = 0; v < 11; ++v) everyone_11[v] = v;
  struct Case {
    const GossipSchedule* s;
    const std::vector<node_t>* observers;
    std::string name;
  };
  const std::vector<Case> cases = {{&varying, &everyone_26, "er rounds"},
                                   {&varying, &some, "er rounds, four observers"},
                                   {&ring, &everyone_13, "constant ring"},
                                   {&ticks, &everyone_11, "randomized"},
                                   {&ticks, &some, "randomized, four observers"}};
  for (const Case& c : cases)
    for (bool knows : {false, true})
      for (int t_start : {0, 1})
        for (node_t source : {node_t{-1}, node_t{2}}) {
          std::int64_t batches = 0;
          const auto [cpu, cuda] = both_view_twins(*c.s, t_start, knows, source, *c.observers, 0, &batches);
          EXPECT_EQ(batches, 1);
          expect_same_views(cpu, cuda,
                            c.name + (knows ? " knows noise" : "") + " t_start " + std::to_string(t_start) +
                                " source " + std::to_string(source));
        }
}

TEST(GossipLossSequenceTwins, ExactViewBatchesMoveNoBit) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule varying = er_rounds(24, 3.0, 4, 1);
  std::vector<node_t> everyone(24);
  for (node_t v = 0; v < 24; ++v) everyone[v] = v;
  // Two 24 x 24 products, the rounds and the ids take about 12 KB; each basis about 6 KB more.
  testing::expect_batches_move_no_bit(
      [&](std::int64_t limit, std::int64_t* batches) {
        return both_view_twins(varying, 0, true, -1, everyone, limit, batches);
      },
      expect_same_views, 40000);
}

TEST(GossipLossSequenceTwins, TheCudaTwinRefusesWhatDoesNotFit) {
  NETDP_NEEDS_CUDA_DEVICE();
  const GossipSchedule s = testing::constant_schedule(ring_graph(40), 3);
  std::vector<RoundView> rounds;
  kernels::SequenceProblem p = sequence_problem(s, SequenceKind::synchronous, rounds);
  p.count = s.n;
  std::vector<double> shares(static_cast<std::size_t>(s.n) * s.n);
  // Two 40 x 40 products alone take 25,600 bytes.
  EXPECT_THROW(kernels::gossip_loss_sequence_cuda(p, 0, 20000, shares.data()), InsufficientMemory);
  EXPECT_THROW(kernels::gossip_loss_sequence_cuda(p, 7, 0, shares.data()), DeviceUnavailable);
  p.count = s.n + 1;
  EXPECT_THROW(kernels::gossip_loss_sequence_cuda(p, 0, 0, shares.data()), InvalidInput);
}

}  // namespace
}  // namespace netdp
