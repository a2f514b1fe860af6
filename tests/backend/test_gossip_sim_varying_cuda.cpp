// CUDA backend of the gossip simulator's time-varying protocols (sequence, dropout, randomized, er-per-round,
// dropout-er: docs/math.md §6.1, 6.8, 6.3, 6.4) against the CPU, the oracle (docs/design.md principle 1):
// random graphs, D = 1 and 3, batch sizes 1, 7, all and automatic, every curve within relative error 1e-10.
// The dropout masks, the activated edges and the ER graphs are drawn on the device from the CPU's Philox
// words (principle 2); a differing draw would move an error curve far beyond 1e-10, and one-run curves
// recorded at every step pin each round. Skipped where no CUDA device answers. The shared per-element maths
// (kernels/common/gossip_sim_math.hpp) and the no-device path are checked on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/gossip_sim_math.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
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
using netdp::GossipSimResult;
using netdp::Graph;
using netdp::InitKind;

bool no_device() {
  return netdp::cuda_device_count() == 0;
}

GossipSimParams params(GossipProtocol protocol, int dim, InitKind init, std::int64_t runs, int steps) {
  return netdp::testing::gossip_params(protocol, dim, init, runs, steps, 977);
}

using netdp::testing::expect_cuda_curves;

/// Three W-MH matrices on the same 30 nodes: two random graphs and a ring, so W_t changes every round.
std::shared_ptr<const std::vector<netdp::GossipRound>> three_rounds() {
  auto rounds = std::make_shared<std::vector<netdp::GossipRound>>();
  for (Graph g : {netdp::erdos_renyi_graph(30, 0.15, 11), netdp::erdos_renyi_graph(30, 0.1, 12),
                  netdp::ring_graph(30)}) {
    netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
    rounds->push_back({std::move(w), std::move(g)});
  }
  return rounds;
}

// ---- host-side checks of the shared maths (no device needed) ----

TEST(GossipSimVaryingMath, ActivatedEdgeIsUpperBound) {
  const std::vector<double> cumulative = {0.1, 0.25, 0.25, 0.5, 0.75, 0.9};
  std::vector<double> probes = {0.0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.74, 0.75, 0.8, 0.9, 0.95, 0.999};
  netdp::PhiloxStream s(5, 1);
  for (int i = 0; i < 200; ++i) probes.push_back(s.next_uniform_double());
  const auto edges = static_cast<std::int64_t>(cumulative.size());
  for (double u : probes) {
    const auto expected = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
    EXPECT_EQ(netdp::kernels::activated_edge(cumulative.data(), edges, u), expected) << u;
  }
  EXPECT_EQ(netdp::kernels::activated_edge(cumulative.data(), 0, 0.5), 0);  // no edges: idle
}

TEST(GossipSimVaryingMath, UniformFromWordsIsTheHostStream) {
  for (std::uint64_t offset : {0u, 2u, 6u, 1000u}) {
    netdp::PhiloxStream words(42, netdp::gossip_subsequence(netdp::GossipStream::dropout, 3, 7), offset);
    netdp::PhiloxStream uniforms(42, netdp::gossip_subsequence(netdp::GossipStream::dropout, 3, 7), offset);
    for (int i = 0; i < 50; ++i) {
      const std::uint32_t x = words.next_u32(), y = words.next_u32();
      EXPECT_EQ(netdp::kernels::uniform_from_words(x, y), uniforms.next_uniform_double());
    }
  }
}

TEST(GossipSimVaryingMath, MetropolisTermsRebuildGossipMatrixBitForBit) {
  // The device builds W-MH of each dropout round from these terms; the CPU's gossip_matrix is the oracle.
  const Graph g = netdp::erdos_renyi_graph(70, 0.1, 21);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  for (netdp::node_t u = 0; u < g.n; ++u) {
    const std::int32_t du = g.degree(u);
    double diagonal = du == 0 ? 1.0 : 1.0 / (1.0 + du);
    for (netdp::node_t v : g.neighbors(u)) {
      EXPECT_EQ(netdp::kernels::metropolis_weight(du, g.degree(v)), w.at(u, v));
      diagonal += netdp::kernels::metropolis_diagonal_term(du, g.degree(v));
    }
    EXPECT_EQ(diagonal, w.at(u, u)) << "node " << u;
  }
}

TEST(GossipSimVaryingCuda, NoDeviceMeansDeviceUnavailableOrCpu) {
  if (!no_device()) GTEST_SKIP() << "a CUDA device answers";
  const Graph g = netdp::erdos_renyi_graph(20, 0.3, 4);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  auto p = params(GossipProtocol::dropout, 1, InitKind::normal, 3, 4);
  p.edge_probability = 0.5;
  const std::vector<double> x = netdp::initial_values(g.n, p);
  for (auto protocol : {GossipProtocol::dropout, GossipProtocol::randomized, GossipProtocol::er_per_round,
                        GossipProtocol::dropout_er}) {
    p.protocol = protocol;  // accepted by the checks, but no device answers
    p.device = {DeviceKind::cuda, 0};
    EXPECT_THROW(netdp::gossip_sim(g, w, x, p), netdp::DeviceUnavailable) << netdp::to_string(protocol);
    p.device = {DeviceKind::automatic, 0};  // auto falls back to the CPU
    EXPECT_EQ(netdp::gossip_sim(g, w, x, p).device.find("cuda"), std::string::npos);
  }
}

// ---- CPU against CUDA ----

TEST(GossipSimVaryingCuda, SequenceMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(30, 0.15, 11);  // n and by-distance only; W_t from the list
  for (int dim : {1, 3}) {
    auto p = params(GossipProtocol::sequence, dim, InitKind::normal, 19, 8);  // 8 rounds wrap the 3 matrices
    p.sequence = three_rounds();
    expect_cuda_curves(g, p, {1, 7, 19, 0});
  }
  auto one_run = params(GossipProtocol::sequence, 2, InitKind::uniform, 1, 10);
  one_run.sequence = three_rounds();
  expect_cuda_curves(g, one_run, {0});
}

TEST(GossipSimVaryingCuda, DropoutMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (std::uint64_t seed : {1u, 2u}) {
    const Graph g = netdp::erdos_renyi_graph(60, 0.1, seed);
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::dropout, dim, InitKind::normal, 21, 9);
      expect_cuda_curves(g, p, {1, 7, 21, 0});
    }
  }
  // One run, every round recorded: each round's mask shows in its own error.
  const Graph g = netdp::erdos_renyi_graph(45, 0.12, 3);
  auto one_run = params(GossipProtocol::dropout, 1, InitKind::uniform, 1, 25);
  one_run.dropout = 0.5;
  expect_cuda_curves(g, one_run, {0});
  one_run.dropout = 0;  // nobody drops: W-MH of the whole graph every round
  expect_cuda_curves(g, one_run, {0});
}

TEST(GossipSimVaryingCuda, DropoutOfEveryNodeFreezesTheState) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(40, 0.2, 5);
  auto p = params(GossipProtocol::dropout, 2, InitKind::normal, 6, 5);
  p.dropout = 1;
  const GossipSimResult cpu = expect_cuda_curves(g, p, {4});
  p.device = {DeviceKind::cuda, 0};
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  const GossipSimResult gpu = netdp::gossip_sim(g, w, netdp::initial_values(g.n, p), p);
  for (std::size_t i = 1; i < gpu.mean.size(); ++i) {
    EXPECT_EQ(gpu.mean[i], gpu.mean[0]) << "t = " << gpu.t[i];  // the same state, the same reduction
    EXPECT_EQ(gpu.noisy_mean[i], gpu.noisy_mean[0]) << "t = " << gpu.t[i];
  }
  EXPECT_GT(cpu.mean[0], 0.0);
}

TEST(GossipSimVaryingCuda, RandomizedMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (std::uint64_t seed : {3u, 4u}) {
    const Graph g = netdp::erdos_renyi_graph(50, 0.12, seed);
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::randomized, dim, InitKind::normal, 23, 400);
      p.record_every = 7;  // 400 ticks: the per-node totals are re-summed every n = 50 ticks
      expect_cuda_curves(g, p, {1, 7, 23, 0});
    }
  }
  // One run, every tick recorded: each activation shows in its own error (idle ticks included: a star's
  // p_e = 2 W_e / n sum to 2 (n - 1) / n^2 < 1).
  const Graph star = netdp::star_graph(12);
  auto one_run = params(GossipProtocol::randomized, 2, InitKind::uniform, 1, 300);
  expect_cuda_curves(star, one_run, {0});
}

TEST(GossipSimVaryingCuda, RandomizedAcrossTickChunks) {
  NETDP_NEEDS_CUDA_DEVICE();
  // More ticks than one launch holds (2^14): the state, totals and recorded points carry across launches.
  const Graph g = netdp::erdos_renyi_graph(80, 0.08, 6);
  auto p = params(GossipProtocol::randomized, 1, InitKind::uniform, 5, 40000);
  p.record_every = 1000;
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  const std::vector<double> x = netdp::initial_values(g.n, p);
  const GossipSimResult cpu = netdp::gossip_sim(g, w, x, p);
  for (std::int64_t batch : {2, 0}) {
    auto q = p;
    q.device = {DeviceKind::cuda, 0};
    q.batch_runs = batch;
    const GossipSimResult gpu = netdp::gossip_sim(g, w, x, q);
    ASSERT_EQ(gpu.t, cpu.t) << "batch " << batch;
    EXPECT_LE(netdp::testing::max_error_with_start_floor(gpu.mean, cpu.mean),
              netdp::testing::kCudaCurveTolerance)
        << batch;
    EXPECT_LE(netdp::testing::max_error_with_start_floor(gpu.std_error, cpu.std_error),
              netdp::testing::kCudaCurveTolerance)
        << batch;
    EXPECT_LE(netdp::testing::max_error_with_start_floor(gpu.noisy_mean, cpu.noisy_mean),
              netdp::testing::kCudaCurveTolerance)
        << batch;
    EXPECT_LE(netdp::testing::max_error_with_start_floor(gpu.noisy_std_error, cpu.noisy_std_error),
              netdp::testing::kCudaCurveTolerance)
        << batch;
  }
  // The error to the run's noisy average does decay far below its start (to ~1e-32: the noisy average is
  // a fixed point of randomized gossip), the case the floor is for.
  EXPECT_LT(cpu.noisy_mean.back(), 1e-20 * cpu.noisy_mean.front());
}

TEST(GossipSimVaryingCuda, ErPerRoundMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  // The device draws each run's connected G(n, q) per round from the CPU's words (redraws included: with
  // c = 1, q = ln(n)/n, many first draws are disconnected).
  const Graph g = netdp::ring_graph(40);  // only n is used
  for (double c : {1.0, 2.5}) {
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::er_per_round, dim, InitKind::normal, 21, 8);
      p.edge_probability = c * std::log(40.0) / 40.0;
      expect_cuda_curves(g, p, {1, 7, 21, 0});
    }
  }
  auto one_run = params(GossipProtocol::er_per_round, 2, InitKind::uniform, 1, 20);
  one_run.edge_probability = 1;  // the complete graph every round: no draws at all
  expect_cuda_curves(netdp::ring_graph(9), one_run, {0});
  one_run.edge_probability = 0.3;
  expect_cuda_curves(netdp::ring_graph(9), one_run, {0});
}

TEST(GossipSimVaryingCuda, DropoutErMatchesCpu) {
  NETDP_NEEDS_CUDA_DEVICE();
  // The thesis' dropout (docs/math.md §6.8): a fresh G(n, p), p = 2/n as G(n, 0.002) on 1000 nodes, so most
  // rounds are disconnected and kept as drawn, then each node's dropout with q = 0, 0.3 and 0.9.
  const Graph g = netdp::ring_graph(60);  // only n is used
  for (double q : {0.0, 0.3, 0.9})
    for (int dim : {1, 3}) {
      auto p = params(GossipProtocol::dropout_er, dim, InitKind::normal, 21, 9);
      p.edge_probability = 2.0 / 60;
      p.dropout = q;
      expect_cuda_curves(g, p, {1, 7, 21, 0});
    }
  // One run, every round recorded: each round's graph and mask show in its own error.
  auto one_run = params(GossipProtocol::dropout_er, 2, InitKind::uniform, 1, 25);
  one_run.edge_probability = 0.1;
  one_run.dropout = 0.5;
  expect_cuda_curves(netdp::ring_graph(30), one_run, {0});
  one_run.edge_probability = 1;  // the complete graph on the active nodes: no skip drawn
  expect_cuda_curves(netdp::ring_graph(9), one_run, {0});
}

TEST(GossipSimVaryingCuda, ErPerRoundNeverConnectedIsInvalidInput) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::ring_graph(6);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  auto p = params(GossipProtocol::er_per_round, 1, InitKind::normal, 2, 3);
  p.edge_probability = 0;  // G(6, 0) is never connected: 1000 draws, then the CPU's error
  const std::vector<double> x = netdp::initial_values(g.n, p);
  EXPECT_THROW(netdp::gossip_sim(g, w, x, p), netdp::InvalidInput);
  p.device = {DeviceKind::cuda, 0};
  try {
    netdp::gossip_sim(g, w, x, p);
    ADD_FAILURE() << "no error";
  } catch (const netdp::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("disconnected in 1000 draws (run 0, round 0)"), std::string::npos)
        << e.what();
  }
}

TEST(GossipSimVaryingCuda, TooLittleMemory) {
  NETDP_NEEDS_CUDA_DEVICE();
  const Graph g = netdp::erdos_renyi_graph(30, 0.2, 9);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  for (auto protocol : {GossipProtocol::dropout, GossipProtocol::randomized, GossipProtocol::sequence,
                        GossipProtocol::er_per_round, GossipProtocol::dropout_er}) {
    auto p = params(protocol, 1, InitKind::normal, 4, 5);
    p.sequence = three_rounds();
    p.edge_probability = 0.5;
    const std::vector<double> x = netdp::initial_values(g.n, p);
    p.device = {DeviceKind::cuda, 0};
    p.memory_limit = 1000;  // not even one run
    EXPECT_THROW(netdp::gossip_sim(g, w, x, p), netdp::InsufficientMemory) << netdp::to_string(protocol);
    p.memory_limit = 64 << 10;  // a few runs fit, not a million
    p.runs = 1'000'000;
    p.batch_runs = p.runs;
    EXPECT_THROW(netdp::gossip_sim(g, w, x, p), netdp::InsufficientMemory) << netdp::to_string(protocol);
  }
}

}  // namespace
