// CUDA twin of the exact accountant on a gossip schedule (docs/math.md §6.9; docs/cuda_backend.md
// "Gossip-loss-sequence twins"; interface: gossip_loss_sequence_kernels.hpp). P = W_{0:t} is propagated on
// the device by the bodies of common/gossip_loss_sequence_bodies.hpp (one entry per lane), and every
// observer of the batch grows its view basis, one device thread per observer on interleaved slots, with the
// bodies of common/gossip_view_sequence_bodies.hpp: the CPU twin (sequence_view_twin_cpu) runs the same
// bodies, so the two give the same bytes.
//
// Memory (docs/design.md principle 5): P and its scratch (one for randomized schedules), the rounds, and per
// observer its slot, state, capacity and entries. The driver sizes the batches; the twin refuses when one
// does not fit in 85% of the free memory (or the memory limit).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/gossip_view_sequence_bodies.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_spmm.cuh"
#include "cuda/gossip_view_download.cuh"
#include "cuda/sequence_rounds.cuh"
#include "device_kernels.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

/// The device state of one run: P and its scratch, the rounds, every observer's id and capacity, and the
/// workspaces and entries of one batch.
class SequenceViewEngine {
 public:
  SequenceViewEngine(const SequenceViewProblem& p, const DistinctRounds& distinct, int device,
                     std::int64_t batch)
      : p_(p),
        s_(p.schedule),
        n_(s_.n),
        row_(p.source >= 0 ? 1 : n_),
        guard_(device),
        product_(static_cast<std::size_t>(n_ * n_)),
        scratch_(s_.kind == SequenceKind::randomized ? 0 : static_cast<std::size_t>(n_ * n_)),
        norms_(static_cast<std::size_t>(n_)),
        index_(s_.kind == SequenceKind::randomized ? static_cast<std::size_t>(n_) : 0),
        projections_(static_cast<std::size_t>(batch * row_)),
        reports_(static_cast<std::size_t>(batch)),
        rounds_(s_, distinct, stream_.get()),
        bases_(p.observers, p.capacities, p.count, n_, p.floor, p.width_capacity, batch, stream_.get()) {
    stream_.synchronize();
  }

  /// Observers first .. first + count - 1 of the list (count <= the batch): their entries into projections
  /// (row_ each) and their reports.
  void run_batch(std::int64_t first, std::int64_t count, double* projections, GossipViewObserver* reports) {
    const cudaStream_t stream = stream_.get();
    const gossip_view::SequenceBases bases = bases_.batch(first, stream);
    cuda::for_each(n_ * n_, sequence::IdentityBody{product_.data(), norms_.data(), n_}, stream);
    std::vector<std::int64_t> index;
    if (index_.size() > 0) {  // randomized: observer -> its place in the batch
      index.assign(static_cast<std::size_t>(n_), -1);
      for (std::int64_t i = 0; i < count; ++i) index[static_cast<std::size_t>(p_.observers[first + i])] = i;
      index_.upload(index, stream);
    }
    for (int t = 0; t < s_.steps; ++t) {
      if (s_.kind == SequenceKind::randomized) {
        const auto [v, w] = s_.activations[t];
        if (v == w) continue;
        if (t >= s_.t_start)
          cuda::for_each(2, gossip_view::TickMessagesBody{bases, index_.data(), product_.data(), v, w},
                         stream);
        cuda::for_each(n_, sequence::AverageRowsBody{product_.data(), n_, v, w}, stream);
        cuda::for_each(1, sequence::PairNormBody{product_.data(), norms_.data(), n_, v, w}, stream);
        continue;
      }
      const DeviceRound& round = rounds_.round(t);
      if (t >= s_.t_start && round.has_edges)
        cuda::for_each(count, gossip_view::RoundMessagesBody{bases, round.graph(), product_.data()}, stream);
      if (t + 1 < s_.steps) {  // W_{0:T} itself is never sent
        cuda::for_each_row(n_, n_, sequence::ProductBody{round.w(), product_.data(), scratch_.data(), n_},
                           stream);
        std::swap(product_, scratch_);
      }
    }
    cuda::for_each(
        count,
        gossip_view::FinishViewsBody{bases, p_.knows_noise, p_.source, projections_.data(), reports_.data()},
        stream);
    download_views(projections_.data(), reports_.data(), count, row_, projections, reports, stream);
    stream_.synchronize();  // also keeps `index` alive until its upload is done
  }

  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(product_.bytes() + scratch_.bytes() + norms_.bytes() + index_.bytes() +
                                     projections_.bytes() + reports_.bytes()) +
           rounds_.bytes() + bases_.bytes();
  }

 private:
  SequenceViewProblem p_;
  SequenceProblem s_;
  std::int64_t n_, row_;
  cuda::DeviceGuard guard_;  // the device current while the engine lives
  cuda::Stream stream_;
  DeviceBuffer<double> product_, scratch_, norms_;
  DeviceBuffer<std::int64_t> index_;
  DeviceBuffer<double> projections_;
  DeviceBuffer<GossipViewObserver> reports_;
  DeviceRounds rounds_;
  DeviceBases bases_;
};

}  // namespace

CudaSequenceViewRun gossip_view_sequence_cuda(const SequenceViewProblem& p, int device,
                                              std::int64_t memory_limit, double* projections,
                                              GossipViewObserver* reports) {
  const SequenceProblem& s = p.schedule;
  const bool randomized = s.kind == SequenceKind::randomized;
  if (s.n < 1 || s.steps < 1 || s.kind == SequenceKind::muffliato_c9 || p.count < 0 || p.source >= s.n ||
      p.width_capacity < 1 || (randomized ? s.activations == nullptr : s.rounds == nullptr) ||
      (p.count > 0 &&
       (p.observers == nullptr || p.capacities == nullptr || projections == nullptr || reports == nullptr)))
    throw InvalidInput(
        "gossip-loss-sequence (exact) on CUDA: inconsistent problem (n = " + std::to_string(s.n) +
        ", T = " + std::to_string(s.steps) + ", " + std::to_string(p.count) + " observers)");
  for (std::int64_t i = 0; i < p.count; ++i)
    if (p.observers[i] < 0 || p.observers[i] >= s.n)
      throw InvalidInput("gossip-loss-sequence (exact) on CUDA: observer " + std::to_string(p.observers[i]) +
                         " outside 0 .. " + std::to_string(s.n - 1));
  cuda::require_device(device);
  // ---- The batch: the most observers whose slots fit beside P and the rounds, estimated before allocating.
  const std::int64_t n = s.n, d = memory_plan::kDoubleBytes, row = p.source >= 0 ? 1 : n;
  const std::int64_t rank_capacity = largest_capacity(p.capacities, p.count);
  std::int64_t fixed = ((randomized ? 1 : 2) * n * n + n) * d +
                       (randomized ? n * memory_plan::kInt64Bytes : 0) +
                       p.count * (memory_plan::kInt32Bytes + memory_plan::kInt64Bytes);
  const DistinctRounds distinct = randomized ? DistinctRounds() : DistinctRounds(s);
  for (std::size_t t : distinct.first_of) fixed += round_bytes(s.rounds[t]);
  const std::int64_t per_observer =
      gossip_view::slot_doubles(n, rank_capacity, p.width_capacity) * d + row * d +
      static_cast<std::int64_t>(sizeof(gossip_view::BasisState) + sizeof(GossipViewObserver));
  const memory_plan::RunBatchPlan plan = cuda::plan_device_batch(
      device, memory_limit, p.count, fixed, per_observer, "gossip-loss-sequence (exact) on CUDA",
      "observer's basis", "the products and the rounds (n = " + std::to_string(n) + ")");
  const std::int64_t batch = plan.batch;
  SequenceViewEngine engine(p, distinct, device, batch);
  for (std::int64_t first = 0; first < p.count; first += batch) {
    const std::int64_t count = std::min(batch, p.count - first);
    engine.run_batch(first, count, projections + first * row, reports + first);
  }
  return {engine.device_bytes(), memory_plan::ceil_div(p.count, batch)};  // 0 for no observers
}

}  // namespace netdp::kernels
