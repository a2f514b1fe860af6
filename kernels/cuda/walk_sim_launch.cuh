#pragma once
// The block launcher of the walk engine's statistics and stepping bodies (common/walk_sim_visit_stats.hpp,
// common/walk_sim_stepping.hpp): `blocks` blocks of `threads` with the body's block memory in dynamic shared
// memory. The emulated device has a host twin of this header (kernels/emulated/cuda/walk_sim_launch.cuh).
// Included by .cu files only (internal linkage).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/walk_sim_visit_stats.hpp"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::walk_device {
namespace {

/// Shared memory a block may use: two blocks of the statistics body fit one H100 SM (228 KiB).
constexpr std::int64_t kBlockBytes = 96 * 1024;

/// body.walk(i, ...) for i in [0, count), queued on `stream`.
template <class Body>
void for_each_block(std::int64_t count, int blocks, int threads, const Body& body, cudaStream_t stream) {
  if (count <= 0) return;
  const auto bytes = static_cast<std::size_t>(body.block_words(threads)) * sizeof(walk::Counter);
  if (bytes > 48 * 1024)  // above the default limit of dynamic shared memory: opt in
    NETDP_CUDA_TRY(cudaFuncSetAttribute(walk::device_for_each_block<Body>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bytes)));
  walk::device_for_each_block<<<blocks, threads, bytes, stream>>>(count, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels::walk_device
