// CUDA twin of the exact accountant of linear Muffliato-GD runs (docs/math.md §6.5; docs/cuda_backend.md
// "Muffliato exact twins"; interface: muffliato_view_kernels.hpp). The noise coefficients (three n x nT
// buffers) stay on the device and go through the rounds with the bodies of common/muffliato_view_bodies.hpp
// and the product of common/gossip_loss_sequence_bodies.hpp, one entry per lane; every observer of a batch
// grows its basis on one device thread (interleaved slots). muffliato_view_twin_cpu runs the same bodies: the
// same bytes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/memory_plan.hpp"
#include "common/muffliato_view_bodies.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_spmm.cuh"
#include "cuda/sequence_rounds.cuh"
#include "device_kernels.hpp"
#include "muffliato_view_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

class MuffliatoViewEngine {
 public:
  MuffliatoViewEngine(const MuffliatoViewArrays& p, const DistinctRounds& distinct, int device,
                      std::int64_t batch)
      : p_(p),
        n_(p.schedule.n),
        width_(n_ * p.schedule.steps),
        guard_(device),
        buffers_(static_cast<std::size_t>(3 * n_ * width_)),
        share_(static_cast<std::size_t>(p.source >= 0 ? n_ : n_ * n_)),
        reports_(static_cast<std::size_t>(n_)),
        rounds_(p.schedule, distinct, stream_.get()),
        bases_(p.observers, p.capacities, p.count, width_, p.floor, p.width_capacity, batch, stream_.get()) {
    stream_.synchronize();
  }

  /// Observers first .. first + count - 1 of the list: their shares and reports in the device's n x n (or n)
  /// share and n reports.
  void run_batch(std::int64_t first, std::int64_t count) {
    const cudaStream_t stream = stream_.get();
    const int T = p_.schedule.steps, K = p_.gossip_steps;
    const std::int64_t n = n_, N = width_;
    const gossip_view::SequenceBases bases = bases_.batch(first, stream);
    NETDP_CUDA_TRY(cudaMemsetAsync(buffers_.data(), 0, buffers_.bytes(), stream));
    double* const base = buffers_.data();
    double* state = base;  // theta^t's coefficients; theta^0 = 0
    for (int t = 0; t < T; ++t) {
      const DeviceRound& round = rounds_.round(t);
      const double gamma = p_.gammas[p_.gamma_count == 1 ? 0 : t];
      const std::int64_t cols = std::int64_t(t + 1) * n;
      cuda::for_each(n * cols, muffliato_view::InjectNoiseBody{state, n, N, cols, t, p_.state_factor},
                     stream);
      double *prev = nullptr, *cur = state, *next = nullptr;
      for (double* b : {base, base + n * N, base + 2 * n * N})
        if (b != state) (next ? prev : next) = b;
      for (int k = 0; k < K; ++k) {
        cuda::for_each(count, muffliato_view::MessagesBody{bases, round.graph(), cur, n, T, p_.knows_noise},
                       stream);
        cuda::for_each_row(n, N, sequence::ProductBody{round.w(), cur, next, N}, stream);
        if (k > 0)
          cuda::for_each(n * cols, muffliato_view::ChebyshevBody{next, prev, N, cols, gamma}, stream);
        double* free = prev;
        prev = cur, cur = next, next = free;
      }
      state = cur;
    }
    cuda::for_each(
        count,
        muffliato_view::SharesBody{bases, n, p_.source, T, p_.same_shift, share_.data(), reports_.data()},
        stream);
  }

  /// The device's shares and reports into the caller's, for the listed observers only (the others' stay).
  void download(double* share, GossipViewObserver* reports) {
    std::vector<double> all(share_.size());
    std::vector<GossipViewObserver> all_reports(reports_.size());
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(all.data(), share_.data(), share_.bytes(), cudaMemcpyDeviceToHost, stream_.get()));
    NETDP_CUDA_TRY(cudaMemcpyAsync(all_reports.data(), reports_.data(), reports_.bytes(),
                                   cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    for (std::int64_t i = 0; i < p_.count; ++i) {
      const std::int64_t v = p_.observers[i];
      reports[v] = all_reports[static_cast<std::size_t>(v)];
      if (p_.source >= 0) {
        share[v] = all[static_cast<std::size_t>(v)];
      } else {
        for (std::int64_t u = 0; u < n_; ++u) share[u * n_ + v] = all[static_cast<std::size_t>(u * n_ + v)];
      }
    }
  }

  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(buffers_.bytes() + share_.bytes() + reports_.bytes()) + rounds_.bytes() +
           bases_.bytes();
  }

 private:
  MuffliatoViewArrays p_;
  std::int64_t n_, width_;
  cuda::DeviceGuard guard_;  // the device current while the engine lives
  cuda::Stream stream_;
  DeviceBuffer<double> buffers_;
  DeviceBuffer<double> share_;
  DeviceBuffer<GossipViewObserver> reports_;
  DeviceRounds rounds_;
  DeviceBases bases_;
};

}  // namespace

CudaMuffliatoViewRun muffliato_view_cuda(const MuffliatoViewArrays& p, int device, std::int64_t memory_limit,
                                         double* share, GossipViewObserver* reports) {
  const SequenceProblem& s = p.schedule;
  if (s.n < 1 || s.steps < 1 || s.rounds == nullptr || p.gossip_steps < 1 || p.gammas == nullptr ||
      (p.gamma_count != 1 && p.gamma_count != s.steps) || p.count < 0 || p.source >= s.n ||
      p.width_capacity < 1 || share == nullptr || reports == nullptr ||
      (p.count > 0 && (p.observers == nullptr || p.capacities == nullptr)))
    throw InvalidInput(
        "Muffliato exact accountant on CUDA: inconsistent problem (n = " + std::to_string(s.n) +
        ", T = " + std::to_string(s.steps) + ", " + std::to_string(p.count) + " observers)");
  for (std::int64_t i = 0; i < p.count; ++i)
    if (p.observers[i] < 0 || p.observers[i] >= s.n)
      throw InvalidInput("Muffliato exact accountant on CUDA: observer " + std::to_string(p.observers[i]) +
                         " outside 0 .. " + std::to_string(s.n - 1));
  cuda::require_device(device);
  // ---- The batch: the most observers whose slots fit beside the coefficients, estimated before allocating.
  const std::int64_t n = s.n, N = n * s.steps, d = memory_plan::kDoubleBytes;
  const std::int64_t rank_capacity = largest_capacity(p.capacities, p.count);
  std::int64_t fixed = 3 * n * N * d + (p.source >= 0 ? n : n * n) * d +
                       n * static_cast<std::int64_t>(sizeof(GossipViewObserver)) +
                       p.count * (memory_plan::kInt32Bytes + memory_plan::kInt64Bytes);
  const DistinctRounds distinct(s);
  for (std::size_t t : distinct.first_of) fixed += round_bytes(s.rounds[t]);
  const std::int64_t per_observer = gossip_view::slot_doubles(N, rank_capacity, p.width_capacity) * d +
                                    static_cast<std::int64_t>(sizeof(gossip_view::BasisState));
  const std::int64_t batch = cuda::plan_device_batch(device, memory_limit, p.count, fixed, per_observer,
                                                     "Muffliato exact accountant on CUDA", "observer's basis",
                                                     "the noise coefficients (n = " + std::to_string(n) +
                                                         ", T = " + std::to_string(s.steps) + ")")
                                 .batch;
  MuffliatoViewEngine engine(p, distinct, device, batch);
  for (std::int64_t first = 0; first < p.count; first += batch)
    engine.run_batch(first, std::min(batch, p.count - first));
  engine.download(share, reports);
  return {engine.device_bytes(), (p.count + batch - 1) / batch};
}

}  // namespace netdp::kernels
