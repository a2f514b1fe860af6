// CUDA backend of the gossip simulator (sync, accelerated: docs/math.md §6.1-6.2, 2.4) against the CPU, the
// oracle (docs/design.md principle 1): random sparse and dense graphs, D = 1 and 3, several batch sizes,
// every curve (mean and standard error, to the true and to the noisy average) within relative error 1e-10.
// The noise is drawn on the device from the same Philox words (principle 2), so e(0) checks it. Skipped where
// no CUDA device answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "support/cuda_required.hpp"
#include "support/gossip_sim_cuda_compare.hpp"
#include "support/test_support.hpp"

namespace {

using netdp::DeviceKind;
using netdp::GossipProtocol;
using netdp::GossipSimParams;
using netdp::Graph;
using netdp::InitKind;

GossipSimParams params(GossipProtocol protocol, int dim, InitKind init, std::int64_t runs, int steps) {
  return netdp::testing::gossip_params(protocol, dim, init, runs, steps, 20240611);
}

using netdp::testing::expect_cuda_curves;

TEST(GossipSimCuda, SyncMatchesCpuOnRandomGraphs) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (std::uint64_t seed : {1u, 2u}) {
    const Graph g = netdp::erdos_renyi_graph(90, 0.08, seed);
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::sync, dim, InitKind::normal, 23, 12);
      expect_cuda_curves(g, p, {1, 5, 23, 0});
    }
  }
}

TEST(GossipSimCuda, AcceleratedMatchesCpuOnRandomGraphs) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (std::uint64_t seed : {3u, 4u}) {
    const Graph g = netdp::erdos_renyi_graph(90, 0.08, seed);
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::accelerated, dim, InitKind::uniform, 17, 10);
      p.record_every = 3;
      expect_cuda_curves(g, p, {1, 4, 0});
    }
  }
}

TEST(GossipSimCuda, ZeroInitOddValueCountAndDenseW) {
  NETDP_NEEDS_CUDA_DEVICE();
  // n D odd: the last Box-Muller pair gives one value. A dense graph takes the DGEMM path (density > 1/4).
  const Graph sparse = netdp::erdos_renyi_graph(41, 0.15, 7);
  const Graph dense = netdp::erdos_renyi_graph(40, 0.6, 8);
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated}) {
    expect_cuda_curves(sparse, params(protocol, 3, InitKind::zero, 9, 6), {2, 0});
    expect_cuda_curves(dense, params(protocol, 1, InitKind::normal, 9, 6), {4, 0});
  }
  auto one_run = params(GossipProtocol::sync, 1, InitKind::normal, 1, 5);  // standard errors are NaN
  expect_cuda_curves(sparse, one_run, {0});
  one_run.sigma = 0;  // no noise: x^0 = x on both devices
  expect_cuda_curves(sparse, one_run, {0});
}

#if defined(NETDP_EMULATED_DEVICE)
// On the emulated device the node-major engine runs the bodies the GPU runs, with the host's libm: the
// warp-per-row step sums every row in the CPU's CSR order, the Chebyshev step and the node-order errors
// round as the CPU does, so every curve is the CPU's bit for bit, whatever the batch (on a GPU the noise
// differs by the device's log / sin / cos, hence the tolerance of the cases above). The dense W takes the
// emulated DGEMM, which is the CPU's product too.
TEST(GossipSimCuda, EmulatedFixedWCurvesAreTheCpusBitForBit) {
  const Graph sparse = netdp::erdos_renyi_graph(64, 0.1, 5);
  const Graph dense = netdp::erdos_renyi_graph(33, 0.6, 6);
  for (const Graph* g : {&sparse, &dense})
    for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated})
      for (int dim : {1, 3}) {
        auto p = params(protocol, dim, InitKind::normal, 11, 9);
        p.record_every = 2;
        const netdp::CsrMatrix w = netdp::gossip_matrix(*g, netdp::Weighting::metropolis);
        const std::vector<double> x = netdp::initial_values(g->n, p);
        const netdp::GossipSimResult cpu = netdp::gossip_sim(*g, w, x, p);
        for (std::int64_t batch : {1, 4, 0}) {
          auto q = p;
          q.device = {DeviceKind::cuda, 0};
          q.batch_runs = batch;
          const netdp::GossipSimResult gpu = netdp::gossip_sim(*g, w, x, q);
          const std::string what = to_string(protocol) + ", n = " + std::to_string(g->n) +
                                   ", D = " + std::to_string(dim) + ", batch " + std::to_string(batch);
          EXPECT_EQ(gpu.mean, cpu.mean) << what;
          EXPECT_EQ(gpu.std_error, cpu.std_error) << what;
          EXPECT_EQ(gpu.noisy_mean, cpu.noisy_mean) << what;
          EXPECT_EQ(gpu.noisy_std_error, cpu.noisy_std_error) << what;
        }
      }
}
#endif

TEST(GossipSimCuda, TooSmallMemory) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(30, 0.2, 9);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  auto p = params(GossipProtocol::sync, 1, InitKind::normal, 4, 5);
  const std::vector<double> x = netdp::initial_values(g.n, p);
  p.device = {DeviceKind::cuda, 0};
  p.memory_limit = 1000;
  EXPECT_THROW(netdp::gossip_sim(g, w, x, p), netdp::InsufficientMemory);
}

}  // namespace
