#pragma once
// The emulated device's block launcher (the CUDA one is kernels/cuda/walk_sim_launch.cuh): the same bodies
// under host_for_each_block, block memory in a host vector per block. Done when the call returns.
#include <cuda_runtime.h>

#include <cstdint>

#include "common/walk_sim_visit_stats.hpp"

namespace netdp::kernels::walk_device {
namespace {

constexpr std::int64_t kBlockBytes = 96 * 1024;  // as on the device: the same plans

template <class Body>
void for_each_block(std::int64_t count, int blocks, int threads, const Body& body, cudaStream_t) {
  if (count > 0) walk::host_for_each_block(count, blocks, threads, body);
}

}  // namespace
}  // namespace netdp::kernels::walk_device
