#pragma once
// Pass 1 of the gossip accountant on CUDA (docs/math.md §6.2): the squared norms of the columns of a block,
// the only raw kernel of the backend (shared memory and barriers). The emulated device runs the same parts
// and tree on the host (kernels/emulated/cuda/gossip_loss_reductions.cuh).
#include <cuda_runtime.h>

#include <cstdint>

#include "common/gossip_loss_bodies.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels {
namespace {

// out[j] = ||X[:, j]||^2, one block per column: the one kernel kept, for its shared-memory tree; the
// per-thread part (gossip_loss::column_square_part) and the tree level (gossip::tree_level) are single-source
// bodies (common/gossip_loss_bodies.hpp). Each thread sums a fixed strided subset in order, then a fixed tree
// combines them (cuda::kThreads is a power of two): no atomics, so the result is the same bit for bit on
// every run. By symmetry of W^t this is r_t(u) = ||row u of W^t||^2, the noise variance factor of M1
// (docs/math.md §6.2). Each term is added with a fused multiply-add (one rounding per term instead of two):
// the CPU sums the squares in another order, so r_t agrees with it to the bound of docs/cuda_backend.md
// ("Rounding"), not bit for bit, on either form.
__global__ void column_sum_of_squares_kernel(const double* x, std::int64_t n, double* out) {
  __shared__ double partial[cuda::kThreads];
  const double* column = x + static_cast<std::int64_t>(blockIdx.x) * n;
  partial[threadIdx.x] =
      gossip_loss::column_square_part(column, n, static_cast<int>(threadIdx.x), cuda::kThreads);
  __syncthreads();
  for (int stride = cuda::kThreads / 2; stride > 0; stride /= 2) {
    gossip::tree_level(partial, static_cast<int>(threadIdx.x), stride);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

/// out[j] = ||X[:, j]||^2 for the cols columns of the column-major n x cols block x.
inline void column_sums_of_squares(const double* x, std::int64_t n, std::int64_t cols, double* out,
                                   cudaStream_t stream) {
  column_sum_of_squares_kernel<<<static_cast<unsigned>(cols), cuda::kThreads, 0, stream>>>(x, n, out);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels
