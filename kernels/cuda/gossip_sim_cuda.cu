// CUDA backend of the gossip simulator's fixed-W protocols (sync, accelerated: docs/math.md §6.1-6.2, 2.4),
// the same computation as the CPU twin kernels/cpu/gossip_sim_cpu.cpp (interface:
// gossip_sim_kernels.hpp). Design and bandwidth model: docs/cuda_backend.md "Node-major gossip engines".
//
// Layout: node-major. The states of a batch of `count` runs form one row-major n x cols block X (cols = D
// count, ld = cols), column c = b D + k is coordinate k of run first + b, so X[v cols + c] is entry v D + k
// of the CPU's row-major n x D state of that run: a row of X is what the CPU's panels hold for node v.
//
// Steps: one warp-per-row pass per step (cuda::for_each_row over gossip::NodeMajorStepBody): each entry of
// W x summed over W's row in CSR order and, for the accelerated protocol, the Chebyshev combination applied
// in the same pass, every product and sum rounded as the CPU rounds it, so the states are the CPU's bits.
// A dense W (density > 1/4) goes through one DGEMM (Propagator::apply_rows) and the element-wise
// gossip::ChebyshevBody instead (the library's FMAs and order: within the backend tests' tolerance).
//
// Randomness (docs/design.md principle 2, layout of include/netdp/simulation/gossip_sim.hpp): the noise of
// run r is the Philox stream (seed, 2 << 56 | r << 24, offset) of common/philox.hpp, the one implementation
// the host's PhiloxStream uses too; value i = v D + k takes member i % 2 of the Box-Muller pair i / 2, drawn
// from the four words at offset 4 (i / 2): the words are bit-identical, the values agree to the few ulps of
// the device's log / sin / cos. The initial values x are shared by all runs and given by the caller (the host
// drew them once with the same stream), so they are uploaded as they are. The noisy start is written in its
// column-major layout into a free state block and moved to node-major once per batch.
//
// Reductions (noisy averages, errors per column): one thread per column summing the column in node order
// (gossip::NodeOrderAveragesBody, NodeOrderErrorsBody: the CPU's order, and coalesced in this layout), no
// atomics. The D columns of a run are then summed in coordinate order and divided by n, as on the CPU, and
// the host folds the runs in run order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "common/gossip_sim_layout.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/request.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_sim_common.cuh"
#include "cuda/gossip_spmm.cuh"
#include "cuda/node_major_matrix.hpp"
#include "cuda/propagator.hpp"
#include "device_kernels.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;

/// Bytes of the memory plan, estimated before anything is allocated (docs/design.md principle 5).
struct MemoryPlan {
  std::int64_t fixed = 0;    // W (CSR with 64-bit offsets; dense: 32-bit CSR and the dense copy), x, xbar
  std::int64_t per_run = 0;  // 2 or 3 state blocks, per-column references and sums, per-run errors
};

MemoryPlan plan_memory(const GossipSimProblem& p, std::int64_t points) {
  const std::int64_t n = p.w.n, dim = p.dim, d = sizeof(double), i32 = sizeof(std::int32_t);
  const std::int64_t offset = p.dense ? i32 : sizeof(offset_t);
  MemoryPlan plan;
  plan.fixed = (n + 1) * offset + p.w.nnz() * (i32 + d) + (p.dense ? n * n * d : 0) + n * dim * d + dim * d;
  plan.per_run = (p.accelerated ? 3 : 2) * n * dim * d + 3 * dim * d + 2 * points * d;
  return plan;
}

/// The fixed-W engine (sync, accelerated): the device state of one batch size as members, in reverse
/// destruction order (the device guard first and gone last, the stream before the buffers that use it).
class FixedEngine final : public GossipSimCudaEngine {
 public:
  FixedEngine(const GossipSimProblem& p, int device, std::int64_t runs, std::int64_t batch)
      : p_(p),
        context_(device),
        points_(static_cast<std::int64_t>(p.times.size())),
        w_(p.w, p.dense, context_.stream.get()),
        x_(p.x.size()),
        xbar_(p.xbar.size()),
        noisy_average_(static_cast<std::size_t>(batch * p.dim)),
        col_true_(noisy_average_.size()),
        col_noisy_(noisy_average_.size()),
        truth_(static_cast<std::size_t>(batch * points_)),
        noisy_(truth_.size()),
        host_errors_(truth_.size()) {
    const cudaStream_t stream = context_.stream.get();
    x_.upload(p.x, stream);
    xbar_.upload(p.xbar, stream);
    const std::size_t block = static_cast<std::size_t>(p.w.n * batch * p.dim);
    for (int i = 0; i < (p.accelerated ? 3 : 2); ++i) {
      buffers_[i] = DeviceBuffer<double>(block);
      // Never hand a library uninitialised memory, not even as a beta = 0 output.
      NETDP_CUDA_TRY(cudaMemsetAsync(buffers_[i].data(), 0, buffers_[i].bytes(), stream));
    }
    run_.batch_runs = batch;
    run_.batches = (runs + batch - 1) / batch;
    run_.device_bytes =
        w_.device_bytes() +
        static_cast<std::int64_t>(x_.bytes() + xbar_.bytes() + buffers_[0].bytes() + buffers_[1].bytes() +
                                  buffers_[2].bytes() + 3 * noisy_average_.bytes() + 2 * truth_.bytes());
  }

  CudaGossipSimRun plan() const override { return run_; }

  GossipSimBatchErrors run_batch(std::int64_t first, std::int64_t count) override {
    const cuda::DeviceGuard guard(context_.device);
    const GossipSimProblem& p = p_;
    const std::int64_t n = p.w.n, cols = count * p.dim, elements = n * cols;
    const cudaStream_t stream = context_.stream.get();
    const std::uint64_t noise_stream = gossip_subsequence(GossipStream::noise, 0, 0);
    const double one_minus_gamma = 1.0 - p.gamma;  // the CPU's (1.0 - gamma)
    double* prev = p.accelerated ? buffers_[2].data() : nullptr;
    double* cur = buffers_[0].data();
    double* next = buffers_[1].data();
    // x^0 in the noisy start's column-major layout (into the free block), then node-major.
    noisy_start(x_.data(), n, p.dim, p.sigma, p.seed, noise_stream, first, count, next, stream);
    cuda::for_each(elements, gossip::ToNodeMajorBody{next, n, cols, cur}, stream);
    cuda::for_each(cols, gossip::NodeOrderAveragesBody{cur, n, cols, noisy_average_.data()}, stream);
    std::int64_t point = 0;
    for (int t = 0; t <= p.steps; ++t) {
      if (t > 0) {
        // x^1 = W x^0; then x^t = gamma W x^{t-1} + (1 - gamma) x^{t-2} (docs/math.md §2.4) when accelerated.
        const double* before = p.accelerated && t >= 2 ? prev : nullptr;
        step(cur, before, one_minus_gamma, cols, next, stream);
        if (p.accelerated) {
          std::swap(prev, cur);  // prev <- x^{t-1}
          std::swap(cur, next);  // cur <- x^t; next <- x^{t-2}, overwritten next step
        } else {
          std::swap(cur, next);
        }
      }
      if (point < points_ && p.times[static_cast<std::size_t>(point)] == t) {
        cuda::for_each(cols,
                       gossip::NodeOrderErrorsBody{cur, n, cols, p.dim, xbar_.data(), noisy_average_.data(),
                                                   col_true_.data(), col_noisy_.data()},
                       stream);
        cuda::for_each(count,
                       gossip::RunErrorsBody{col_true_.data(), col_noisy_.data(), p.dim, n, point, points_,
                                             truth_.data(), noisy_.data()},
                       stream);
        ++point;
      }
    }
    const std::size_t used = static_cast<std::size_t>(count * points_);
    host_errors_.download(truth_.data(), noisy_.data(), used, stream);
    context_.stream.synchronize();
    return host_errors_.view(used);
  }

 private:
  /// y = W x, or the Chebyshev step when `before` is set: one fused warp-per-row pass on a sparse W, DGEMM
  /// and the element-wise step on a dense one.
  void step(const double* x, const double* before, double one_minus_gamma, std::int64_t cols, double* y,
            cudaStream_t stream) {
    const std::int64_t n = p_.w.n;
    if (w_.dense) {
      w_.dense->apply_rows(x, y, cols);
      if (before)
        cuda::for_each(n * cols, gossip::ChebyshevBody{y, before, p_.gamma, one_minus_gamma}, stream);
      return;
    }
    cuda::for_each_row(
        n, cols,
        gossip::NodeMajorStepBody<offset_t, node_t>{w_.offsets.data(), w_.columns.data(), w_.values.data(), x,
                                                    before, p_.gamma, one_minus_gamma, cols, y},
        stream);
  }

  GossipSimProblem p_;
  const cuda::DeviceContext
      context_;  // device, guard and stream, from construction to the last member's destruction
  const std::int64_t points_;
  cuda::NodeMajorMatrix w_;
  DeviceBuffer<double> x_, xbar_, buffers_[3];
  DeviceBuffer<double> noisy_average_, col_true_, col_noisy_, truth_, noisy_;
  HostErrors host_errors_;
  CudaGossipSimRun run_;
};

}  // namespace

std::unique_ptr<GossipSimCudaEngine> gossip_sim_cuda(const GossipSimProblem& p, int device, std::int64_t runs,
                                                     std::int64_t batch_runs, std::int64_t memory_limit) {
  const std::int64_t n = p.w.n, dim = p.dim;
  const std::int64_t points = static_cast<std::int64_t>(p.times.size());
  if (n < 1 || dim < 1 || p.steps < 1 || runs < 1 || points < 1 ||
      static_cast<std::int64_t>(p.x.size()) != n * dim || static_cast<std::int64_t>(p.xbar.size()) != dim)
    throw InvalidInput("gossip-sim on CUDA: inconsistent problem (n = " + std::to_string(n) +
                       ", D = " + std::to_string(dim) + ", T = " + std::to_string(p.steps) +
                       ", runs = " + std::to_string(runs) + ")");
  if (p.dense && p.w.nnz() > std::numeric_limits<std::int32_t>::max())
    throw InvalidInput("gossip-sim on CUDA: the dense W has " + std::to_string(p.w.nnz()) +
                       " stored entries, more than the 2^31 - 1 that its 32-bit CSR copy allows; use "
                       "device cpu");
  cuda::require_device(device);
  // ---- Batch size (docs/design.md principle 5): estimated before anything is allocated. ----
  const MemoryPlan plan = plan_memory(p, points);
  const std::string sizes = "n = " + std::to_string(n) + ", D = " + std::to_string(dim) + ", " +
                            std::to_string(points) + " recorded times";
  std::int64_t b = 0;
  {
    const cuda::DeviceGuard guard(device);
    b = choose_batch(device, plan.fixed, plan.per_run, runs, batch_runs, memory_limit, sizes, dim);
  }
  return std::make_unique<FixedEngine>(p, device, runs, b);
}

}  // namespace netdp::kernels
