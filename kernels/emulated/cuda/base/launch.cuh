#pragma once
// The emulated device's launchers (the CUDA ones are in kernels/cuda/base/launch.cuh): the same
// single-source bodies, run on the host threads by host_for_each, with the launch constants the engines
// plan with. Work queued "on a stream" is done when the call returns.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/for_each.hpp"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {
namespace {

/// Threads per block of every kernel, as on the device (the reductions' trees have this width).
constexpr int kThreads = 256;

/// body(i) for i in [0, count).
template <class Body>
void for_each(std::int64_t count, const Body& body, cudaStream_t) {
  if (count > 0) host_for_each(count, body);
}

}  // namespace
}  // namespace netdp::kernels::cuda
