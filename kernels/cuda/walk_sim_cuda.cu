// CUDA backend of the Monte Carlo walk engine, plain walks (docs/walk_sim.md "CUDA", docs/cuda_backend.md
// "Walk engine for throughput"). Two engines over the CPU's paths (same Philox words, same next-node rules):
// - statistics (WalkPlainCudaEngine, walk-sim --device cuda): one walk per resident thread at a time with a
//   compact visit table (walk::VisitStatsBody, common/walk_sim_visit_stats.hpp; T < 2^32, validate refuses
//   longer walks) and block-level tallies. Integer tallies only, so the statistics are exactly the CPU's.
// - stepping (WalkStepCudaEngine): no per-node state, kLanes walks per thread (walk::WalkStepBody,
//   common/walk_sim_stepping.hpp), optional per-node visit totals.
// Both advance their walks through the one step loop (walk::walk_steps, common/walk_sim_steps.hpp). Start
// nodes come from the CPU's walk_start on the host. Batch sizes come from memory_plan::plan_batch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/memory_plan.hpp"
#include "common/walk_sim_stepping.hpp"
#include "common/walk_sim_visit_stats.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/walk_sim_device.cuh"
#include "cuda/walk_sim_launch.cuh"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

using namespace walk_device;

constexpr std::int64_t kMaxAutoBatch = std::int64_t{1} << 22;   // walks per launch when chosen automatically
constexpr int kBlockThreads = 128;                              // threads per block of the block bodies
constexpr std::int64_t kResidentWalks = std::int64_t{1} << 18;  // walks in flight the engines aim at
constexpr int kLanes = 4;                                       // walks per thread of the stepping body

std::int64_t blocks_for(std::int64_t items, std::int64_t threads) {
  return std::max<std::int64_t>(1, (items + threads - 1) / threads);
}

InsufficientMemory too_little(const char* what, std::int64_t n, std::int64_t need, std::int64_t fixed,
                              std::int64_t budget, int device) {
  return InsufficientMemory(
      "walk-sim on CUDA: " + std::string(what) + " on n = " + std::to_string(n) + " nodes needs " +
      std::to_string(need) + " bytes of device scratch besides " + std::to_string(fixed) +
      " bytes of model and tallies, but only " + std::to_string(budget) + " bytes are available (" +
      std::to_string(memory_plan::kDeviceMemoryPercent) + "% of the free memory of CUDA device " +
      std::to_string(device) + "); use device cpu");
}

/// The statistics engine: the device state of one batch size as members, in reverse destruction order (the
/// device context first and gone last, so the stream outlives the buffers that use it).
class PlainEngine final : public WalkPlainCudaEngine {
 public:
  PlainEngine(const WalkTables& model, const WalkRunSpec& p, int device, std::int64_t time_cap,
              std::int64_t visit_cap, double nv)
      : model_(model),
        p_(p),
        context_(device),
        model_buffers_(model, context_.stream.get()),
        layout_(walk::plan_visit_stats(model.n, p.steps, kBlockThreads, kBlockBytes, time_cap, visit_cap)),
        overflow_per_walk_(std::min<std::int64_t>(model.n, p.steps / (visit_cap + 1))) {
    plan(time_cap, visit_cap);
    const cudaStream_t s = context_.stream.get();
    tallies_ =
        std::make_unique<TallyBuffers>(model.n, time_cap, visit_cap, nv, overflow_per_walk_ * batch_, s);
    const auto residents = static_cast<std::size_t>(blocks_ * threads_);
    if (!layout_.shared_tables) {
      tables_ = zeros<walk::VisitSlot>(residents * static_cast<std::size_t>(layout_.capacity), s);
      if (layout_.bits > 0)
        keys_ = zeros<std::uint32_t>(residents * static_cast<std::size_t>(layout_.capacity), s);
    }
    starts_ = DeviceBuffer<node_t>(p.per_walk_start ? static_cast<std::size_t>(batch_) : 0);
    run_.batch_runs = batch_;
    run_.device_bytes = static_cast<std::int64_t>(tables_.bytes() + keys_.bytes() + starts_.bytes()) +
                        static_cast<std::int64_t>(model_buffers_.bytes()) + tallies_->bytes();
  }

  WalkSimCudaRun plan() const override { return run_; }

  void run_batch(std::int64_t first_run, std::int64_t count, std::span<const node_t> starts,
                 WalkVisitTallies& tallies) override {
    const cuda::DeviceGuard guard(context_.device);
    const cudaStream_t s = context_.stream.get();
    const bool per_walk_start = starts_.size() > 0;
    if (per_walk_start) upload_starts(starts, count, starts_, s);
    const walk::ModelView m = model_buffers_.view(model_.n);
    const walk::TallyView t = tallies_->view();
    const node_t* start_nodes = per_walk_start ? starts_.data() : nullptr;
    const walk::VisitStatsBatch b{p_.seed,     first_run,     count,          p_.steps,
                                  start_nodes, p_.start_node, tables_.data(), keys_.data()};
    const auto blocks = static_cast<int>(std::min(blocks_, blocks_for(count, threads_)));
    for_kind(model_.kind, [&](auto kind) {
      for_each_block(count, blocks, static_cast<int>(threads_),
                     walk::VisitStatsBody<kind.value>{m, b, layout_, t}, s);
    });
    tallies_->drain_overflow(tallies, s);  // this batch's visit counts above visit_cap (synchronises)
    ++run_.batches;
  }

  void finish(WalkVisitTallies& tallies) override {
    const cuda::DeviceGuard guard(context_.device);
    tallies_->download_to(tallies, context_.stream.get());
  }

 private:
  /// Walks per launch and resident threads: p.batch_runs (or as many walks as the device share holds after
  /// the model, the tallies and the visit tables, at most kMaxAutoBatch); up to kResidentWalks resident
  /// threads in at most the blocks the device holds at once, each thread with its visit table (in shared
  /// memory when the layout says so, else in global memory, at most half of the share). Per walk: the start
  /// and at most min(n, T / (visit_cap + 1)) visit counts above visit_cap.
  void plan(std::int64_t time_cap, std::int64_t visit_cap) {
    const std::int64_t n = model_.n;
    const std::int64_t per_walk = 8 * overflow_per_walk_ + 4;
    const memory_plan::Budget budget_of{
        cuda::device_memory_budget(context_.device, memory_plan::kDeviceMemoryShare).bytes, false};
    const std::int64_t budget = budget_of.bytes;
    const std::int64_t fixed = static_cast<std::int64_t>(model_buffers_.bytes()) +
                               TallyBuffers::shared_bytes(n, time_cap, visit_cap);
    std::int64_t tables = 0;
    const std::int64_t wanted =
        std::min(p_.batch_runs > 0 ? std::min(p_.batch_runs, p_.runs) : p_.runs, kResidentWalks);
    threads_ = kBlockThreads;
    blocks_ = blocks_for(wanted, threads_);
    // Launch geometry (docs/cuda_backend.md "Launch geometry of the statistics mode"): the body is
    // grid-stride, so the grid is at most the blocks that fit the device at once (blocks per SM from the
    // kernel's shared memory and registers, times the SMs); a grid past that runs a partial last wave.
    {
      const auto bytes = static_cast<std::size_t>(layout_.block_words(threads_, n)) * sizeof(walk::Counter);
      std::int64_t resident = 0;
      for_kind(model_.kind, [&](auto kind) {
        resident = resident_blocks<walk::VisitStatsBody<kind.value>>(bytes, static_cast<int>(threads_),
                                                                     context_.device);
      });
      blocks_ = std::min(blocks_, resident);
    }
    if (!layout_.shared_tables) {
      const std::int64_t table = layout_.capacity * (layout_.bits > 0 ? 12 : 8);
      const std::int64_t residents = std::min(blocks_ * threads_, (budget - fixed) / 2 / table);
      if (residents < 1)
        throw too_little("one walk's visit table", n, table + per_walk, fixed, budget, context_.device);
      threads_ = std::min<std::int64_t>(threads_, residents);
      blocks_ = residents / threads_;
      tables = blocks_ * threads_ * table;
    }
    if (p_.batch_runs > 0) {
      batch_ = std::min(p_.batch_runs, p_.runs);
      return;
    }
    const memory_plan::BatchPlan batch =
        memory_plan::plan_batch(p_.runs, fixed + tables, per_walk, budget_of, kMaxAutoBatch);
    if (!batch.fits) throw too_little("one walk", n, per_walk + tables, fixed, budget, context_.device);
    batch_ = batch.batch;
  }

  const WalkTables model_;
  const WalkRunSpec p_;
  const cuda::DeviceContext
      context_;  // device, guard and stream, from construction to the last member's destruction
  const ModelBuffers model_buffers_;
  const walk::VisitStatsLayout layout_;
  const std::int64_t overflow_per_walk_;
  std::int64_t batch_ = 0, threads_ = 0, blocks_ = 0;
  std::unique_ptr<TallyBuffers> tallies_;
  DeviceBuffer<walk::VisitSlot> tables_;
  DeviceBuffer<std::uint32_t> keys_;
  DeviceBuffer<node_t> starts_;
  WalkSimCudaRun run_;
};

/// The stepping engine: summaries of one batch and the optional visit totals.
class StepEngine final : public WalkStepCudaEngine {
 public:
  StepEngine(const WalkTables& model, const WalkRunSpec& p, int device, bool count_visits)
      : model_(model),
        p_(p),
        context_(device),
        model_buffers_(model, context_.stream.get()),
        visits_(zeros<walk::Counter>(count_visits ? static_cast<std::size_t>(model.n) : 0,
                                     context_.stream.get())) {
    const std::int64_t per_walk = sizeof(walk::WalkStepSummary) + (p.per_walk_start ? 4 : 0);
    const memory_plan::Budget budget{
        cuda::device_memory_budget(context_.device, memory_plan::kDeviceMemoryShare).bytes, false};
    const std::int64_t fixed = static_cast<std::int64_t>(model_buffers_.bytes() + visits_.bytes());
    if (p.batch_runs > 0) {
      batch_ = std::min(p.batch_runs, p.runs);
    } else {
      const memory_plan::BatchPlan batch =
          memory_plan::plan_batch(p.runs, fixed, per_walk, budget, kMaxAutoBatch);
      if (!batch.fits) throw too_little("one walk", model.n, per_walk, fixed, budget.bytes, device);
      batch_ = batch.batch;
    }
    summaries_ = DeviceBuffer<walk::WalkStepSummary>(static_cast<std::size_t>(batch_));
    host_.resize(static_cast<std::size_t>(batch_));
    starts_ = DeviceBuffer<node_t>(p.per_walk_start ? static_cast<std::size_t>(batch_) : 0);
    run_.batch_runs = batch_;
    run_.device_bytes = fixed + static_cast<std::int64_t>(summaries_.bytes() + starts_.bytes());
  }

  WalkSimCudaRun plan() const override { return run_; }

  std::span<const walk::WalkStepSummary> run_batch(std::int64_t first_run, std::int64_t count,
                                                   std::span<const node_t> starts) override {
    const cuda::DeviceGuard guard(context_.device);
    const cudaStream_t s = context_.stream.get();
    const bool per_walk_start = starts_.size() > 0;
    if (per_walk_start) upload_starts(starts, count, starts_, s);
    walk::WalkStepBatch b;
    b.seed = p_.seed;
    b.first_run = first_run;
    b.count = count;
    b.groups = (count + kLanes - 1) / kLanes;
    b.steps = p_.steps;
    b.starts = per_walk_start ? starts_.data() : nullptr;
    b.start_node = p_.start_node;
    b.summaries = summaries_.data();
    b.visits = visits_.size() > 0 ? visits_.data() : nullptr;
    b.block_visits = b.visits != nullptr && 8 * model_.n <= kBlockBytes / 3;  // n <= 4096: visits per block
    const walk::ModelView m = model_buffers_.view(model_.n);
    const auto blocks =
        static_cast<int>(std::min<std::int64_t>(blocks_for(b.groups, kBlockThreads), 1 << 20));
    for_kind(model_.kind, [&](auto kind) {
      for_each_block(b.groups, blocks, kBlockThreads, walk::WalkStepBody<kind.value, kLanes>{m, b}, s);
    });
    if (count > 0)
      NETDP_CUDA_TRY(cudaMemcpyAsync(host_.data(), summaries_.data(),
                                     static_cast<std::size_t>(count) * sizeof(walk::WalkStepSummary),
                                     cudaMemcpyDeviceToHost, s));
    NETDP_CUDA_TRY(cudaStreamSynchronize(s));
    ++run_.batches;
    return {host_.data(), static_cast<std::size_t>(count)};
  }

  std::vector<std::int64_t> visits() override {
    const cuda::DeviceGuard guard(context_.device);
    if (visits_.size() == 0) return {};
    return download(visits_, context_.stream.get());
  }

 private:
  const WalkTables model_;
  const WalkRunSpec p_;
  const cuda::DeviceContext context_;
  const ModelBuffers model_buffers_;
  DeviceBuffer<walk::Counter> visits_;
  std::int64_t batch_ = 0;
  DeviceBuffer<walk::WalkStepSummary> summaries_;
  std::vector<walk::WalkStepSummary> host_;
  DeviceBuffer<node_t> starts_;
  WalkSimCudaRun run_;
};

}  // namespace

std::unique_ptr<WalkPlainCudaEngine> walk_sim_cuda(const WalkTables& model, const WalkRunSpec& p, int device,
                                                   std::int64_t time_cap, std::int64_t visit_cap, double nv) {
  return std::make_unique<PlainEngine>(model, p, device, time_cap, visit_cap, nv);
}

std::unique_ptr<WalkStepCudaEngine> walk_steps_cuda(const WalkTables& model, const WalkRunSpec& p, int device,
                                                    bool count_visits) {
  return std::make_unique<StepEngine>(model, p, device, count_visits);
}

}  // namespace netdp::kernels
