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
#include <span>
#include <string>

#include "common/for_each.hpp"
#include "common/gossip_sim_bodies.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/runtime_check.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

/// x^0 = x + sigma eta of runs first .. first + count - 1 into out (gossip::NoisyStartBody).
inline void noisy_start(const double* x, std::int64_t n, int dim, double sigma, std::uint64_t seed,
                        std::uint64_t noise_stream, std::int64_t first, std::int64_t count, double* out,
                        cudaStream_t stream) {
  const gossip::NoisyStartBody body{x, n, dim, sigma, seed, noise_stream, first, out};
  const std::int64_t total = body.pairs() * count;
  cuda::for_each(total, body, stream);
}

/// The errors of every run of a batch at recorded point `point`, from the column-major states `x` (cols =
/// count D): one thread per column summing it in node order (gossip::ColumnMajorErrorsBody, the CPU twin's
/// order and bits), then the D columns of each run. col_true / col_noisy are scratch of cols doubles.
inline void record_errors(const double* x, std::int64_t n, int dim, std::int64_t count, const double* xbar,
                          const double* noisy_average, double* col_true, double* col_noisy,
                          std::int64_t point, std::int64_t points, double* truth, double* noisy,
                          cudaStream_t stream) {
  cuda::for_each(
      count * dim,
      gossip::ColumnMajorErrorsBody{{x, n, count * dim, dim, xbar, noisy_average, col_true, col_noisy}},
      stream);
  cuda::for_each(count, gossip::RunErrorsBody{col_true, col_noisy, dim, n, point, points, truth, noisy},
                 stream);
}

/// The recorded errors of a batch in page-locked host memory: download() queues the copies of the first
/// `used` values on the stream; view() is valid once the stream has synchronised.
struct HostErrors {
  cuda::PinnedBuffer<double> truth, noisy;
  explicit HostErrors(std::size_t size) : truth(size), noisy(size) {}
  void download(const double* device_truth, const double* device_noisy, std::size_t used, cudaStream_t s) {
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(truth.data(), device_truth, used * sizeof(double), cudaMemcpyDeviceToHost, s));
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(noisy.data(), device_noisy, used * sizeof(double), cudaMemcpyDeviceToHost, s));
  }
  GossipSimBatchErrors view(std::size_t used) const {
    return {std::span<const double>(truth.data(), used), std::span<const double>(noisy.data(), used)};
  }
};

inline std::string mib(std::int64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

/// Runs per batch (docs/design.md principle 5), decided before anything is allocated
/// (memory_plan::plan_run_batch): `batch_runs` when > 0 (else the most that fit) in 85% of the free memory of
/// the current device, or memory_limit when smaller.
/// InsufficientMemory names the sizes (`what`: e.g. "n = 100, D = 1, 11 recorded times").
inline std::int64_t choose_batch(int device, std::int64_t fixed, std::int64_t per_run, std::int64_t runs,
                                 std::int64_t batch_runs, std::int64_t memory_limit, const std::string& what,
                                 std::int64_t dim) {
  const auto [budget, source] =
      cuda::device_memory_budget(device, memory_plan::kDeviceMemoryShare, memory_limit);
  const std::string sizes = what + "; " + mib(fixed) + " fixed + " + mib(per_run) + " per run";
  // Column counts stay within the 32-bit sizes of the grid and of the libraries.
  const memory_plan::RunBatchPlan plan =
      memory_plan::plan_run_batch({.items = runs,
                                   .fixed = fixed,
                                   .per_item = per_run,
                                   .budget = budget,
                                   .forced = batch_runs,
                                   .cap = std::numeric_limits<std::int32_t>::max() / dim});
  if (plan.fits < 1)
    throw InsufficientMemory("gossip-sim on CUDA: one run needs " + mib(fixed + per_run) + " (" + sizes +
                             ") but only " + mib(budget) + " is available (" + source + ")");
  if (!plan.forced_fits)
    throw InsufficientMemory("gossip-sim on CUDA: batch-runs " + std::to_string(plan.batch) + " needs " +
                             mib(plan.bytes) + " (" + sizes + ") but only " + mib(budget) +
                             " is available (" + source + "); at most " + std::to_string(plan.fits) +
                             " runs fit");
  return plan.batch;
}

}  // namespace
}  // namespace netdp::kernels
