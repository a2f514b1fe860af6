#pragma once
// Pieces shared by the CUDA gossip simulators (gossip_sim_cuda.cu: sync, accelerated;
// gossip_sim_varying_cuda.cu: sequence, dropout, randomized, er-per-round): the launches of the noisy start
// and of the per-column error reductions, and the batch size. The per-thread arithmetic is in
// common/gossip_sim_bodies.hpp (run on the host by the device-bodies tests). Internal linkage, like
// launch.cuh: each .cu gets its own copy.
//
// Layout: the states of a batch of `count` runs form one column-major n x (D count) block X (ld = n), column
// c = b D + k is coordinate k of run first + b, so X[v + c n] is entry v D + k of the CPU's row-major n x D
// state of that run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "common/for_each.hpp"
#include "common/gossip_sim_bodies.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/cuda_check.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "netdp/core/error.hpp"

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
__global__ void column_averages(const double* x, std::int64_t n, double* average) {
  __shared__ double partial[cuda::kThreads];
  const double* column = x + static_cast<std::int64_t>(blockIdx.x) * n;
  partial[threadIdx.x] = gossip::column_sum_part(column, n, static_cast<int>(threadIdx.x), cuda::kThreads);
  block_sum(partial);
  if (threadIdx.x == 0) average[blockIdx.x] = partial[0] / static_cast<double>(n);
}

// sum_v (X[v, c] - xbar_k)^2 and sum_v (X[v, c] - noisy_average[c])^2, k = c mod D, one block per column.
__global__ void column_errors(const double* x, std::int64_t n, int dim, const double* xbar,
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

/// x^0 = x + sigma eta of runs first .. first + count - 1 into out (gossip::NoisyStartBody).
inline void noisy_start(const double* x, std::int64_t n, int dim, double sigma, std::uint64_t seed,
                        std::uint64_t noise_stream, std::int64_t first, std::int64_t count, double* out,
                        cudaStream_t stream) {
  const gossip::NoisyStartBody body{x, n, dim, sigma, seed, noise_stream, first, out};
  const std::int64_t total = body.pairs() * count;
  device_for_each<<<cuda::grid_for(total), cuda::kThreads, 0, stream>>>(total, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

/// The errors of every run of a batch at recorded point `point`, from the states `x` (cols = count D).
/// col_true / col_noisy are scratch of cols doubles.
inline void record_errors(const double* x, std::int64_t n, int dim, std::int64_t count, const double* xbar,
                          const double* noisy_average, double* col_true, double* col_noisy,
                          std::int64_t point, std::int64_t points, double* truth, double* noisy,
                          cudaStream_t stream) {
  column_errors<<<static_cast<unsigned>(count * dim), cuda::kThreads, 0, stream>>>(
      x, n, dim, xbar, noisy_average, col_true, col_noisy);
  NETDP_CUDA_CHECK_LAUNCH();
  device_for_each<<<cuda::grid_for(count), cuda::kThreads, 0, stream>>>(
      count, gossip::RunErrorsBody{col_true, col_noisy, dim, n, point, points, truth, noisy});
  NETDP_CUDA_CHECK_LAUNCH();
}

inline std::string mib(std::int64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

/// Runs per batch (docs/design.md principle 5), decided before anything is allocated: `batch_runs` when > 0
/// (else the most that fit) in 85% of the free memory of the current device, or memory_limit when smaller.
/// InsufficientMemory names the sizes (`what`: e.g. "n = 100, D = 1, 11 recorded times").
inline std::int64_t choose_batch(int device, std::int64_t fixed, std::int64_t per_run, std::int64_t runs,
                                 std::int64_t batch_runs, std::int64_t memory_limit, const std::string& what,
                                 std::int64_t dim) {
  const auto [budget, source] =
      cuda::device_memory_budget(device, memory_plan::kDeviceMemoryShare, memory_limit);
  const std::string sizes = what + "; " + mib(fixed) + " fixed + " + mib(per_run) + " per run";
  if (fixed + per_run > budget)
    throw InsufficientMemory("gossip-sim on CUDA: one run needs " + mib(fixed + per_run) + " (" + sizes +
                             ") but only " + mib(budget) + " is available (" + source + ")");
  const std::int64_t fits = (budget - fixed) / per_run;
  std::int64_t b = std::min(fits, runs);
  if (batch_runs > 0) {
    b = std::min(batch_runs, runs);
    if (b > fits)
      throw InsufficientMemory("gossip-sim on CUDA: batch-runs " + std::to_string(b) + " needs " +
                               mib(fixed + b * per_run) + " (" + sizes + ") but only " + mib(budget) +
                               " is available (" + source + "); at most " + std::to_string(fits) +
                               " runs fit");
  }
  // Column counts stay within the 32-bit sizes of the grid and of the libraries.
  return std::clamp<std::int64_t>(b, 1, std::numeric_limits<std::int32_t>::max() / dim);
}

}  // namespace
}  // namespace netdp::kernels
