#pragma once
// CPU-against-CUDA comparison of gossip-sim runs, shared by the CUDA suites of the fixed-W and time-varying
// protocols (docs/design.md principle 1: the CPU is the oracle; every curve within 1e-10 relative to the
// larger of the value and the curve's start: max_error_with_start_floor).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "support/test_support.hpp"

namespace netdp::testing {

inline constexpr double kCudaCurveTolerance = 1e-10;

/// A CPU run of `protocol` with sigma 0.5 and dropout probability 0.3 (used by the dropout protocol only).
inline GossipSimParams gossip_params(GossipProtocol protocol, int dim, InitKind init, std::int64_t runs,
                                     int steps, std::uint64_t seed) {
  GossipSimParams p;
  p.protocol = protocol;
  p.dim = dim;
  p.init.kind = init;
  p.runs = runs;
  p.steps = steps;
  p.sigma = 0.5;
  p.seed = seed;
  p.dropout = 0.3;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

/// The CPU's result of p on g (metropolis W), then the GPU's with each of `batches` (0 = from the memory):
/// the same recorded times, gamma and batch counts, and the same curves. Returns the CPU's result.
inline GossipSimResult expect_cuda_curves(const Graph& g, const GossipSimParams& p,
                                          const std::vector<std::int64_t>& batches) {
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  const std::vector<double> x = initial_values(g.n, p);
  const GossipSimResult cpu = gossip_sim(g, w, x, p);
  for (std::int64_t batch : batches) {
    GossipSimParams q = p;
    q.device = {DeviceKind::cuda, 0};
    q.batch_runs = batch;
    const GossipSimResult gpu = gossip_sim(g, w, x, q);
    const std::string what = to_string(p.protocol) + ", D = " + std::to_string(p.dim) + ", batch " +
                             std::to_string(batch) + ", n = " + std::to_string(g.n);
    EXPECT_NE(gpu.device.find("cuda"), std::string::npos) << gpu.device;
    if (batch > 0) {
      EXPECT_EQ(gpu.batch_runs, std::min(batch, p.runs)) << what;
    }
    EXPECT_EQ(gpu.batches, (p.runs + gpu.batch_runs - 1) / gpu.batch_runs) << what;
    EXPECT_EQ(gpu.gamma, cpu.gamma) << what;
    EXPECT_EQ(gpu.t, cpu.t) << what;
    if (gpu.t != cpu.t) continue;
    EXPECT_LE(max_error_with_start_floor(gpu.mean, cpu.mean), kCudaCurveTolerance) << what;
    EXPECT_LE(max_error_with_start_floor(gpu.std_error, cpu.std_error), kCudaCurveTolerance) << what;
    EXPECT_LE(max_error_with_start_floor(gpu.noisy_mean, cpu.noisy_mean), kCudaCurveTolerance) << what;
    EXPECT_LE(max_error_with_start_floor(gpu.noisy_std_error, cpu.noisy_std_error), kCudaCurveTolerance)
        << what;
  }
  return cpu;
}

}  // namespace netdp::testing
