#pragma once
// Launch geometry and tiny kernels shared by the CUDA backends. Internal linkage: each .cu gets its own copy,
// so no relocatable device code is needed.
#include <algorithm>
#include <cstdint>

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

/// X[:, j] = e_{first + j} for a column-major n x cols block: the t = 0 columns W^0 e_u of every propagation.
__global__ void set_identity_columns(double* x, std::int64_t n, std::int64_t cols, std::int64_t first) {
  const std::int64_t total = n * cols;
  for (std::int64_t i = global_thread(); i < total; i += grid_threads())
    x[i] = (i % n == first + i / n) ? 1.0 : 0.0;
}

}  // namespace
}  // namespace netdp::kernels::cuda
