#pragma once
// The block launcher of the walk engine's statistics and stepping bodies (common/walk_sim_visit_stats.hpp,
// common/walk_sim_stepping.hpp): `blocks` blocks of `threads` with the body's block memory in dynamic shared
// memory. The emulated device has a host twin of this header (kernels/emulated/cuda/walk_sim_launch.cuh).
// Included by .cu files only (internal linkage).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/walk_sim_visit_stats.hpp"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::walk_device {
namespace {

/// Shared memory a block may use: two blocks of the statistics body fit one H100 SM (228 KiB).
constexpr std::int64_t kBlockBytes = 96 * 1024;

/// Above the default limit of dynamic shared memory (48 KiB) a kernel must opt in, for its launches and for
/// the occupancy calculator alike.
template <class Body>
void allow_block_bytes(std::size_t bytes) {
  if (bytes > 48 * 1024)
    NETDP_CUDA_TRY(cudaFuncSetAttribute(walk::device_for_each_block<Body>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bytes)));
}

/// Blocks of `threads` threads with `bytes` of block memory that device `device` holds resident at once:
/// blocks per SM from the occupancy calculator (registers and shared memory of this kernel) times the SMs.
/// The grid of a grid-stride launch needs no more (docs/cuda_backend.md "Launch geometry of the statistics
/// mode"): a larger one runs in waves, and a partial last wave leaves SMs idle.
template <class Body>
std::int64_t resident_blocks(std::size_t bytes, int threads, int device) {
  allow_block_bytes<Body>(bytes);
  int per_sm = 0, sms = 0;
  NETDP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk::device_for_each_block<Body>,
                                                               threads, bytes));
  NETDP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max<std::int64_t>(1, std::int64_t{per_sm} * sms);
}

/// body.walk(i, ...) for i in [0, count), queued on `stream`.
template <class Body>
void for_each_block(std::int64_t count, int blocks, int threads, const Body& body, cudaStream_t stream) {
  if (count <= 0) return;
  const auto bytes = static_cast<std::size_t>(body.block_words(threads)) * sizeof(walk::Counter);
  allow_block_bytes<Body>(bytes);
  walk::device_for_each_block<<<blocks, threads, bytes, stream>>>(count, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels::walk_device
