// CUDA twin of the exact gossip accountant (docs/math.md §6.9; docs/cuda_backend.md "The exact gossip
// accountant: twins"; interface: gossip_view_kernels.hpp). Batched per observer: each observer is one small
// dense problem (its view basis, at most min(n, |N(v)| T + 1) columns of n doubles) run by one device thread
// with the single-source body common/gossip_view_bodies.hpp, the body the CPU twin (gossip_view_twin_cpu)
// runs on the host, so the two give the same bytes.
//
// Memory (docs/design.md principle 5): W and the graph in CSR, the observer list, then per observer of a
// batch its workspace slot (basis, candidates, coefficients, norms, scratch), its entries (n or 1) and its
// report. The batch is the most observers whose slots fit beside the fixed part in 85% of the free memory (or
// the memory limit); the slots are interleaved (element e of slot s at e * batch + s), so the threads of a
// warp touch neighbouring addresses at every step of their identical loops.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/gossip_view_bodies.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_view_download.cuh"
#include "device_kernels.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;

/// body(0) .. body(count - 1), one observer per thread, in blocks of one warp: 2048 observers then occupy 64
/// SMs instead of the 8 that base/launch.cuh's blocks of 256 would (docs/cuda_backend.md "The exact gossip
/// accountant: twins"). The emulated device runs the same body with its for_each.
template <class Body>
void for_each_observer(std::int64_t count, const Body& body, cudaStream_t stream) {
#if defined(__CUDACC__)
  constexpr std::int64_t kWarp = 32;
  device_for_each<<<static_cast<unsigned>((count + kWarp - 1) / kWarp), static_cast<unsigned>(kWarp), 0,
                    stream>>>(count, body);
  NETDP_CUDA_CHECK_LAUNCH();
#else
  cuda::for_each(count, body, stream);
#endif
}

/// The device state of one run: the problem's arrays, and the workspaces and outputs of one batch.
class ViewEngine final : public GossipViewCudaEngine {
 public:
  ViewEngine(const GossipViewProblem& p, int device, const std::int32_t* observers, std::int64_t count,
             std::int64_t source, std::int64_t rank_capacity, std::int64_t width_capacity, double floor,
             std::int64_t batch)
      : device_(device),
        row_(source >= 0 ? 1 : p.n),
        guard_(device),
        w_offsets_(static_cast<std::size_t>(p.n + 1)),
        w_columns_(static_cast<std::size_t>(p.w_offsets[p.n])),
        w_values_(w_columns_.size()),
        g_offsets_(static_cast<std::size_t>(p.n + 1)),
        g_adjacency_(static_cast<std::size_t>(p.g_offsets[p.n])),
        observers_(static_cast<std::size_t>(count)),
        workspace_(
            static_cast<std::size_t>(batch * gossip_view::slot_doubles(p.n, rank_capacity, width_capacity))),
        projections_(static_cast<std::size_t>(batch * row_)),
        reports_(static_cast<std::size_t>(batch)) {
    const cudaStream_t stream = stream_.get();
    w_offsets_.upload({p.w_offsets, w_offsets_.size()}, stream);
    w_columns_.upload({p.w_columns, w_columns_.size()}, stream);
    w_values_.upload({p.w_values, w_values_.size()}, stream);
    g_offsets_.upload({p.g_offsets, g_offsets_.size()}, stream);
    g_adjacency_.upload({p.g_adjacency, g_adjacency_.size()}, stream);
    observers_.upload({observers, observers_.size()}, stream);
    GossipViewProblem on_device = p;  // the same problem over the device's copies of W and the graph
    on_device.w_offsets = w_offsets_.data();
    on_device.w_columns = w_columns_.data();
    on_device.w_values = w_values_.data();
    on_device.g_offsets = g_offsets_.data();
    on_device.g_adjacency = g_adjacency_.data();
    body_ = gossip_view::observer_body(on_device, floor, source, rank_capacity, width_capacity);
    body_.workspace = workspace_.data();
    body_.slots = batch;
    body_.interleaved = true;
    body_.projections = projections_.data();
    body_.reports = reports_.data();
    run_.batch_observers = batch;
    run_.batches = (count + batch - 1) / batch;
    run_.device_bytes =
        static_cast<std::int64_t>(w_offsets_.bytes() + w_columns_.bytes() + w_values_.bytes() +
                                  g_offsets_.bytes() + g_adjacency_.bytes() + observers_.bytes() +
                                  workspace_.bytes() + projections_.bytes() + reports_.bytes());
    stream_.synchronize();
  }

  CudaGossipViewRun plan() const override { return run_; }

  void run_batch(std::int64_t first, std::int64_t count, double* projections,
                 GossipViewObserver* reports) override {
    if (count <= 0) return;
    if (first < 0 || count > run_.batch_observers ||
        first + count > static_cast<std::int64_t>(observers_.size()))
      throw InvalidInput("gossip-loss on CUDA: observers " + std::to_string(first) + " .. " +
                         std::to_string(first + count - 1) + " outside the engine's list or batch");
    const cuda::DeviceGuard guard(device_);
    const cudaStream_t stream = stream_.get();
    gossip_view::ObserverBody body = body_;
    body.observers = observers_.data() + first;
    for_each_observer(count, body, stream);
    download_views(projections_.data(), reports_.data(), count, row_, projections, reports, stream);
    stream_.synchronize();
  }

 private:
  int device_;
  std::int64_t row_;
  cuda::DeviceGuard guard_;  // device_ current while the buffers are made
  cuda::Stream stream_;
  DeviceBuffer<std::int64_t> w_offsets_;
  DeviceBuffer<std::int32_t> w_columns_;
  DeviceBuffer<double> w_values_;
  DeviceBuffer<std::int64_t> g_offsets_;
  DeviceBuffer<std::int32_t> g_adjacency_;
  DeviceBuffer<std::int32_t> observers_;
  DeviceBuffer<double> workspace_, projections_;
  DeviceBuffer<GossipViewObserver> reports_;
  gossip_view::ObserverBody body_{};
  CudaGossipViewRun run_;
};

}  // namespace

std::unique_ptr<GossipViewCudaEngine> gossip_view_cuda(const GossipViewProblem& p, int device,
                                                       const std::int32_t* observers, std::int64_t count,
                                                       std::int64_t source, std::int64_t memory_limit) {
  const std::int64_t n = p.n;
  if (n < 1 || p.steps < 1 || count < 0 || source >= n || (count > 0 && observers == nullptr))
    throw InvalidInput("gossip-loss on CUDA: inconsistent problem (n = " + std::to_string(n) +
                       ", T = " + std::to_string(p.steps) + ", " + std::to_string(count) + " observers)");
  for (std::int64_t i = 0; i < count; ++i)
    if (observers[i] < 0 || observers[i] >= n)
      throw InvalidInput("gossip-loss on CUDA: observer " + std::to_string(observers[i]) + " outside 0 .. " +
                         std::to_string(n - 1));
  cuda::require_device(device);
  // The floor of every observer is the dense one of the whole problem (gossip_view_floor); the slot is sized
  // for the largest listed observer.
  std::int64_t largest = 1, rank_capacity = 1, width_capacity = 1;
  for (std::int64_t v = 0; v < n; ++v)
    largest = std::max(largest,
                       gossip_view::max_rank(n, p.g_offsets[v + 1] - p.g_offsets[v], p.steps, p.knows_noise));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t v = observers[i], degree = p.g_offsets[v + 1] - p.g_offsets[v];
    rank_capacity = std::max(rank_capacity, gossip_view::max_rank(n, degree, p.steps, p.knows_noise));
    width_capacity = std::max(width_capacity, degree);
  }
  const double floor = gossip_view::floor_of(n, largest);
  // ---- Batch size, estimated before anything is allocated. ----
  const std::int64_t d = memory_plan::kDoubleBytes, i32 = memory_plan::kInt32Bytes,
                     i64 = memory_plan::kInt64Bytes;
  const std::int64_t fixed =
      2 * (n + 1) * i64 + p.w_offsets[n] * (i32 + d) + p.g_offsets[n] * i32 + count * i32;
  const std::int64_t per_observer = gossip_view::slot_doubles(n, rank_capacity, width_capacity) * d +
                                    (source >= 0 ? 1 : n) * d +
                                    static_cast<std::int64_t>(sizeof(GossipViewObserver));
  const memory_plan::RunBatchPlan plan =
      cuda::plan_device_batch(device, memory_limit, count, fixed, per_observer, "gossip-loss on CUDA",
                              "observer's view basis", "W and the graph");
  return std::make_unique<ViewEngine>(p, device, observers, count, source, rank_capacity, width_capacity,
                                      floor, plan.batch);
}

}  // namespace netdp::kernels
