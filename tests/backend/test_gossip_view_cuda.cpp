// The CUDA twin of the exact gossip accountant (kernels/cuda/gossip_view_cuda.cu) against its CPU twin
// (kernels::gossip_view_twin_cpu), byte for byte: the entries ||P_v e_u||^2 and every observer's report, on a
// ring, a grid, an Erdos-Renyi graph and a path, several horizons T, both t_start, both knowledge models, all
// pairs and one source, one batch and many (a memory limit); both against the production CPU engine to
// 1e-12; the library's `--device cuda` path (gossip_loss with exact accounting) against the CPU's. Skipped
// where no CUDA device answers; run in CI on the emulated device (docs/cuda_backend.md "The emulated
// device"), labels device-bodies and twins there, cuda and twins here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "accounting/gossip_view.hpp"
#include "common/gossip_view_bodies.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "support/cuda_required.hpp"
#include "support/test_support.hpp"
#include "support/view_cases.hpp"

namespace netdp {
namespace {

using kernels::GossipViewProblem;
using testing::empty_views;
using Views = testing::GossipViews;

std::vector<testing::ViewCase> cases() {
  return testing::view_cases(
      {.ring = 16, .grid_rows = 5, .grid_cols = 6, .er_n = 70, .er_p = 0.08, .er_seed = 11, .path = 12});
}

Views cpu_twin(const GossipViewProblem& p, const std::vector<std::int32_t>& observers, std::int64_t source) {
  Views out = empty_views(p.n, static_cast<std::int64_t>(observers.size()), source);
  kernels::gossip_view_twin_cpu(p, observers, source, out.projections, out.reports);
  return out;
}

Views cuda_twin(const GossipViewProblem& p, const std::vector<std::int32_t>& observers, std::int64_t source,
                std::int64_t memory_limit = 0) {
  const std::int64_t count = static_cast<std::int64_t>(observers.size()), row = source >= 0 ? 1 : p.n;
  Views out = empty_views(p.n, count, source);
  const auto engine = kernels::gossip_view_cuda(p, 0, observers.data(), count, source, memory_limit);
  out.run = engine->plan();
  for (std::int64_t first = 0; first < count; first += out.run.batch_observers) {
    const std::int64_t batch = std::min(out.run.batch_observers, count - first);
    engine->run_batch(first, batch, out.projections.data() + first * row, out.reports.data() + first);
  }
  return out;
}

/// Byte for byte: every entry and every report field (the reports' padding is not compared).
void expect_same_bytes(const Views& gpu, const Views& cpu, const std::string& what) {
  ASSERT_EQ(gpu.projections.size(), cpu.projections.size()) << what;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < cpu.projections.size(); ++i)
    differing += std::memcmp(&gpu.projections[i], &cpu.projections[i], sizeof(double)) != 0;
  EXPECT_EQ(differing, 0u) << what;
  for (std::size_t o = 0; o < cpu.reports.size(); ++o) {
    EXPECT_EQ(gpu.reports[o].rank, cpu.reports[o].rank) << what << " observer " << o;
    EXPECT_EQ(gpu.reports[o].dropped, cpu.reports[o].dropped) << what << " observer " << o;
    EXPECT_EQ(gpu.reports[o].below_floor, cpu.reports[o].below_floor) << what << " observer " << o;
    EXPECT_EQ(std::memcmp(&gpu.reports[o].smallest_kept, &cpu.reports[o].smallest_kept, sizeof(double)), 0)
        << what << " observer " << o;
  }
}

std::string describe(const std::string& name, const GossipViewProblem& p, std::int64_t source) {
  return name + " T=" + std::to_string(p.steps) + " t_start=" + std::to_string(p.t_start) +
         " knows_noise=" + std::to_string(p.knows_noise) + " source=" + std::to_string(source);
}

TEST(GossipViewCuda, TwinsAreByteIdentical) {
  NETDP_NEEDS_CUDA_DEVICE();
  int compared = 0;
  for (const auto& c : cases())
    for (int steps : {1, 4, 12})
      for (int t_start : {0, 1})
        for (bool noise : {false, true}) {
          const GossipViewProblem p = gossip_view_problem(c.graph.g, c.graph.w, t_start, steps, noise);
          const auto observers = testing::all_nodes(static_cast<node_t>(p.n));
          for (std::int64_t source : {std::int64_t{-1}, std::int64_t{0}, p.n / 2}) {
            const Views cpu = cpu_twin(p, observers, source), gpu = cuda_twin(p, observers, source);
            expect_same_bytes(gpu, cpu, describe(c.name, p, source));
            EXPECT_EQ(gpu.run.batches, 1) << describe(c.name, p, source);
            ++compared;
          }
        }
  EXPECT_EQ(compared, 4 * 3 * 2 * 2 * 3);
}

TEST(GossipViewCuda, BatchesAndListedObserversMoveNoBit) {
  NETDP_NEEDS_CUDA_DEVICE();
  // A memory limit that holds a few observers' slots: many batches, the same bytes; an observer list in
  // another order and with repeats gives each observer's own entries.
  const auto [g, w] = testing::with_metropolis(erdos_renyi_graph(80, 0.07, 3));
  const GossipViewProblem p = gossip_view_problem(g, w, 0, 6, true);
  const auto observers = testing::all_nodes(static_cast<node_t>(p.n));
  const Views whole = cuda_twin(p, observers, -1);
  const std::int64_t slot =
      kernels::gossip_view::slot_doubles(p.n, p.n, 16) * 8;  // more than any observer needs here
  const Views batched = cuda_twin(p, observers, -1, whole.run.device_bytes / 8 + 3 * slot);
  EXPECT_GT(batched.run.batches, 3);
  expect_same_bytes(batched, whole, "batched");
  std::vector<std::int32_t> listed = {79, 3, 41, 3, 0, 17};
  const Views some = cuda_twin(p, listed, -1), some_cpu = cpu_twin(p, listed, -1);
  expect_same_bytes(some, some_cpu, "listed");
  for (std::size_t i = 0; i < listed.size(); ++i)
    EXPECT_EQ(std::memcmp(some.projections.data() + i * p.n, whole.projections.data() + listed[i] * p.n,
                          static_cast<std::size_t>(p.n) * sizeof(double)),
              0)
        << "observer " << listed[i];
}

TEST(GossipViewCuda, TwinsAgreeWithTheProductionEngine) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const auto& c : cases())
    for (int steps : {2, 9}) {
      const GossipViewProblem p = gossip_view_problem(c.graph.g, c.graph.w, 0, steps, true);
      const auto observers = testing::all_nodes(static_cast<node_t>(p.n));
      const Views gpu = cuda_twin(p, observers, -1);
      std::vector<double> reference(static_cast<std::size_t>(p.n * p.n));
      std::vector<kernels::GossipViewObserver> reports(static_cast<std::size_t>(p.n));
      kernels::gossip_view_cpu(p, 0, p.n, -1, reference, reports);
      double worst = 0;
      for (std::size_t i = 0; i < reference.size(); ++i)
        worst = std::max(worst, std::abs(gpu.projections[i] - reference[i]));
      EXPECT_LE(worst, 1e-12) << c.name << " T=" << steps;
      for (std::int64_t o = 0; o < p.n; ++o)
        EXPECT_EQ(gpu.reports[o].rank, reports[o].rank) << c.name << " " << o;
    }
}

TEST(GossipViewCuda, LibraryRunsExactAccountingOnTheDevice) {
  NETDP_NEEDS_CUDA_DEVICE();
  // gossip_loss with exact accounting and device cuda: the CUDA twin, within 1e-12 of the CPU's production
  // engine (ldp = 1 at alpha = 2, sigma = 1), all pairs and one source, and the device named in the run.
  const auto [g, w] = testing::with_metropolis(grid_graph(4, 6));
  GossipLossParams p;
  p.accounting = GossipAccounting::exact;
  p.steps = 5;
  p.device = {DeviceKind::cpu, 0};
  const std::vector<double> cpu = gossip_loss_matrix(g, w, p);
  p.device = {DeviceKind::cuda, 0};
  GossipLossRun run;
  const std::vector<double> gpu = gossip_loss_matrix(g, w, p, &run);
  ASSERT_EQ(gpu.size(), cpu.size());
  double worst = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) worst = std::max(worst, std::abs(gpu[i] - cpu[i]));
  EXPECT_LE(worst, 1e-12);
  EXPECT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.5);
  EXPECT_NE(run.device.find("cuda"), std::string::npos) << run.device;
  EXPECT_EQ(run.view_observers, g.n);
  p.source = 7;
  const std::vector<double> one = gossip_loss_matrix(g, w, p);
  for (node_t v = 0; v < g.n; ++v) EXPECT_NEAR(one[v], cpu[7 * g.n + v], 1e-12) << v;
}

TEST(GossipViewCuda, RefusesAMemoryLimitBelowOneObserver) {
  NETDP_NEEDS_CUDA_DEVICE();
  const auto [g, w] = testing::with_metropolis(ring_graph(10));
  const GossipViewProblem p = gossip_view_problem(g, w, 0, 3, true);
  const auto observers = testing::all_nodes(static_cast<node_t>(p.n));
  EXPECT_THROW(kernels::gossip_view_cuda(p, 0, observers.data(), p.n, -1, 1000), InsufficientMemory);
}

}  // namespace
}  // namespace netdp
