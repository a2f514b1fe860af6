// CUDA backend of the gossip accountant: pairwise Renyi loss of synchronous Muffliato with a fixed symmetric
// W (docs/math.md §6.1 eq. M1 with W_{0:t} = W^t, 6.2). Same two passes as the CPU backend
// (gossip_loss_kernels.hpp); the per-element maths comes from common/gossip_loss_math.hpp. Design and
// bandwidth model: docs/cuda_backend.md "Node-major gossip engines".
//
// Layout: node-major source tiles of at most kSourceTile sources. A tile of b sources is a row-major n x b
// block X (ld = b), X[w b + j] = (W^t)_{w, s + j}: n b doubles that the gathers of the next product find in
// L2. Each power is one warp-per-row pass (cuda/gossip_spmm.cuh) with its epilogue fused: pass 1 adds the
// tile's part of r_t(w) = ||row w of W^t||^2 (cuda::row_sums over gossip_loss::NormsStepBody), pass 2 adds
// the shares S[w, j] (gossip_loss::SharesStepBody). The final loss block is column-major (column j = row
// s + j of the loss matrix) and goes to the sink through two small pinned chunks (RowStaging). A dense W
// (Propagation::dense) is propagated by one DGEMM per power (Propagator::apply_rows) and the same bodies
// record the power in place. Tiles and bytes: memory_plan::plan_gossip_loss (pure, tested without a GPU),
// capped at kSourceTile.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
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
#include "cuda/propagator.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

using namespace cuda;

/// Sources per tile unless a tile is forced: n x 32 doubles of X, of Y and of S (16.8 MB each at n = 65,536)
/// stay in the H100's 50 MB L2 while one power gathers from X (docs/cuda_backend.md "Node-major gossip
/// engines").
constexpr std::int64_t kSourceTile = 32;

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
  // Node-major tiles are narrow by design (kSourceTile); a forced tile_sources is used as given.
  const std::int64_t cap = tile_sources > 0 ? std::numeric_limits<std::int64_t>::max() : kSourceTile;
  const std::int64_t b1 = std::min(plan.norms_tile, cap);        // pass 1 covers all n sources
  const std::int64_t b2 = std::min(plan.tile, cap);              // pass 2 the requested ones
  const std::int64_t t_end = std::int64_t{p.t_start} + p.steps;  // powers W^0 .. W^{t_end - 1}
  const auto block = static_cast<std::size_t>(n) * static_cast<std::size_t>(std::max(b1, b2));
  const auto tile_block = static_cast<std::size_t>(n) * static_cast<std::size_t>(b2);

  // ---- Device state. Declaration order = reverse destruction order: buffers go before the stream. ----
  const cuda::Stream stream;
  std::optional<cuda::Propagator> dense;  // the dense path: DGEMM on a dense copy of W
  DeviceBuffer<offset_t> w_offsets;       // the sparse path: W in CSR with the host's 64-bit offsets
  DeviceBuffer<node_t> w_columns;
  DeviceBuffer<double> w_values;
  if (p.dense) {
    dense.emplace(p.w, true, stream.get());
  } else {
    w_offsets = DeviceBuffer<offset_t>(p.w.offsets.size());
    w_columns = DeviceBuffer<node_t>(p.w.columns.size());
    w_values = DeviceBuffer<double>(p.w.values.size());
    w_offsets.upload(std::span<const offset_t>(p.w.offsets), stream.get());
    w_columns.upload(std::span<const node_t>(p.w.columns), stream.get());
    w_values.upload(std::span<const double>(p.w.values), stream.get());
  }
  DeviceBuffer<std::int64_t> adj_offsets(p.graph.offsets.size());
  DeviceBuffer<std::int32_t> adjacency(p.graph.adjacency.size());
  adj_offsets.upload(std::span<const std::int64_t>(p.graph.offsets), stream.get());
  adjacency.upload(std::span<const std::int32_t>(p.graph.adjacency), stream.get());
  DeviceBuffer<double> norms(static_cast<std::size_t>(p.steps) * static_cast<std::size_t>(n));
  DeviceBuffer<double> block_a(block), block_b(block);
  DeviceBuffer<double> shares(tile_block), losses(tile_block);
  // Pass 1 adds every tile's part of r_t(w); never hand DGEMM uninitialised memory (0 * NaN = NaN).
  NETDP_CUDA_TRY(cudaMemsetAsync(norms.data(), 0, norms.bytes(), stream.get()));
  NETDP_CUDA_TRY(cudaMemsetAsync(block_a.data(), 0, block_a.bytes(), stream.get()));
  NETDP_CUDA_TRY(cudaMemsetAsync(block_b.data(), 0, block_b.bytes(), stream.get()));
  // Declared after the device buffers: destroyed first, once the copies in flight have landed.
  cuda::RowStaging staging(n, plan.staging.chunk_columns, stream.get(), sink);

  CudaGossipLossRun run;
  run.tile_sources = b2;
  run.tiles = (count + b2 - 1) / b2;
  run.device_bytes =
      (dense ? dense->device_bytes() : 0) +
      static_cast<std::int64_t>(w_offsets.bytes() + w_columns.bytes() + w_values.bytes() +
                                adj_offsets.bytes() + adjacency.bytes() + norms.bytes() + block_a.bytes() +
                                block_b.bytes() + shares.bytes() + losses.bytes());

  // W^t e_u for t = 0 .. t_end - 1 and the tile's sources u = s .. s + cols - 1. For t >= t_start,
  // record(t - t_start, x, y) makes the power from x into y and records it in the same pass (y = nullptr:
  // x already is the power, at t = 0 and on the dense path); below t_start a plain product.
  auto propagate_tile = [&](std::int64_t s, std::int64_t cols, auto&& record) {
    double* x = block_a.data();
    double* y = block_b.data();
    cuda::for_each_row(n, cols, gossip_loss::IdentityRowsBody{x, cols, s}, stream.get());
    if (p.t_start == 0) record(0, x, nullptr);
    for (std::int64_t t = 1; t < t_end; ++t) {
      if (dense) {
        dense->apply_rows(x, y, cols);
        if (t >= p.t_start) record(t - p.t_start, y, nullptr);
      } else if (t >= p.t_start) {
        record(t - p.t_start, x, y);
      } else {
        cuda::for_each_row(
            n, cols,
            gossip::NodeMajorStepBody<offset_t, node_t>{w_offsets.data(), w_columns.data(), w_values.data(),
                                                        x, nullptr, 0.0, 0.0, cols, y},
            stream.get());
      }
      std::swap(x, y);
    }
  };

  // ---- Pass 1: r_t(w) = ||row w of W^t||^2 for every w and t (docs/math.md §6.2), tile by tile. ----
  for (std::int64_t s = 0; s < n; s += b1) {
    const std::int64_t cols = std::min(b1, n - s);
    propagate_tile(s, cols, [&](std::int64_t k, const double* x, double* y) {
      cuda::row_sums(
          n, cols,
          gossip_loss::NormsStepBody<offset_t, node_t>{w_offsets.data(), w_columns.data(), w_values.data(), x,
                                                       cols, y, norms.data() + k * n},
          stream.get());
    });
  }

  // ---- Pass 2: shares, neighbour sums and f(u, v) for the requested sources, streamed tile by tile. ----
  const std::int64_t end = std::int64_t{first} + count;
  for (std::int64_t s = first; s < end; s += b2) {
    const std::int64_t cols = std::min(b2, end - s);
    NETDP_CUDA_TRY(
        cudaMemsetAsync(shares.data(), 0, static_cast<std::size_t>(n * cols) * sizeof(double), stream.get()));
    propagate_tile(s, cols, [&](std::int64_t k, const double* x, double* y) {
      // S[w, j] += (W^t)_{w, s + j}^2 / r_t(w) (M1), the CPU's rounding element for element.
      cuda::for_each_row(
          n, cols,
          gossip_loss::SharesStepBody<offset_t, node_t>{w_offsets.data(), w_columns.data(), w_values.data(),
                                                        x, cols, y, norms.data() + k * n, shares.data()},
          stream.get());
    });
    // f(u, v) = pair_loss(sum_{w in N(v)} S[w, j]), neighbours in the graph's sorted order like the CPU.
    cuda::for_each_row(n, cols,
                       gossip_loss::NeighbourLossesBody{shares.data(), adj_offsets.data(), adjacency.data(),
                                                        n, cols, s, p.scale, p.cap_ldp, losses.data()},
                       stream.get());
    // Queued behind the kernels; the next tile's kernels, queued after, overwrite `losses` only once these
    // copies are done (one stream), while the host hands this tile's rows to the sink.
    staging.push(s, cols, losses.data());
  }
  staging.flush();
  return run;
}

}  // namespace netdp::kernels
