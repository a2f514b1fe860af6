// CUDA backend of the gossip accountant: pairwise Renyi loss of synchronous Muffliato with a fixed symmetric
// W (docs/math.md §6.1 eq. M1 with W_{0:t} = W^t, 6.2). Same two passes as the CPU backend
// (gossip_loss_kernels.hpp); the per-element maths comes from common/gossip_loss_math.hpp. Design and
// bandwidth model: docs/cuda_backend.md "Node-major gossip engines".
//
// Layout: node-major source tiles of at most kSourceTile sources. A tile of b sources is a row-major n x b
// block X (ld = b), X[w b + j] = (W^t)_{w, s + j}: n b doubles that the gathers of the next product find in
// L2. Each power is one warp-per-row pass (cuda/gossip_spmm.cuh): pass 1 makes the power, then the norms
// r_t(u) = ||W^t e_u||^2 of the tile's sources in the one order of the CPU twin (gossip_loss::
// ChunkSquaresBody, ColumnNormsBody: chunks of nodes, then the chunks in order), pass 2 adds the shares
// S[w, j] in the same pass as the power (gossip_loss::SharesStepBody). The final loss block is column-major
// (column j = row s + j of the loss matrix) and goes to the sink through two small pinned chunks
// (RowStaging). A dense W (Propagation::dense) is propagated by one DGEMM per power (cuda::multiply,
// Propagator::apply_rows) and the same bodies record the power in place. Tiles and bytes:
// memory_plan::plan_gossip_loss (pure, tested without a GPU), capped at kSourceTile. The engine holds the
// device state; the driver (src/accounting/gossip_loss.cpp) runs the tile loops, one call per tile.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/gossip_loss_bodies.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/base/row_staging.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_spmm.cuh"
#include "cuda/node_major_matrix.hpp"
#include "cuda/propagator.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

using namespace cuda;

/// Sources per tile unless a tile is forced: n x 32 doubles of X, of Y and of S (16.8 MB each at n = 65,536)
/// stay in the H100's 50 MB L2 while one power gathers from X (docs/cuda_backend.md "Node-major gossip
/// engines").
constexpr std::int64_t kSourceTile = 32;

namespace mp = memory_plan;

/// The tile widths and device bytes of a request (InsufficientMemory when not even one source fits).
CudaGossipLossRun plan_tiles(const GossipLossProblem& p, int device, node_t count, std::int64_t tile_sources,
                             std::int64_t memory_limit, mp::GossipLossPlan& plan) {
  const std::int64_t n = p.w.n;
  const mp::GossipLossSizes sizes{n,       p.w.nnz(), static_cast<std::int64_t>(p.graph.adjacency.size()),
                                  p.steps, p.dense,   count};
  plan = mp::plan_gossip_loss(sizes, {cuda::free_device_bytes(), memory_limit, tile_sources});
  if (!plan.fits) {
    throw InsufficientMemory(
        "gossip loss on CUDA: n = " + std::to_string(n) + " needs " + std::to_string(plan.needed_bytes) +
        " bytes for a tile of one source (" + std::to_string(plan.fixed_bytes) + " fixed + " +
        std::to_string(plan.per_source_bytes) + " per source) but only " + std::to_string(plan.budget.bytes) +
        " bytes are available (" + mp::describe(plan.budget, device) + ")");
  }
  // Node-major tiles are narrow by design (kSourceTile); a forced tile_sources is used as given.
  const std::int64_t cap = tile_sources > 0 ? std::numeric_limits<std::int64_t>::max() : kSourceTile;
  CudaGossipLossRun run;
  run.norms_tile = std::min(plan.norms_tile, cap);  // pass 1 covers all n sources
  run.tile_sources = std::min(plan.tile, cap);      // pass 2 the requested ones
  run.tiles = (count + run.tile_sources - 1) / run.tile_sources;
  return run;
}

/// The device state of one request, as members in reverse destruction order: the device guard and the stream
/// first (gone last), the row staging last (gone first, once the copies in flight have landed).
class Engine final : public GossipLossCudaEngine {
 public:
  Engine(const GossipLossProblem& p, int device, const CudaGossipLossRun& tiles, std::int64_t staging_columns,
         LossRowSink& sink)
      : p_(p),
        context_(device),
        run_(tiles),
        w_(p.w, p.dense, context_.stream.get()),
        norms_(static_cast<std::size_t>(p.steps) * static_cast<std::size_t>(p.w.n)),
        block_a_(block_elements(std::max(tiles.norms_tile, tiles.tile_sources))),
        block_b_(block_a_.size()),
        shares_(block_elements(tiles.tile_sources)),
        losses_(shares_.size()),
        staging_(p.w.n, staging_columns, context_.stream.get(), sink) {
    const cudaStream_t stream = context_.stream.get();
    adj_offsets_ = DeviceBuffer<std::int64_t>(p.graph.offsets.size());
    adjacency_ = DeviceBuffer<std::int32_t>(p.graph.adjacency.size());
    adj_offsets_.upload(std::span<const std::int64_t>(p.graph.offsets), stream);
    adjacency_.upload(std::span<const std::int32_t>(p.graph.adjacency), stream);
    // Pass 1 writes each r_t(u) once (zeroed anyway); never hand DGEMM uninitialised memory (0 * NaN = NaN).
    for (const DeviceBuffer<double>* buffer : {&norms_, &block_a_, &block_b_})
      NETDP_CUDA_TRY(cudaMemsetAsync(buffer->data(), 0, buffer->bytes(), stream));
    run_.device_bytes =
        w_.device_bytes() +
        static_cast<std::int64_t>(adj_offsets_.bytes() + adjacency_.bytes() + norms_.bytes() +
                                  block_a_.bytes() + block_b_.bytes() + shares_.bytes() + losses_.bytes());
  }

  CudaGossipLossRun plan() const override { return run_; }

  // ---- Pass 1: r_t(u) = ||W^t e_u||^2 for the tile's sources u and every t (docs/math.md §6.2). ----
  void add_norms(node_t s, node_t cols) override {
    const cuda::DeviceGuard guard(context_.device);
    const std::int64_t n = p_.w.n, chunks = gossip_loss::norm_chunks(n);
    propagate_tile(s, cols, [&](std::int64_t k, const double* x, double* y) {
      if (y) {
        cuda::for_each_row(n, cols,
                           gossip_loss::PowerRowsBody<offset_t, node_t>{
                               {{w_.offsets.data(), w_.columns.data(), w_.values.data(), x}, cols, y}},
                           stream());
      }
      // The power's column norms in the one order the CPU twin sums too (gossip_loss::kNormChunk; docs/
      // cuda_backend.md "Gossip-loss: the norms' one order"). The chunk sums go to the other block, which
      // holds the spent power (chunks x cols <= n x cols) until the next product overwrites it.
      const double* power = y ? y : x;
      double* partial = power == block_a_.data() ? block_b_.data() : block_a_.data();
      cuda::for_each(chunks * cols, gossip_loss::ChunkSquaresBody{power, n, cols, partial}, stream());
      cuda::for_each(cols, gossip_loss::ColumnNormsBody{partial, chunks, cols, s, norms_.data() + k * n},
                     stream());
    });
    context_.stream.synchronize();  // the tile is done when the call returns: the driver's progress is true
  }

  // ---- Pass 2: shares, neighbour sums and f(u, v) for sources s .. s + cols - 1, queued for the sink. ----
  void loss_rows(node_t s, node_t cols) override {
    const cuda::DeviceGuard guard(context_.device);
    const std::int64_t n = p_.w.n;
    NETDP_CUDA_TRY(
        cudaMemsetAsync(shares_.data(), 0, static_cast<std::size_t>(n * cols) * sizeof(double), stream()));
    propagate_tile(s, cols, [&](std::int64_t k, const double* x, double* y) {
      // S[w, j] += (W^t)_{w, s + j}^2 / r_t(w) (M1), the CPU's rounding element for element.
      cuda::for_each_row(n, cols,
                         gossip_loss::SharesStepBody<offset_t, node_t>{w_.offsets.data(), w_.columns.data(),
                                                                       w_.values.data(), x, cols, y,
                                                                       norms_.data() + k * n, shares_.data()},
                         stream());
    });
    // f(u, v) = pair_loss(sum_{w in N(v)} S[w, j]), neighbours in the graph's sorted order like the CPU.
    cuda::for_each_row(
        n, cols,
        gossip_loss::NeighbourLossesBody{shares_.data(), adj_offsets_.data(), adjacency_.data(), n, cols, s,
                                         p_.scale, p_.cap_ldp, losses_.data()},
        stream());
    // Queued behind the kernels; the next tile's kernels, queued after, overwrite `losses` only once these
    // copies are done (one stream), while the host hands this tile's rows to the sink.
    staging_.push(s, cols, losses_.data());
  }

  void finish() override {
    const cuda::DeviceGuard guard(context_.device);
    staging_.flush();
  }

 private:
  std::size_t block_elements(std::int64_t sources) const {
    return static_cast<std::size_t>(p_.w.n) * static_cast<std::size_t>(sources);
  }
  cudaStream_t stream() const { return context_.stream.get(); }

  /// W^t e_u for t = 0 .. t_end - 1 and the tile's sources u = s .. s + cols - 1. For t >= t_start,
  /// record(t - t_start, x, y) makes the power from x into y and records it in the same pass (y = nullptr:
  /// x already is the power, at t = 0 and on the dense path); below t_start a plain product.
  template <typename Record>
  void propagate_tile(std::int64_t s, std::int64_t cols, Record&& record) {
    const std::int64_t n = p_.w.n, t_end = std::int64_t{p_.t_start} + p_.steps;
    double* x = block_a_.data();
    double* y = block_b_.data();
    cuda::for_each_row(n, cols, spmm::IdentityRowsBody{x, cols, s}, stream());
    if (p_.t_start == 0) record(0, x, nullptr);
    for (std::int64_t t = 1; t < t_end; ++t) {
      if (!w_.dense && t >= p_.t_start) {
        record(t - p_.t_start, x, y);  // the power fused with its record
      } else {
        cuda::multiply(w_, x, y, cols, stream());  // DGEMM, or a plain product below t_start
        if (t >= p_.t_start) record(t - p_.t_start, y, nullptr);
      }
      std::swap(x, y);
    }
  }

  const GossipLossProblem p_;
  const cuda::DeviceContext context_;  // device, guard and stream, from construction to the last member's end
  CudaGossipLossRun run_;
  cuda::NodeMajorMatrix w_;
  DeviceBuffer<std::int64_t> adj_offsets_;
  DeviceBuffer<std::int32_t> adjacency_;
  DeviceBuffer<double> norms_, block_a_, block_b_, shares_, losses_;
  cuda::RowStaging staging_;
};

}  // namespace

std::unique_ptr<GossipLossCudaEngine> gossip_loss_cuda(const GossipLossProblem& p, int device, node_t first,
                                                       node_t count, std::int64_t tile_sources,
                                                       std::int64_t memory_limit, LossRowSink& sink) {
  if (p.steps < 1 || p.t_start < 0) {
    throw InvalidInput("gossip loss: need steps >= 1 and t_start >= 0, got steps = " +
                       std::to_string(p.steps) + ", t_start = " + std::to_string(p.t_start));
  }
  mp::GossipLossPlan plan;
  CudaGossipLossRun tiles;
  {
    const CheckedRequest request("gossip loss", p.graph, p.w, first, count, device);
    if (request.empty()) return nullptr;
    // ---- Memory plan (docs/design.md principle 5), before any allocation: pure, common/memory_plan.hpp.
    tiles = plan_tiles(p, device, count, tile_sources, memory_limit, plan);
  }  // the engine's own guard restores the caller's device when it goes
  return std::make_unique<Engine>(p, device, tiles, plan.staging.chunk_columns, sink);
}

}  // namespace netdp::kernels
