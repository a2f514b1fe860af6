// CUDA backend of the Monte Carlo walk engine, plain walks (docs/walk_sim.md "CUDA", docs/cuda_backend.md):
// one thread per walk running walk::PlainWalkBody (common/walk_sim_bodies.hpp, the body the device-bodies
// tests run on the host) with the CPU's paths. Streaming: per walk and node the first visit, the last visit
// and the visit count live in device scratch; integer tallies are summed with atomics (exact, order free).
// Start nodes come from the CPU's walk_start on the host.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/memory_plan.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/walk_sim_device.cuh"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

using namespace walk_device;

constexpr std::int64_t kMaxAutoBatch = std::int64_t{1} << 22;  // walks per launch when chosen automatically

/// The plain-walk engine: the device state of one batch size as members, in reverse destruction order (the
/// device context first and gone last, so the stream outlives the buffers that use it).
class PlainEngine final : public WalkPlainCudaEngine {
 public:
  PlainEngine(const WalkTables& model, const WalkRunSpec& p, int device, std::int64_t time_cap,
              std::int64_t visit_cap, double nv)
      : model_(model),
        p_(p),
        context_(device),
        model_buffers_(model, context_.stream.get()),
        overflow_per_walk_(std::min<std::int64_t>(model.n, p.steps / (visit_cap + 1))),
        batch_(batch_size(time_cap, visit_cap)),
        tallies_(model.n, time_cap, visit_cap, nv, overflow_per_walk_ * batch_, context_.stream.get()),
        first_(cells()),
        last_(cells()),
        count_run_(zeros<std::int64_t>(cells(), context_.stream.get())),
        starts_(p.per_walk_start ? static_cast<std::size_t>(batch_) : 0) {
    run_.batch_runs = batch_;
    run_.device_bytes = 3 * 8 * model.n * batch_ + static_cast<std::int64_t>(starts_.bytes()) +
                        static_cast<std::int64_t>(model_buffers_.bytes()) + tallies_.bytes();
  }

  WalkSimCudaRun plan() const override { return run_; }

  void run_batch(std::int64_t first_run, std::int64_t count, std::span<const node_t> starts,
                 WalkVisitTallies& tallies) override {
    const cuda::DeviceGuard guard(context_.device);
    const cudaStream_t s = context_.stream.get();
    const bool per_walk_start = starts_.size() > 0;
    if (per_walk_start) upload_starts(starts, count, starts_, s);
    const walk::ModelView m = model_buffers_.view(model_.n);
    const walk::TallyView t = tallies_.view();
    const walk::PlainWalkBatch b{p_.seed,          first_run,     count,
                                 batch_,           p_.steps,      per_walk_start ? starts_.data() : nullptr,
                                 p_.start_node,    first_.data(), last_.data(),
                                 count_run_.data()};
    for_kind(model_.kind, [&](auto kind) {
      cuda::for_each(count, walk::PlainWalkBody<kind.value>{m, b, t}, s);
    });
    tallies_.drain_overflow(tallies, s);  // this batch's visit counts above visit_cap (synchronises)
    ++run_.batches;
  }

  void finish(WalkVisitTallies& tallies) override {
    const cuda::DeviceGuard guard(context_.device);
    tallies_.download_to(tallies, context_.stream.get());
  }

 private:
  std::size_t cells() const { return static_cast<std::size_t>(model_.n) * static_cast<std::size_t>(batch_); }

  /// Walks per launch: p.batch_runs, or as many as the one device share (kernels/common/memory_plan.hpp)
  /// holds after the model and the shared tallies. Per walk: 3 scratch words per node, the start, and at most
  /// min(n, T / (visit_cap + 1)) visit counts above visit_cap (a run has T visits in all).
  std::int64_t batch_size(std::int64_t time_cap, std::int64_t visit_cap) const {
    const std::int64_t n = model_.n;
    if (p_.batch_runs > 0) return std::min(p_.batch_runs, p_.runs);
    const std::int64_t per_walk = 3 * 8 * n + 8 * overflow_per_walk_ + 4;
    const std::int64_t budget =
        cuda::device_memory_budget(context_.device, memory_plan::kDeviceMemoryShare).bytes;
    const std::int64_t fixed = static_cast<std::int64_t>(model_buffers_.bytes()) +
                               TallyBuffers::shared_bytes(n, time_cap, visit_cap);
    if (budget - fixed < per_walk)
      throw InsufficientMemory(
          "walk-sim on CUDA: one walk on n = " + std::to_string(n) + " nodes needs " +
          std::to_string(per_walk) + " bytes of device scratch besides " + std::to_string(fixed) +
          " bytes of model and tallies, but only " + std::to_string(budget) + " bytes are available (" +
          std::to_string(memory_plan::kDeviceMemoryPercent) + "% of the free memory of CUDA device " +
          std::to_string(context_.device) + "); use device cpu");
    return std::min({(budget - fixed) / per_walk, p_.runs, kMaxAutoBatch});
  }

  const WalkTables model_;
  const WalkRunSpec p_;
  const cuda::DeviceContext
      context_;  // device, guard and stream, from construction to the last member's destruction
  const ModelBuffers model_buffers_;
  const std::int64_t overflow_per_walk_, batch_;
  TallyBuffers tallies_;
  DeviceBuffer<std::int64_t> first_, last_, count_run_;
  DeviceBuffer<node_t> starts_;
  WalkSimCudaRun run_;
};

}  // namespace

std::unique_ptr<WalkPlainCudaEngine> walk_sim_cuda(const WalkTables& model, const WalkRunSpec& p, int device,
                                                   std::int64_t time_cap, std::int64_t visit_cap, double nv) {
  return std::make_unique<PlainEngine>(model, p, device, time_cap, visit_cap, nv);
}

}  // namespace netdp::kernels
