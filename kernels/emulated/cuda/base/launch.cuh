#pragma once
// The emulated device's launchers (the CUDA ones are in kernels/cuda/base/launch.cuh): the same
// single-source bodies, run on the host threads by host_for_each, with the launch constants the engines
// plan with. Work queued "on a stream" is done when the call returns.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/for_each.hpp"
#include "common/gossip_spmm_bodies.hpp"  // kHostParallelEntries
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {
namespace {

/// Threads per block of every kernel, as on the device (the reductions' trees have this width).
constexpr int kThreads = 256;

/// body(i) for i in [0, count): below kHostParallelEntries on the calling thread, as host_for_each_row does
/// (common/gossip_spmm_bodies.hpp: on a loaded machine a parallel region per small launch costs more than
/// the work, and between the serial row launches the team's threads fall asleep and must be woken for it).
template <class Body>
void for_each(std::int64_t count, const Body& body, cudaStream_t) {
  if (count >= kHostParallelEntries) {
    host_for_each(count, body);
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) body(i);
}

}  // namespace
}  // namespace netdp::kernels::cuda
