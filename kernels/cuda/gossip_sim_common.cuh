#pragma once
// Pieces shared by the CUDA gossip simulators (gossip_sim_cuda.cu: sync, accelerated;
// gossip_sim_varying_cuda.cu: sequence, dropout, randomized): the noisy start, the per-column error
// reductions and the batch size. Internal linkage, like launch.cuh: each .cu gets its own copy.
//
// Layout: the states of a batch of `count` runs form one column-major n x (D count) block X (ld = n), column
// c = b D + k is coordinate k of run first + b, so X[v + c n] is entry v D + k of the CPU's row-major n x D
// state of that run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "common/gossip_sim_math.hpp"
#include "common/philox.hpp"
#include "cuda/base/cuda_check.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

// Share of the free device memory a run plans to use; the rest is headroom for library workspaces and the
// CUDA context (sizes unknown before the batch is chosen).
constexpr double kFreeMemoryShare = 0.85;

// x^0 = x + sigma eta (Alg 6.1, MATH_SPEC 6.1) for runs first .. first + count - 1: one thread per
// (run, Box-Muller pair). `noise_stream` = gossip_subsequence(noise, 0, 0); the run goes into bits 24..55.
// Value i = v D + k takes member i % 2 of the pair i / 2, drawn from the four words at offset 4 (i / 2) by
// the shared Philox (common/philox.hpp: the host's words and formulas; values within a few ulps of the
// device's log / sin / cos). Products and sums are rounded separately (no FMA contraction), like the host's.
__global__ void noisy_start(const double* x, std::int64_t n, int dim, double sigma, std::uint64_t seed,
                            std::uint64_t noise_stream, std::int64_t first, std::int64_t count, double* out) {
  const std::int64_t values = n * dim, pairs = (values + 1) / 2, total = pairs * count;
  for (std::int64_t idx = cuda::global_thread(); idx < total; idx += cuda::grid_threads()) {
    const std::int64_t b = idx / pairs, pair = idx % pairs;
    double z[2] = {0.0, 0.0};
    if (sigma > 0.0) {
      const std::uint64_t run = static_cast<std::uint64_t>(first + b);
      philox::Stream state(seed, noise_stream | (run << 24), 4 * static_cast<std::uint64_t>(pair));
      const philox::NormalPair normal = state.next_normal_pair();
      z[0] = normal.first;
      z[1] = normal.second;
    }
    for (int m = 0; m < 2; ++m) {
      const std::int64_t i = 2 * pair + m;  // row-major index v D + k of the CPU state
      if (i >= values) break;
      const std::int64_t v = i / dim, column = b * dim + i % dim;
      out[v + column * n] = sigma > 0.0 ? __dadd_rn(x[i], __dmul_rn(sigma, z[m])) : x[i];
    }
  }
}

/// Block tree sum of partial[0 .. kThreads) into partial[0] (fixed order).
__device__ inline void block_sum(double* partial) {
  __syncthreads();
  for (int stride = cuda::kThreads / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
}

// average[c] = (1/n) sum_v X[v, c]: the run's noisy average per coordinate, one block per column.
__global__ void column_averages(const double* x, std::int64_t n, double* average) {
  __shared__ double partial[cuda::kThreads];
  const double* column = x + static_cast<std::int64_t>(blockIdx.x) * n;
  double sum = 0.0;
  for (std::int64_t v = threadIdx.x; v < n; v += cuda::kThreads) sum += column[v];
  partial[threadIdx.x] = sum;
  block_sum(partial);
  if (threadIdx.x == 0) average[blockIdx.x] = partial[0] / static_cast<double>(n);
}

// sum_v (X[v, c] - xbar_k)^2 and sum_v (X[v, c] - noisy_average[c])^2, k = c mod D, one block per column.
__global__ void column_errors(const double* x, std::int64_t n, int dim, const double* xbar,
                              const double* noisy_average, double* col_true, double* col_noisy) {
  __shared__ double partial_true[cuda::kThreads], partial_noisy[cuda::kThreads];
  const std::int64_t c = blockIdx.x;
  const double* column = x + c * n;
  const double ref_true = xbar[c % dim], ref_noisy = noisy_average[c];
  double sum_true = 0.0, sum_noisy = 0.0;
  for (std::int64_t v = threadIdx.x; v < n; v += cuda::kThreads) {
    const double dt = column[v] - ref_true, dn = column[v] - ref_noisy;
    sum_true += dt * dt;
    sum_noisy += dn * dn;
  }
  partial_true[threadIdx.x] = sum_true;
  partial_noisy[threadIdx.x] = sum_noisy;
  block_sum(partial_true);
  block_sum(partial_noisy);
  if (threadIdx.x == 0) {
    col_true[c] = partial_true[0];
    col_noisy[c] = partial_noisy[0];
  }
}

// e(t) of every run: the D column sums in coordinate order, divided by n (gossip_sim.hpp, GossipSimResult),
// stored at [b * points + point] like the CPU's BatchErrors.
__global__ void run_errors(const double* col_true, const double* col_noisy, std::int64_t count, int dim,
                           std::int64_t n, std::int64_t point, std::int64_t points, double* truth,
                           double* noisy) {
  for (std::int64_t b = cuda::global_thread(); b < count; b += cuda::grid_threads()) {
    double sum_true = 0.0, sum_noisy = 0.0;
    for (int k = 0; k < dim; ++k) {
      sum_true += col_true[b * dim + k];
      sum_noisy += col_noisy[b * dim + k];
    }
    truth[b * points + point] = sum_true / static_cast<double>(n);
    noisy[b * points + point] = sum_noisy / static_cast<double>(n);
  }
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
  run_errors<<<cuda::grid_for(count), cuda::kThreads, 0, stream>>>(col_true, col_noisy, count, dim, n, point,
                                                                   points, truth, noisy);
  NETDP_CUDA_CHECK_LAUNCH();
}

inline std::string mib(std::int64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

/// Runs per batch (DESIGN principle 5), decided before anything is allocated: `batch_runs` when > 0 (else
/// the most that fit) in 85% of the free memory of the current device, or memory_limit when smaller.
/// InsufficientMemory names the sizes (`what`: e.g. "n = 100, D = 1, 11 recorded times").
inline std::int64_t choose_batch(int device, std::int64_t fixed, std::int64_t per_run, std::int64_t runs,
                                 std::int64_t batch_runs, std::int64_t memory_limit, const std::string& what,
                                 std::int64_t dim) {
  const auto [budget, source] = cuda::device_memory_budget(device, kFreeMemoryShare, memory_limit);
  const std::string sizes = what + "; " + mib(fixed) + " fixed + " + mib(per_run) + " per run";
  if (fixed + per_run > budget)
    throw InsufficientMemory("gossip-sim on CUDA: one run needs " + mib(fixed + per_run) + " (" + sizes +
                             ") but only " + mib(budget) + " is available (" + source + ")");
  const std::int64_t fits = (budget - fixed) / per_run;
  std::int64_t b = std::min(fits, runs);
  if (batch_runs > 0) {
    b = std::min(batch_runs, runs);
    if (b > fits)
      throw InsufficientMemory("gossip-sim on CUDA: --batch-runs " + std::to_string(b) + " needs " +
                               mib(fixed + b * per_run) + " (" + sizes + ") but only " + mib(budget) +
                               " is available (" + source + "); at most " + std::to_string(fits) +
                               " runs fit");
  }
  // Column counts stay within the 32-bit sizes of the grid and of the libraries.
  return std::clamp<std::int64_t>(b, 1, std::numeric_limits<std::int32_t>::max() / dim);
}

}  // namespace
}  // namespace netdp::kernels
