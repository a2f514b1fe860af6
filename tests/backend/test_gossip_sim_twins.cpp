// The gossip simulator's twins byte for byte (docs/cuda_backend.md "Gossip-sim twins"): the CPU twin
// (kernels/cpu/gossip_sim_cpu.cpp, gossip_sim_varying_cpu.cpp) and the CUDA twin
// (kernels/cuda/gossip_sim*.cu) built for the emulated device run the same bodies of kernels/common, so for
// the same seed and inputs their per-run error buffers must be equal to the last bit (memcmp), for every
// protocol, several graphs, seeds, dimensions and batch sizes; and the library's curves through either device
// too. Built only against the emulated device (tests/CMakeLists.txt, labels device-bodies and twins): on a
// GPU the noise differs by the device's log / sin / cos, which the CUDA suites bound instead.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gossip_sim_kernels.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "simulation/gossip_sim_internal.hpp"
#include "support/twins_compare.hpp"

namespace netdp {
namespace {

using kernels::VaryingProtocol;
using testing::expect_same_bytes;

/// The inputs every run shares: x (normal init), its average, the recorded times.
struct Inputs {
  std::vector<double> x, xbar;
  std::vector<int> times;
  Inputs(node_t n, int dim, int steps, int every, std::uint64_t seed) {
    GossipSimParams p;
    p.dim = dim;
    p.seed = seed;
    p.init.kind = InitKind::normal;
    x = initial_values(n, p);
    xbar.assign(static_cast<std::size_t>(dim), 0.0);
    gossip_sim_detail::node_average(x, n, dim, xbar);
    times = gossip_sim_detail::recorded_times(steps, every);
  }
};

struct Errors {
  std::vector<double> truth, noisy;
};

/// All runs on the CPU twin, in batches of `batch`.
template <class Problem, class Twin>
Errors cpu_errors(const Problem& p, std::int64_t runs, std::int64_t batch, Twin twin) {
  const std::size_t points = p.times.size();
  Errors e{std::vector<double>(static_cast<std::size_t>(runs) * points),
           std::vector<double>(static_cast<std::size_t>(runs) * points)};
  for (std::int64_t first = 0; first < runs; first += batch) {
    const std::int64_t count = std::min(batch, runs - first);
    std::vector<double> average(static_cast<std::size_t>(count * p.dim));
    std::vector<std::int32_t> status(static_cast<std::size_t>(count));
    const std::size_t at = static_cast<std::size_t>(first) * points,
                      size = static_cast<std::size_t>(count) * points;
    const kernels::GossipSimCpuOutput out{std::span<double>(e.truth).subspan(at, size),
                                          std::span<double>(e.noisy).subspan(at, size),
                                          average,
                                          {},
                                          status};
    twin(p, false, first, count, out, std::function<bool(double)>{});
    for (std::int32_t s : status) EXPECT_EQ(s, 0);
  }
  return e;
}

/// All runs on the emulated CUDA twin, in batches of `batch`.
Errors cuda_errors(kernels::GossipSimCudaEngine& engine, std::int64_t runs, std::size_t points) {
  Errors e;
  const std::int64_t batch = engine.plan().batch_runs;
  for (std::int64_t first = 0; first < runs; first += batch) {
    const auto errors = engine.run_batch(first, std::min(batch, runs - first));
    e.truth.insert(e.truth.end(), errors.truth.begin(), errors.truth.end());
    e.noisy.insert(e.noisy.end(), errors.noisy.begin(), errors.noisy.end());
  }
  EXPECT_EQ(e.truth.size(), static_cast<std::size_t>(runs) * points);
  return e;
}

TEST(GossipSimTwins, FixedWBuffersAreTheSameBytes) {
  int cases = 0;
  for (std::uint64_t seed : {3u, 41u}) {
    for (const Graph& g : {erdos_renyi_graph(40, 0.15, seed), ring_graph(17), hypercube_graph(5)}) {
      const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
      for (bool accelerated : {false, true})
        for (int dim : {1, 3}) {
          const int steps = 25, every = accelerated ? 1 : 4;
          const Inputs in(g.n, dim, steps, every, seed);
          const kernels::GossipSimProblem p{w,   accelerated, false, steps,   dim,     0.5,
                                            1.2, seed,        in.x,  in.xbar, in.times};
          const std::int64_t runs = 11;
          for (std::int64_t batch : {std::int64_t{1}, std::int64_t{4}, runs}) {
            const Errors cpu = cpu_errors(p, runs, batch, kernels::gossip_sim_cpu);
            auto engine = kernels::gossip_sim_cuda(p, 0, runs, batch, 0);
            const Errors cuda = cuda_errors(*engine, runs, in.times.size());
            const std::string what = "n " + std::to_string(g.n) + (accelerated ? " accelerated" : " sync") +
                                     " D " + std::to_string(dim) + " batch " + std::to_string(batch) +
                                     " seed " + std::to_string(seed);
            expect_same_bytes(cpu.truth, cuda.truth, what + " truth");
            expect_same_bytes(cpu.noisy, cuda.noisy, what + " noisy");
            ++cases;
          }
        }
    }
  }
  EXPECT_EQ(cases, 72);
}

/// Three W-MH matrices on the same n nodes, so W_t changes every round.
std::vector<GossipRound> three_rounds(node_t n, std::uint64_t seed) {
  std::vector<GossipRound> rounds;
  for (Graph g : {erdos_renyi_graph(n, 0.15, seed), erdos_renyi_graph(n, 0.1, seed + 1), ring_graph(n)}) {
    CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
    rounds.push_back({std::move(w), std::move(g)});
  }
  return rounds;
}

TEST(GossipSimTwins, TimeVaryingBuffersAreTheSameBytes) {
  int cases = 0;
  for (std::uint64_t seed : {5u, 977u}) {
    const Graph base = erdos_renyi_graph(36, 0.15, seed);
    const CsrMatrix w = gossip_matrix(base, Weighting::metropolis);
    const std::vector<GossipRound> sequence = three_rounds(base.n, seed);
    std::vector<RoundView> rounds;
    for (const GossipRound& r : sequence) rounds.push_back({r.w, r.graph});
    const gossip_sim_detail::ActivationSampler sampler(base, w);
    const std::vector<node_t> edge_nodes = sampler.edge_nodes();
    for (VaryingProtocol protocol :
         {VaryingProtocol::sequence, VaryingProtocol::dropout, VaryingProtocol::er_per_round,
          VaryingProtocol::dropout_er, VaryingProtocol::randomized}) {
      for (int dim : {1, 2, 11}) {  // 11: the CPU twin's W-MH columns in chunks of 8 and 3
        const bool ticks = protocol == VaryingProtocol::randomized;
        const int steps = ticks ? 700 : 20, every = ticks ? 9 : 1;
        const Inputs in(base.n, dim, steps, every, seed);
        kernels::GossipSimVaryingProblem p{.protocol = protocol,
                                           .n = base.n,
                                           .steps = steps,
                                           .dim = dim,
                                           .sigma = 0.5,
                                           .seed = seed,
                                           .x = in.x,
                                           .xbar = in.xbar,
                                           .times = in.times};
        p.rounds = rounds;
        p.graph = base;
        p.dropout = protocol == VaryingProtocol::dropout_er ? 0.2 : 0.3;
        p.cumulative = sampler.cumulative();
        p.edge_nodes = edge_nodes;
        // er-per-round: c = 1.5 (some draws disconnected, redrawn); dropout-er: p = 0.08 (disconnected
        // rounds)
        p.edge_probability = protocol == VaryingProtocol::er_per_round ? 1.5 * std::log(36.0) / 36 : 0.08;
        const std::int64_t runs = 7;
        for (std::int64_t batch : {std::int64_t{1}, std::int64_t{3}, runs}) {
          const Errors cpu = cpu_errors(p, runs, batch, kernels::gossip_sim_varying_cpu);
          auto engine = kernels::gossip_sim_varying_cuda(p, 0, runs, batch, 0);
          const Errors cuda = cuda_errors(*engine, runs, in.times.size());
          const std::string what = "protocol " + std::to_string(int(protocol)) + " D " + std::to_string(dim) +
                                   " batch " + std::to_string(batch) + " seed " + std::to_string(seed);
          expect_same_bytes(cpu.truth, cuda.truth, what + " truth");
          expect_same_bytes(cpu.noisy, cuda.noisy, what + " noisy");
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 90);
}

/// The library's curves (gossip_sim: Welford over the runs of the twins' errors) on either device.
TEST(GossipSimTwins, LibraryCurvesAreTheSameBytesOnEitherDevice) {
  const Graph g = erdos_renyi_graph(30, 0.2, 8);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (GossipProtocol protocol :
       {GossipProtocol::sync, GossipProtocol::accelerated, GossipProtocol::dropout,
        GossipProtocol::er_per_round, GossipProtocol::dropout_er, GossipProtocol::randomized}) {
    GossipSimParams p;
    p.protocol = protocol;
    p.dim = 2;
    p.init.kind = InitKind::uniform;
    p.runs = 9;
    p.steps = protocol == GossipProtocol::randomized ? 300 : 15;
    p.sigma = 0.4;
    p.seed = 12;
    p.dropout = 0.25;
    p.edge_probability = protocol == GossipProtocol::dropout_er ? 0.1 : 0.3;
    p.device = {DeviceKind::cpu, 0};
    const std::vector<double> x = initial_values(g.n, p);
    const GossipSimResult cpu = gossip_sim(g, w, x, p);
    p.device = {DeviceKind::cuda, 0};
    const GossipSimResult cuda = gossip_sim(g, w, x, p);
    ASSERT_NE(cuda.device, cpu.device);  // the emulated device answered
    const std::string what = to_string(protocol);
    expect_same_bytes(cpu.mean, cuda.mean, what + " mean");
    expect_same_bytes(cpu.std_error, cuda.std_error, what + " stderr");
    expect_same_bytes(cpu.noisy_mean, cuda.noisy_mean, what + " noisy mean");
    expect_same_bytes(cpu.noisy_std_error, cuda.noisy_std_error, what + " noisy stderr");
  }
}

}  // namespace
}  // namespace netdp
