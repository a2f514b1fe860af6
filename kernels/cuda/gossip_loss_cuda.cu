// CUDA backend of the gossip accountant: pairwise Renyi loss of synchronous Muffliato with a fixed symmetric
// W (docs/math.md §6.1 eq. M1 with W_{0:t} = W^t, 6.2). Same two passes as the CPU backend
// (gossip_loss_kernels.hpp); the per-element maths comes from common/gossip_loss_math.hpp. Design notes:
// docs/cuda_backend.md. Propagation (Propagator) lives in propagator.hpp, shared with the walk backend.
//
// Layout: a tile of b sources is a column-major n x b block X (ld = n), column j = W^t e_{s + j}, so
// X[w, j] = (W^t)_{w, s + j}. Propagation is X <- W X (cuSPARSE SpMM, or cuBLAS DGEMM on a dense copy of W).
// Column j of the final block is row s + j of the row-major loss matrix, so the block goes to the sink as is,
// through two small pinned chunks (RowStaging). Tiles and bytes: memory_plan::plan_gossip_loss (pure, tested
// without a GPU).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
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
#include "cuda/column_reductions.cuh"
#include "cuda/propagator.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

using namespace cuda;

}  // namespace

CudaGossipLossRun gossip_loss_cuda(const GossipLossProblem& p, int device, node_t first, node_t count,
                                   std::int64_t tile_sources, std::int64_t memory_limit, LossRowSink& sink) {
  const std::int64_t n = p.w.n;
  if (p.steps < 1 || p.t_start < 0) {
    throw InvalidInput("gossip loss: need steps >= 1 and t_start >= 0, got steps = " +
                       std::to_string(p.steps) + ", t_start = " + std::to_string(p.t_start));
  }
  const CheckedRequest request("gossip loss", p.graph, p.w, first, count, device);
  if (request.empty()) return {};

  // ---- Memory plan (docs/design.md principle 5), before any allocation: pure, common/memory_plan.hpp. ----
  namespace mp = memory_plan;
  const mp::GossipLossSizes sizes{n,       p.w.nnz(), static_cast<std::int64_t>(p.graph.adjacency.size()),
                                  p.steps, p.dense,   count};
  const mp::GossipLossPlan plan =
      mp::plan_gossip_loss(sizes, {cuda::free_device_bytes(), memory_limit, tile_sources});
  if (!plan.fits) {
    throw InsufficientMemory(
        "gossip loss on CUDA: n = " + std::to_string(n) + " needs " + std::to_string(plan.needed_bytes) +
        " bytes for a tile of one source (" + std::to_string(plan.fixed_bytes) + " fixed + " +
        std::to_string(plan.per_source_bytes) + " per source) but only " + std::to_string(plan.budget.bytes) +
        " bytes are available (" + mp::describe(plan.budget, device) + ")");
  }
  const std::int64_t b1 = plan.norms_tile;                       // pass 1 covers all n sources
  const std::int64_t b2 = plan.tile;                             // pass 2 the requested ones
  const std::int64_t t_end = std::int64_t{p.t_start} + p.steps;  // powers W^0 .. W^{t_end - 1}
  const auto block = static_cast<std::size_t>(n) * static_cast<std::size_t>(plan.block_columns);
  const auto tile_block = static_cast<std::size_t>(n) * static_cast<std::size_t>(b2);

  // ---- Device state. Declaration order = reverse destruction order: buffers go before the stream. ----
  const cuda::Stream stream;
  cuda::Propagator propagator(p.w, p.dense, stream.get());
  DeviceBuffer<std::int64_t> adj_offsets(p.graph.offsets.size());
  DeviceBuffer<std::int32_t> adjacency(p.graph.adjacency.size());
  adj_offsets.upload(std::span<const std::int64_t>(p.graph.offsets), stream.get());
  adjacency.upload(std::span<const std::int32_t>(p.graph.adjacency), stream.get());
  DeviceBuffer<double> norms(static_cast<std::size_t>(p.steps) * static_cast<std::size_t>(n));
  DeviceBuffer<double> block_a(block), block_b(block);
  DeviceBuffer<double> shares(tile_block), losses(tile_block);
  // Never hand a library uninitialised memory, not even as a beta = 0 output (0 * NaN = NaN).
  NETDP_CUDA_TRY(cudaMemsetAsync(block_a.data(), 0, block_a.bytes(), stream.get()));
  NETDP_CUDA_TRY(cudaMemsetAsync(block_b.data(), 0, block_b.bytes(), stream.get()));
  propagator.reserve(block_a.data(), block_b.data(), b1);
  propagator.reserve(block_a.data(), block_b.data(), b2);
  // Declared after the device buffers: destroyed first, once the copies in flight have landed.
  cuda::RowStaging staging(n, plan.staging.chunk_columns, stream.get(), sink);

  CudaGossipLossRun run;
  run.tile_sources = b2;
  run.tiles = plan.tiles;
  run.device_bytes =
      propagator.device_bytes() +
      static_cast<std::int64_t>(adj_offsets.bytes() + adjacency.bytes() + norms.bytes() + block_a.bytes() +
                                block_b.bytes() + shares.bytes() + losses.bytes());

  // Computes W^t e_u for t = 0 .. t_end - 1 and the tile's sources u = s .. s + cols - 1, calling
  // record(t - t_start, X) for every t >= t_start.
  auto propagate_tile = [&](std::int64_t s, std::int64_t cols, auto&& record) {
    double* x = block_a.data();
    double* y = block_b.data();
    cuda::set_identity_columns(x, n, cols, s, stream.get());
    for (std::int64_t t = 0; t < t_end; ++t) {
      if (t >= p.t_start) record(t - p.t_start, x);
      if (t + 1 < t_end) {
        propagator.apply(x, y, cols);
        std::swap(x, y);
      }
    }
  };

  // ---- Pass 1: r_t(w) for every w and t (docs/math.md §6.2: ||row w of W^t||^2 = ||W^t e_w||^2). ----
  for (std::int64_t s = 0; s < n; s += b1) {
    const std::int64_t cols = std::min(b1, n - s);
    propagate_tile(s, cols, [&](std::int64_t k, const double* x) {
      column_sums_of_squares(x, n, cols, norms.data() + k * n + s, stream.get());
    });
  }

  // ---- Pass 2: shares, neighbour sums and f(u, v) for the requested sources, streamed tile by tile. ----
  const std::int64_t end = std::int64_t{first} + count;
  for (std::int64_t s = first; s < end; s += b2) {
    const std::int64_t cols = std::min(b2, end - s);
    NETDP_CUDA_TRY(
        cudaMemsetAsync(shares.data(), 0, static_cast<std::size_t>(n * cols) * sizeof(double), stream.get()));
    propagate_tile(s, cols, [&](std::int64_t k, const double* x) {
      // S[w, j] += (W^t)_{w, s + j}^2 / r_t(w) (M1), the CPU's rounding element for element.
      cuda::for_each_2d(n, cols, gossip_loss::AccumulateSharesBody{x, norms.data() + k * n, n, shares.data()},
                        stream.get());
    });
    // f(u, v) = pair_loss(sum_{w in N(v)} S[w, j]), neighbours in the graph's sorted order like the CPU.
    cuda::for_each_2d(n, cols,
                      gossip_loss::NeighbourLossesBody{shares.data(), adj_offsets.data(), adjacency.data(), n,
                                                       s, p.scale, p.cap_ldp, losses.data()},
                      stream.get());
    // Queued behind the kernels; the next tile's kernels, queued after, overwrite `losses` only once these
    // copies are done (one stream), while the host hands this tile's rows to the sink.
    staging.push(s, cols, losses.data());
  }
  staging.flush();
  return run;
}

}  // namespace netdp::kernels
