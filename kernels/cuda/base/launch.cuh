#pragma once
// Launch geometry and the launchers of the single-source bodies, shared by the CUDA backends (the emulated
// device has a host twin of this header: kernels/emulated/cuda/base/launch.cuh). Internal linkage: each .cu
// gets its own copy, so no relocatable device code is needed. Bodies over the (row, column) entries of a
// node-major block run on the 2-D grid of cuda::for_each_row (cuda/gossip_spmm.cuh), which strides with the
// helpers below, so no entry needs a 64-bit `%` or `/` to find its row and column.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/for_each.hpp"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {
namespace {

/// Threads per block of every kernel; a power of two for shared-memory reduction trees.
constexpr int kThreads = 256;
static_assert((kThreads & (kThreads - 1)) == 0, "reduction trees need a power-of-two block");

/// Blocks for a grid-stride loop over `elements`; loops cover whatever a capped grid does not.
inline int grid_for(std::int64_t elements) {
  const std::int64_t blocks = (elements + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<std::int64_t>(blocks, 1, std::int64_t{1} << 20));
}

__device__ inline std::int64_t global_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_threads() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

/// The column loop of a 2-D grid (x over rows, y over columns or slabs of them, as cuda::row_grid makes it):
/// `for (j = first_column(); j < cols; j += column_stride())`, then the rows by global_thread() and
/// grid_threads().
__device__ inline std::int64_t first_column() {
  return blockIdx.y;
}
__device__ inline std::int64_t column_stride() {
  return gridDim.y;
}

/// body(i) for i in [0, count), queued on `stream` (the grid-stride device_for_each of common/for_each.hpp).
/// The emulated device's launch.cuh runs the same body with host_for_each.
template <class Body>
void for_each(std::int64_t count, const Body& body, cudaStream_t stream) {
  if (count <= 0) return;
  device_for_each<<<grid_for(count), kThreads, 0, stream>>>(count, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels::cuda
