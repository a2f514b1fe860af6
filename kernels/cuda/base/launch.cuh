#pragma once
// Launch geometry and the launchers of the single-source bodies, shared by the CUDA backends (the emulated
// device has a host twin of this header: kernels/emulated/cuda/base/launch.cuh). Internal linkage: each .cu
// gets its own copy, so no relocatable device code is needed.
//
// Element-wise kernels over a column-major rows x cols block use a 2-D grid (grid_2d): x strides over the
// rows of a column, y over the columns, so no element needs a 64-bit `%` or `/` to find its row and column
// (dozens of instructions each on the GPU). Their bodies are single-source 2-D functors (body(r, j),
// common/propagation_bodies.hpp) launched by device_for_each_2d, whose host twin is host_for_each_2d.
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

/// Grid for a rows x cols block: x blocks of kThreads over the rows (at most 2^16, the loops stride on), y
/// one per column (at most 65,535, the hardware limit of y; the loops stride on).
inline dim3 grid_2d(std::int64_t rows, std::int64_t cols) {
  const std::int64_t x = std::clamp<std::int64_t>((rows + kThreads - 1) / kThreads, 1, std::int64_t{1} << 16);
  const std::int64_t y = std::clamp<std::int64_t>(cols, 1, 65535);
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

__device__ inline std::int64_t global_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_threads() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

/// The loops of a 2-D kernel (grid_2d): `for (j = first_column(); j < cols; j += column_stride())`, then
/// `for (r = global_thread(); r < rows; r += grid_threads())`.
__device__ inline std::int64_t first_column() {
  return blockIdx.y;
}
__device__ inline std::int64_t column_stride() {
  return gridDim.y;
}

/// The 2-D grid-stride wrapper of a block body (launch with grid_2d(rows, cols)): body(r, j) for every
/// element of a column-major rows x cols block, and nothing else (the host runs the same body with
/// host_for_each_2d).
template <class Body>
__global__ void device_for_each_2d(std::int64_t rows, std::int64_t cols, const Body body) {
  for (std::int64_t j = first_column(); j < cols; j += column_stride())
    for (std::int64_t r = global_thread(); r < rows; r += grid_threads()) body(r, j);
}

/// body(i) for i in [0, count), queued on `stream` (the grid-stride device_for_each of common/for_each.hpp).
/// The emulated device's launch.cuh runs the same body with host_for_each.
template <class Body>
void for_each(std::int64_t count, const Body& body, cudaStream_t stream) {
  if (count <= 0) return;
  device_for_each<<<grid_for(count), kThreads, 0, stream>>>(count, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

/// body(r, j) over a rows x cols block, queued on `stream`.
template <class Body>
void for_each_2d(std::int64_t rows, std::int64_t cols, const Body& body, cudaStream_t stream) {
  device_for_each_2d<<<grid_2d(rows, cols), kThreads, 0, stream>>>(rows, cols, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels::cuda
