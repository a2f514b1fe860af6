// CUDA backend of the gossip simulator's fixed-W protocols (sync, accelerated: docs/math.md §6.1-6.2, 2.4),
// the same computation as the CPU oracle src/simulation/gossip_sim_fixed.cpp (interface:
// gossip_sim_kernels.hpp).
//
// Layout: the states of a batch of `count` runs form one column-major n x (D count) block X (ld = n),
// column c = b D + k is coordinate k of run first + b, so X[v + c n] is entry v D + k of the CPU's row-major
// n x D state of that run. Propagation is X <- W X (Propagator: cuSPARSE SpMM, or DGEMM when W is dense).
//
// Randomness (docs/design.md principle 2, layout of include/netdp/simulation/gossip_sim.hpp): the noise of
// run r is the Philox stream (seed, 2 << 56 | r << 24, offset) of common/philox.hpp, the one implementation
// the host's PhiloxStream uses too; value i = v D + k takes member i % 2 of the Box-Muller pair i / 2, drawn
// from the four words at offset 4 (i / 2): the words are bit-identical, the values agree to the few ulps of
// the device's log / sin / cos. The initial values x are shared by all runs and given by the caller (the host
// drew them once with the same stream), so they are uploaded as they are.
//
// Reductions (errors per column, noisy averages) use one block per column with a fixed shared-memory tree:
// no atomics, the same bits on every run. The D columns of a run are then summed in coordinate order and
// divided by n, as on the CPU, and the host folds the runs in run order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "cuda/base/cuda_check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/gossip_sim_common.cuh"
#include "cuda/propagator.hpp"
#include "device_kernels.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/core/error.hpp"
#include "netdp/simulation/gossip_sim.hpp"

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;
using cuda::global_thread;
using cuda::grid_for;
using cuda::grid_threads;
using cuda::kThreads;  // a power of two: the column reductions halve it

/// Bytes of the memory plan, estimated before anything is allocated (docs/design.md principle 5).
struct MemoryPlan {
  std::int64_t fixed = 0;    // W (CSR, 32-bit indices; dense copy), x, xbar
  std::int64_t per_run = 0;  // 2 or 3 state blocks, per-column references and sums, per-run errors
};

MemoryPlan plan_memory(const GossipSimProblem& p, std::int64_t points) {
  const std::int64_t n = p.w.n, dim = p.dim, d = sizeof(double), i32 = sizeof(std::int32_t);
  MemoryPlan plan;
  plan.fixed = (n + 1) * i32 + p.w.nnz() * (i32 + d) + (p.dense ? n * n * d : 0) + n * dim * d + dim * d;
  plan.per_run = (p.accelerated ? 3 : 2) * n * dim * d + 3 * dim * d + 2 * points * d;
  return plan;
}

}  // namespace

CudaGossipSimRun gossip_sim_cuda(const GossipSimProblem& p, int device, std::int64_t runs,
                                 std::int64_t batch_runs, std::int64_t memory_limit,
                                 const GossipSimBatchSink& sink) {
  const std::int64_t n = p.w.n, dim = p.dim;
  const std::int64_t points = static_cast<std::int64_t>(p.times.size());
  if (n < 1 || dim < 1 || p.steps < 1 || runs < 1 || points < 1 ||
      static_cast<std::int64_t>(p.x.size()) != n * dim || static_cast<std::int64_t>(p.xbar.size()) != dim)
    throw InvalidInput("gossip-sim on CUDA: inconsistent problem (n = " + std::to_string(n) +
                       ", D = " + std::to_string(dim) + ", T = " + std::to_string(p.steps) +
                       ", runs = " + std::to_string(runs) + ")");
  if (p.w.nnz() > std::numeric_limits<std::int32_t>::max())
    throw InvalidInput("gossip-sim on CUDA: W has " + std::to_string(p.w.nnz()) +
                       " stored entries, more than the 2^31 - 1 that 32-bit cuSPARSE indices allow; use "
                       "device cpu");
  const int devices = cuda_device_count_impl();
  if (device < 0 || device >= devices)
    throw DeviceUnavailable("CUDA device " + std::to_string(device) + " is not available (" +
                            std::to_string(devices) + " CUDA devices answer)");
  const cuda::DeviceGuard guard(device);

  // ---- Batch size (docs/design.md principle 5): estimated before anything is allocated. ----
  const MemoryPlan plan = plan_memory(p, points);
  const std::string sizes = "n = " + std::to_string(n) + ", D = " + std::to_string(dim) + ", " +
                            std::to_string(points) + " recorded times";
  const std::int64_t b =
      choose_batch(device, plan.fixed, plan.per_run, runs, batch_runs, memory_limit, sizes, dim);

  // ---- Device state. Declaration order = reverse destruction order: buffers go before the stream. ----
  const cuda::Stream stream;
  cuda::Propagator propagator(p.w, p.dense, stream.get());
  const std::size_t block = static_cast<std::size_t>(n * b * dim);
  DeviceBuffer<double> x(p.x.size()), xbar(p.xbar.size());
  x.upload(p.x, stream.get());
  xbar.upload(p.xbar, stream.get());
  DeviceBuffer<double> buffers[3];
  for (int i = 0; i < (p.accelerated ? 3 : 2); ++i) {
    buffers[i] = DeviceBuffer<double>(block);
    // Never hand a library uninitialised memory, not even as a beta = 0 output.
    NETDP_CUDA_TRY(cudaMemsetAsync(buffers[i].data(), 0, buffers[i].bytes(), stream.get()));
  }
  const std::size_t columns = static_cast<std::size_t>(b * dim),
                    errors = static_cast<std::size_t>(b * points);
  DeviceBuffer<double> noisy_average(columns), col_true(columns), col_noisy(columns);
  DeviceBuffer<double> truth(errors), noisy(errors);
  cuda::PinnedBuffer<double> host_truth(errors), host_noisy(errors);
  propagator.reserve(buffers[0].data(), buffers[1].data(), b * dim);

  CudaGossipSimRun run;
  run.batch_runs = b;
  run.batches = (runs + b - 1) / b;
  run.device_bytes =
      propagator.device_bytes() +
      static_cast<std::int64_t>(x.bytes() + xbar.bytes() + buffers[0].bytes() + buffers[1].bytes() +
                                buffers[2].bytes() + 3 * columns * 8 + 2 * errors * 8);

  const std::uint64_t noise_stream = gossip_subsequence(GossipStream::noise, 0, 0);
  const double one_minus_gamma = 1.0 - p.gamma;  // the CPU's (1.0 - gamma)
  for (std::int64_t first = 0; first < runs; first += b) {
    const std::int64_t count = std::min(b, runs - first), cols = count * dim, elements = n * cols;
    double* prev = p.accelerated ? buffers[2].data() : nullptr;
    double* cur = buffers[0].data();
    double* next = buffers[1].data();
    noisy_start(x.data(), n, p.dim, p.sigma, p.seed, noise_stream, first, count, cur, stream.get());
    column_averages<<<static_cast<unsigned>(cols), kThreads, 0, stream.get()>>>(cur, n, noisy_average.data());
    NETDP_CUDA_CHECK_LAUNCH();
    std::int64_t point = 0;
    for (int t = 0; t <= p.steps; ++t) {
      if (t > 0) {
        propagator.apply(cur, next, cols);  // x^{t} = W x^{t-1}
        if (p.accelerated && t >= 2) {      // x^1 = W x^0, then the Chebyshev recursion
          // Chebyshev step (docs/math.md §2.4): next = gamma (W x) + (1 - gamma) prev.
          device_for_each<<<grid_for(elements), kThreads, 0, stream.get()>>>(
              elements, gossip::ChebyshevBody{next, prev, p.gamma, one_minus_gamma});
          NETDP_CUDA_CHECK_LAUNCH();
        }
        if (p.accelerated) {
          std::swap(prev, cur);  // prev <- x^{t-1}
          std::swap(cur, next);  // cur <- x^t; next <- x^{t-2}, overwritten next step
        } else {
          std::swap(cur, next);
        }
      }
      if (point < points && p.times[static_cast<std::size_t>(point)] == t) {
        record_errors(cur, n, p.dim, count, xbar.data(), noisy_average.data(), col_true.data(),
                      col_noisy.data(), point, points, truth.data(), noisy.data(), stream.get());
        ++point;
      }
    }
    const std::size_t used = static_cast<std::size_t>(count * points);
    NETDP_CUDA_TRY(cudaMemcpyAsync(host_truth.data(), truth.data(), used * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream.get()));
    NETDP_CUDA_TRY(cudaMemcpyAsync(host_noisy.data(), noisy.data(), used * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    sink(first, count, std::span<const double>(host_truth.data(), used),
         std::span<const double>(host_noisy.data(), used));
  }
  return run;
}

}  // namespace netdp::kernels
