#pragma once
// CUDA against the CPU oracle on one accountant's loss matrix (tests/backend/test_gossip_loss_cuda.cpp,
// test_walk_loss_cuda.cpp): the same parameters on both devices, entry by entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "netdp/core/device.hpp"

namespace netdp::testing {

/// `p` on device `kind` (index 0).
template <class Params>
Params on(DeviceKind kind, Params p) {
  p.device = DeviceSpec{kind, 0};
  return p;
}

/// `matrix(params, run)` on CUDA and on the CPU; the CPU oracle runs untiled and unlimited so that it does
/// not depend on the tiling under test. Expects the same size, a CPU matrix that is not all zero (a vacuous
/// comparison) and error(gpu, cpu) <= tolerance; `what` names the case. Returns the CUDA matrix.
template <class Params, class Run, class Matrix, class Error>
std::vector<double> expect_cuda_matches_cpu(const Params& p, Run* run, const std::string& what,
                                            double tolerance, Matrix&& matrix, Error&& error) {
  Params oracle = on(DeviceKind::cpu, p);
  oracle.tile_sources = 0;
  oracle.memory_limit = 0;
  const std::vector<double> cpu = matrix(oracle, static_cast<Run*>(nullptr));
  std::vector<double> gpu = matrix(on(DeviceKind::cuda, p), run);
  EXPECT_EQ(gpu.size(), cpu.size()) << what;
  if (gpu.size() != cpu.size()) return gpu;
  EXPECT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << "vacuous comparison: " << what;
  EXPECT_LE(error(gpu, cpu), tolerance) << what;
  return gpu;
}

}  // namespace netdp::testing
