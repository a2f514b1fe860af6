// CUDA twin of the time-varying gossip accountant (docs/math.md §6.1, 6.3, 6.5; docs/cuda_backend.md
// "Gossip-loss-sequence twins"; interface: gossip_loss_sequence_kernels.hpp). The bodies of
// common/gossip_loss_sequence_bodies.hpp, one entry per lane (the CPU twin runs whole rows: the same bits):
// the dense product P = W_{0:t} and its scratch stay on the device for the whole schedule, every round's W_t
// and E_t are uploaded once, and only the shares F come back.
//
// Memory (docs/design.md principle 5): P and the scratch (n x n each; one only for randomized gossip), F
// (n x count), the norms, and the rounds' CSR arrays. The products cannot be tiled (every message reads a
// whole row of P), so the engine refuses when they do not fit in 85% of the free memory (or the memory
// limit).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/gossip_loss_sequence_bodies.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_spmm.cuh"
#include "cuda/sequence_rounds.cuh"
#include "device_kernels.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

class SequenceEngine {
 public:
  SequenceEngine(const SequenceProblem& p, const DistinctRounds& distinct, int device)
      : p_(p),
        n_(p.n),
        guard_(device),
        product_(static_cast<std::size_t>(n_ * n_)),
        scratch_(p.kind == SequenceKind::randomized ? 0 : static_cast<std::size_t>(n_ * n_)),
        norms_(static_cast<std::size_t>(n_)),
        shares_(static_cast<std::size_t>(n_ * p.count)),
        rounds_(p, distinct, stream_.get()) {
    NETDP_CUDA_TRY(cudaMemsetAsync(shares_.data(), 0, shares_.bytes(), stream_.get()));
    reset_identity();
  }

  void run() {
    switch (p_.kind) {
      case SequenceKind::synchronous:
        for (int t = 0; t < p_.steps; ++t) {
          const DeviceRound& round = rounds_.round(t);
          if (t >= p_.t_start && round.has_edges) add_round_shares(round);
          if (t + 1 < p_.steps) left_multiply(round);  // W_{0:T} itself is never sent
        }
        break;
      case SequenceKind::randomized:
        for (int t = 0; t < p_.steps; ++t) tick(p_.activations[t], t >= p_.t_start);
        break;
      case SequenceKind::muffliato_c9: {
        const int T = p_.steps, K = p_.gossip_steps;
        for (int t = 0; t < T; ++t) {
          reset_identity();  // the gradient injected at round t starts from its own noise
          for (int j = t; j < T; ++j) {
            const DeviceRound& round = rounds_.round(j);
            for (int k = 0; k < K; ++k) {
              if (round.has_edges) add_round_shares(round);
              if (j + 1 < T || k + 1 < K) left_multiply(round);
            }
          }
        }
        break;
      }
    }
  }

  void download(double* shares) {
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(shares, shares_.data(), shares_.bytes(), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
  }

  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(product_.bytes() + scratch_.bytes() + norms_.bytes() + shares_.bytes()) +
           rounds_.bytes();
  }

 private:
  void reset_identity() {
    cuda::for_each(n_ * n_, sequence::IdentityBody{product_.data(), norms_.data(), n_}, stream_.get());
  }

  /// The messages of one round: norms of the senders' rows, their shares (in the scratch), F += them.
  void add_round_shares(const DeviceRound& r) {
    const cudaStream_t stream = stream_.get();
    const std::int64_t count = p_.count;
    cuda::for_each(n_, sequence::RowNormsBody{r.graph(), product_.data(), norms_.data(), n_}, stream);
    cuda::for_each_row(n_, count,
                       sequence::MessageSharesBody{r.graph(), product_.data(), norms_.data(), scratch_.data(),
                                                   n_, p_.first, count},
                       stream);
    cuda::for_each_row(n_, count, sequence::AddSharesBody{r.graph(), scratch_.data(), shares_.data(), count},
                       stream);
  }

  /// P <- W_t P, one entry per lane (the node-major product of cuda/gossip_spmm.cuh), then the buffers trade
  /// places.
  void left_multiply(const DeviceRound& r) {
    cuda::for_each_row(n_, n_, sequence::ProductBody{r.w(), product_.data(), scratch_.data(), n_},
                       stream_.get());
    std::swap(product_, scratch_);
  }

  /// One tick of randomized gossip on the edge {v, w}.
  void tick(std::pair<node_t, node_t> edge, bool messages) {
    const auto [v, w] = edge;
    if (v == w) return;  // an idle tick: W_t = I, nobody talks
    const cudaStream_t stream = stream_.get();
    if (messages)
      cuda::for_each(p_.count,
                     sequence::TickSharesBody{product_.data(), norms_.data(), shares_.data(), n_, p_.first,
                                              p_.count, v, w},
                     stream);
    cuda::for_each(n_, sequence::AverageRowsBody{product_.data(), n_, v, w}, stream);
    cuda::for_each(1, sequence::PairNormBody{product_.data(), norms_.data(), n_, v, w}, stream);
  }

  SequenceProblem p_;
  std::int64_t n_;
  cuda::DeviceGuard guard_;  // the device current while the engine lives
  cuda::Stream stream_;
  DeviceBuffer<double> product_, scratch_, norms_, shares_;
  DeviceRounds rounds_;
};

}  // namespace

CudaSequenceRun gossip_loss_sequence_cuda(const SequenceProblem& p, int device, std::int64_t memory_limit,
                                          double* shares) {
  const bool randomized = p.kind == SequenceKind::randomized;
  if (p.n < 1 || p.steps < 1 || p.count < 0 || p.first < 0 || p.first + p.count > p.n || shares == nullptr ||
      (randomized ? p.activations == nullptr : p.rounds == nullptr) || p.gossip_steps < 1)
    throw InvalidInput("gossip-loss-sequence on CUDA: inconsistent problem (n = " + std::to_string(p.n) +
                       ", T = " + std::to_string(p.steps) + ", sources " + std::to_string(p.first) + " + " +
                       std::to_string(p.count) + ")");
  cuda::require_device(device);
  const std::int64_t n = p.n, d = memory_plan::kDoubleBytes;
  std::int64_t bytes = ((randomized ? 1 : 2) * n * n + n * std::int64_t{p.count} + n) * d;
  const DistinctRounds distinct = randomized ? DistinctRounds() : DistinctRounds(p);
  for (std::size_t t : distinct.first_of) bytes += round_bytes(p.rounds[t]);
  {
    const cuda::DeviceGuard guard(device);
    const cuda::MemoryBudget budget =
        cuda::device_memory_budget(device, memory_plan::kDeviceMemoryShare, memory_limit);
    if (bytes > budget.bytes)
      throw InsufficientMemory("gossip-loss-sequence on CUDA: n = " + std::to_string(n) + " needs " +
                               std::to_string(bytes) + " bytes (" + (randomized ? "one" : "two") +
                               " dense n x n products), more than " + budget.source + " (" +
                               std::to_string(budget.bytes) + " bytes); use device cpu");
  }
  SequenceEngine engine(p, distinct, device);
  engine.run();
  engine.download(shares);
  return {engine.device_bytes()};
}

}  // namespace netdp::kernels
