// CUDA backend of the gossip simulator (sync, accelerated: MATH_SPEC 6.1-6.2, 2.4) against the CPU, the
// oracle (DESIGN principle 1): random sparse and dense graphs, D = 1 and 3, several batch sizes, every
// curve (mean and standard error, to the true and to the noisy average) within relative error 1e-10. The
// noise is drawn on the device from the same Philox words (principle 2), so e(0) checks it. Skipped where
// no CUDA device answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netdp/device.hpp"
#include "netdp/error.hpp"
#include "netdp/gossip_sim.hpp"
#include "netdp/graph.hpp"
#include "netdp/graph_generators.hpp"
#include "netdp/sparse_matrix.hpp"
#include "netdp/weighting.hpp"
#include "support/test_support.hpp"

namespace {

using netdp::DeviceKind;
using netdp::GossipProtocol;
using netdp::GossipSimParams;
using netdp::GossipSimResult;
using netdp::Graph;
using netdp::InitKind;

constexpr double kTolerance = 1e-10;

using netdp::testing::max_relative_error;

GossipSimParams params(GossipProtocol protocol, int dim, InitKind init, std::int64_t runs, int steps) {
  GossipSimParams p;
  p.protocol = protocol;
  p.dim = dim;
  p.init.kind = init;
  p.runs = runs;
  p.steps = steps;
  p.sigma = 0.5;
  p.seed = 20240611;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

/// CPU and GPU curves of the same simulation, the GPU with each of `batches` (0 = from the memory).
void expect_same_curves(const Graph& g, GossipSimParams p, const std::vector<std::int64_t>& batches) {
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  const std::vector<double> x = netdp::initial_values(g.n, p);
  const GossipSimResult cpu = netdp::gossip_sim(g, w, x, p);
  for (std::int64_t batch : batches) {
    GossipSimParams q = p;
    q.device = {DeviceKind::cuda, 0};
    q.batch_runs = batch;
    const GossipSimResult gpu = netdp::gossip_sim(g, w, x, q);
    const std::string what = netdp::to_string(p.protocol) + ", D = " + std::to_string(p.dim) + ", batch " +
                             std::to_string(batch) + ", n = " + std::to_string(g.n);
    ASSERT_EQ(gpu.t, cpu.t) << what;
    EXPECT_EQ(gpu.gamma, cpu.gamma) << what;
    EXPECT_LE(max_relative_error(gpu.mean, cpu.mean), kTolerance) << what;
    EXPECT_LE(max_relative_error(gpu.std_error, cpu.std_error), kTolerance) << what;
    EXPECT_LE(max_relative_error(gpu.noisy_mean, cpu.noisy_mean), kTolerance) << what;
    EXPECT_LE(max_relative_error(gpu.noisy_std_error, cpu.noisy_std_error), kTolerance) << what;
    EXPECT_NE(gpu.device.find("cuda"), std::string::npos) << gpu.device;
    if (batch > 0) {
      EXPECT_EQ(gpu.batch_runs, std::min(batch, p.runs)) << what;
    }
  }
}

TEST(GossipSimCuda, SyncMatchesCpuOnRandomGraphs) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (std::uint64_t seed : {1u, 2u}) {
    const Graph g = netdp::erdos_renyi_graph(90, 0.08, seed);
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::sync, dim, InitKind::normal, 23, 12);
      expect_same_curves(g, p, {1, 5, 23, 0});
    }
  }
}

TEST(GossipSimCuda, AcceleratedMatchesCpuOnRandomGraphs) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (std::uint64_t seed : {3u, 4u}) {
    const Graph g = netdp::erdos_renyi_graph(90, 0.08, seed);
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::accelerated, dim, InitKind::uniform, 17, 10);
      p.record_every = 3;
      expect_same_curves(g, p, {1, 4, 0});
    }
  }
}

TEST(GossipSimCuda, ZeroInitOddValueCountAndDenseW) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  // n D odd: the last Box-Muller pair gives one value. A dense graph takes the DGEMM path (density > 1/4).
  const Graph sparse = netdp::erdos_renyi_graph(41, 0.15, 7);
  const Graph dense = netdp::erdos_renyi_graph(40, 0.6, 8);
  for (auto protocol : {GossipProtocol::sync, GossipProtocol::accelerated}) {
    expect_same_curves(sparse, params(protocol, 3, InitKind::zero, 9, 6), {2, 0});
    expect_same_curves(dense, params(protocol, 1, InitKind::normal, 9, 6), {4, 0});
  }
  auto one_run = params(GossipProtocol::sync, 1, InitKind::normal, 1, 5);  // standard errors are NaN
  expect_same_curves(sparse, one_run, {0});
  one_run.sigma = 0;  // no noise: x^0 = x on both devices
  expect_same_curves(sparse, one_run, {0});
}

TEST(GossipSimCuda, TooSmallMemory) {
  if (netdp::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Graph g = netdp::erdos_renyi_graph(30, 0.2, 9);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  auto p = params(GossipProtocol::sync, 1, InitKind::normal, 4, 5);
  const std::vector<double> x = netdp::initial_values(g.n, p);
  p.device = {DeviceKind::cuda, 0};
  p.memory_limit = 1000;
  EXPECT_THROW(netdp::gossip_sim(g, w, x, p), netdp::InsufficientMemory);
}

}  // namespace
