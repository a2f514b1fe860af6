#pragma once
// The block reductions of the CUDA engines, the only raw kernels (shared memory and barriers): one block per
// column of a column-major block, each thread a strided part (the single-source parts of
// common/gossip_sim_bodies.hpp), then the fixed halving tree of gossip::tree_level with a barrier between
// levels, so every run gives the same bits: the time-varying gossip simulators' errors and noisy averages
// (docs/math.md §6.1; the fixed-W engine and the accountant are node-major, cuda/gossip_spmm.cuh). The
// emulated device runs the same parts and tree on the host (kernels/emulated/cuda/column_reductions.cuh).
#include <cuda_runtime.h>

#include <cstdint>

#include "common/gossip_sim_bodies.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels {
namespace {

/// Block tree sum of partial[0 .. kThreads) into partial[0]: gossip::tree_level per level, a barrier between
/// levels (the host runs the same levels with gossip::tree_sum).
__device__ inline void block_sum(double* partial) {
  __syncthreads();
  for (int stride = cuda::kThreads / 2; stride > 0; stride /= 2) {
    gossip::tree_level(partial, static_cast<int>(threadIdx.x), stride);
    __syncthreads();
  }
}

// average[c] = (1/n) sum_v X[v, c]: the run's noisy average per coordinate, one block per column.
__global__ void column_averages_kernel(const double* x, std::int64_t n, double* average) {
  __shared__ double partial[cuda::kThreads];
  const double* column = x + static_cast<std::int64_t>(blockIdx.x) * n;
  partial[threadIdx.x] = gossip::column_sum_part(column, n, static_cast<int>(threadIdx.x), cuda::kThreads);
  block_sum(partial);
  if (threadIdx.x == 0) average[blockIdx.x] = partial[0] / static_cast<double>(n);
}

// sum_v (X[v, c] - xbar_k)^2 and sum_v (X[v, c] - noisy_average[c])^2, k = c mod D, one block per column.
__global__ void column_errors_kernel(const double* x, std::int64_t n, int dim, const double* xbar,
                                     const double* noisy_average, double* col_true, double* col_noisy) {
  __shared__ double partial_true[cuda::kThreads], partial_noisy[cuda::kThreads];
  const std::int64_t c = blockIdx.x;
  gossip::column_error_parts(x + c * n, n, xbar[c % dim], noisy_average[c], static_cast<int>(threadIdx.x),
                             cuda::kThreads, partial_true[threadIdx.x], partial_noisy[threadIdx.x]);
  block_sum(partial_true);
  block_sum(partial_noisy);
  if (threadIdx.x == 0) {
    col_true[c] = partial_true[0];
    col_noisy[c] = partial_noisy[0];
  }
}

/// average[c] = (1/n) sum_v X[v, c] for the cols columns of the column-major n x cols block x.
inline void column_averages(const double* x, std::int64_t n, std::int64_t cols, double* average,
                            cudaStream_t stream) {
  column_averages_kernel<<<static_cast<unsigned>(cols), cuda::kThreads, 0, stream>>>(x, n, average);
  NETDP_CUDA_CHECK_LAUNCH();
}

/// col_true[c] = sum_v (X[v, c] - xbar[c mod D])^2 and col_noisy[c] = sum_v (X[v, c] - noisy_average[c])^2.
inline void column_errors(const double* x, std::int64_t n, int dim, std::int64_t cols, const double* xbar,
                          const double* noisy_average, double* col_true, double* col_noisy,
                          cudaStream_t stream) {
  column_errors_kernel<<<static_cast<unsigned>(cols), cuda::kThreads, 0, stream>>>(
      x, n, dim, xbar, noisy_average, col_true, col_noisy);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels
