#pragma once
// The emulated device's block launcher (the CUDA one is kernels/cuda/walk_sim_launch.cuh): the same bodies
// under host_for_each_block, block memory in a host vector per block. Done when the call returns.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/walk_sim_visit_stats.hpp"

namespace netdp::kernels::walk_device {
namespace {

constexpr std::int64_t kBlockBytes = 96 * 1024;  // as on the device: the same plans

/// The CUDA launcher's resident_blocks for an H100-like device (132 SMs of 228 KiB shared memory, at most
/// 2048 threads each, 1 KiB reserved per block), so that the plans take the same occupancy-bounded grids.
template <class Body>
std::int64_t resident_blocks(std::size_t bytes, int threads, int) {
  const std::int64_t by_memory = (228 * 1024) / (static_cast<std::int64_t>(bytes) + 1024);
  return 132 * std::max<std::int64_t>(1, std::min<std::int64_t>(by_memory, 2048 / threads));
}

template <class Body>
void for_each_block(std::int64_t count, int blocks, int threads, const Body& body, cudaStream_t) {
  if (count > 0) walk::host_for_each_block(count, blocks, threads, body);
}

}  // namespace
}  // namespace netdp::kernels::walk_device
