// CUDA backend of the Monte Carlo walk engine, plain walks (docs/walk_sim.md "CUDA", docs/cuda_backend.md):
// one thread per walk running walk::PlainWalkBody (common/walk_sim_bodies.hpp, the body the device-bodies
// tests run on the host) with the CPU's paths. Streaming: per walk and node the first visit, the last visit
// and the visit count live in device scratch; integer tallies are summed with atomics (exact, order free).
// Start nodes come from the CPU's walk_start on the host.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/memory_plan.hpp"
#include "cuda/base/handles.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/walk_sim_device.cuh"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

using namespace walk_device;

constexpr std::int64_t kMaxAutoBatch = std::int64_t{1} << 22;  // walks per launch when chosen automatically

}  // namespace

WalkSimCudaRun walk_sim_cuda(const WalkModel& model, const WalkSimParams& p, int device,
                             std::int64_t time_cap, std::int64_t visit_cap, double nv, WalkVisitTallies& out,
                             const WalkSimProgress& progress) {
  if (p.accounting || p.save_paths)
    throw InvalidInput("walk_sim_cuda: plain walks only (no accounting, no saved paths)");
  cuda::DeviceGuard guard(device);
  cuda::Stream stream;
  const cudaStream_t s = stream.get();
  const std::int64_t n = model.n;

  WalkSimCudaRun run;
  // Fixed: the model and the tallies. Per walk: 3 scratch words per node, the start, and at most
  // min(n, T / (visit_cap + 1)) visit counts above visit_cap (a run has T visits in all).
  const ModelBuffers model_buffers(model, s);
  const std::int64_t overflow_per_walk = std::min<std::int64_t>(n, p.steps / (visit_cap + 1));
  const std::int64_t per_walk = 3 * 8 * n + 8 * overflow_per_walk + 4;

  std::int64_t batch = p.batch_runs > 0 ? std::min(p.batch_runs, p.runs) : 0;
  if (batch == 0) {
    // The one device share (kernels/common/memory_plan.hpp); the model and the shared tallies come first.
    const std::int64_t budget = cuda::device_memory_budget(device, memory_plan::kDeviceMemoryShare).bytes;
    const std::int64_t fixed =
        static_cast<std::int64_t>(model_buffers.bytes()) + TallyBuffers::shared_bytes(n, time_cap, visit_cap);
    if (budget - fixed < per_walk)
      throw InsufficientMemory(
          "walk-sim on CUDA: one walk on n = " + std::to_string(n) + " nodes needs " +
          std::to_string(per_walk) + " bytes of device scratch besides " + std::to_string(fixed) +
          " bytes of model and tallies, but only " + std::to_string(budget) + " bytes are available (" +
          std::to_string(memory_plan::kDeviceMemoryPercent) + "% of the free memory of CUDA device " +
          std::to_string(device) + "); use device cpu");
    batch = std::min({(budget - fixed) / per_walk, p.runs, kMaxAutoBatch});
  }
  TallyBuffers tallies(n, time_cap, visit_cap, nv, overflow_per_walk * batch, s);
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  DeviceBuffer<std::int64_t> first(cells), last(cells);
  DeviceBuffer<std::int64_t> count_run = zeros<std::int64_t>(cells, s);
  const bool per_walk_start = p.start.kind != StartKind::node;
  DeviceBuffer<node_t> starts(per_walk_start ? static_cast<std::size_t>(batch) : 0);
  run.batch_runs = batch;
  run.device_bytes =
      3 * 8 * n * batch + static_cast<std::int64_t>(starts.bytes()) + model_buffers.bytes() + tallies.bytes();

  const walk::ModelView m = model_buffers.view(model.n);
  const walk::TallyView t = tallies.view();
  std::vector<node_t> host_starts;
  for (std::int64_t first_run = 0; first_run < p.runs; first_run += batch) {
    const std::int64_t count = std::min(batch, p.runs - first_run);
    if (per_walk_start) upload_starts(model, p, first_run, count, host_starts, starts, s);
    const walk::PlainWalkBatch b{p.seed,          first_run,    count,
                                 batch,           p.steps,      per_walk_start ? starts.data() : nullptr,
                                 p.start.node,    first.data(), last.data(),
                                 count_run.data()};
    for_kind(model.kind, [&](auto kind) {
      device_for_each<<<cuda::grid_for(count), cuda::kThreads, 0, s>>>(
          count, walk::PlainWalkBody<kind.value>{m, b, t});
    });
    NETDP_CUDA_CHECK_LAUNCH();
    tallies.drain_overflow(out, s);  // this batch's visit counts above visit_cap (synchronises)
    ++run.batches;
    if (progress) progress(double(first_run + count) / double(p.runs));
  }
  tallies.download_to(out, s);
  return run;
}

}  // namespace netdp::kernels
