// CUDA backend of the random-walk accountant (docs/math.md §5.2-5.4; walk_loss_kernels.hpp). Same maths as
// the CPU backend: the eigen weights come from walk_eigen_weights (host, shared), the per-element loss from
// common/walk_loss_math.hpp. Design notes: docs/cuda_backend.md.
//
// Layout: a tile of b sources s .. s + b - 1 ends as a column-major n x b block (ld = n) whose column j is
// the graph term G[s + j, :] (spectral) or s_{s+j}(.) (series), so column j of the loss block is row s + j of
// the row-major loss matrix and the block goes to the sink as is.
//  - spectral (E3) / finite (E2), docs/math.md §5.3: W = V diag(lambda) V^T by SymmetricEigensolver
//    (cuda/dense_solvers.hpp: cuSOLVER's 64-bit syevd; LAPACKE on the emulated device), g from the host;
//    B = V[s:s+b, :] diag(g) (b x n), then V B^T = (V diag(g) V^T)[:, s:s+b] = G[s:s+b, :]^T by symmetry of
//    G.
//  - series (E1), docs/math.md §5.2: X = W^t e_u by propagation (Propagator), S += X / t for t = 1 .. T.
//  - spectral / finite by the Chebyshev solver (docs/walk_loss.md "Solvers"): per tile, the bodies of
//    common/walk_loss_chebyshev.hpp around one Propagator SpMM per degree, the CPU's recurrence step by step
//    (only cuSPARSE's summation inside W t_k can round differently from the CPU's CSR product).
// Tiles, staging and bytes: memory_plan::plan_walk_series / plan_walk_spectral (pure, tested without a GPU);
// rows reach the sink through two small pinned chunks (RowStaging).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/for_each.hpp"
#include "common/memory_plan.hpp"
#include "common/walk_loss_bodies.hpp"
#include "common/walk_loss_chebyshev.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/base/row_staging.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/dense_solvers.hpp"
#include "cuda/propagator.hpp"
#include "device_kernels.hpp"
#include "netdp/core/error.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp::kernels {
namespace {

using namespace cuda;
namespace mp = memory_plan;

[[noreturn]] void throw_insufficient(std::int64_t n, std::int64_t needed, const std::string& parts,
                                     const mp::Budget& budget, int device) {
  throw InsufficientMemory("walk loss on CUDA: n = " + std::to_string(n) + " needs " +
                           std::to_string(needed) + " bytes (" + parts + ") but only " +
                           std::to_string(budget.bytes) + " bytes are available (" +
                           mp::describe(budget, device) + ")");
}

/// State shared by both methods: the stream, the adjacency of the sender-known view and the output path.
struct TileContext {
  const WalkLossProblem& p;
  std::int64_t n;
  cudaStream_t stream;
  const std::int64_t* adj_offsets;  // nullptr for the anonymous view
  const std::int32_t* adjacency;
  cuda::RowStaging& staging;

  /// Loss block of sources s .. s + cols - 1 from the graph-term block `term` into `out` (n x cols, both on
  /// the device), then queued for the host and the sink (the copies run behind the kernel on the stream; the
  /// next tile's work, queued after them, may reuse `term` and `out`).
  void finish(std::int64_t s, std::int64_t cols, const double* term, double* out) const {
    cuda::for_each_2d(n, cols,
                      walk_loss::WalkLossesBody{term, adj_offsets, adjacency, n, s, p.sender_known,
                                                p.constant, p.scale, p.clip, p.clip_level, out},
                      stream);
    staging.push(s, cols, out);
  }
};

/// The graph's adjacency on the device, for the sender-known view only (both stay empty otherwise).
void upload_adjacency(const WalkLossProblem& p, cudaStream_t stream, DeviceBuffer<std::int64_t>& offsets,
                      DeviceBuffer<std::int32_t>& adjacency) {
  if (!p.sender_known) return;
  offsets = DeviceBuffer<std::int64_t>(p.graph.offsets.size());
  adjacency = DeviceBuffer<std::int32_t>(p.graph.adjacency.size());
  offsets.upload(std::span<const std::int64_t>(p.graph.offsets), stream);
  adjacency.upload(std::span<const std::int32_t>(p.graph.adjacency), stream);
}

/// The Chebyshev solver's tiles (memory_plan's conventions, via plan_source_tiles): W in 32-bit CSR, the
/// adjacency fixed; per source t_k, t_{k-1}, y = W t_k and the sum s (4 n doubles), its source index and
/// three lane means.
struct ChebyshevTilePlan {
  mp::Budget budget;
  std::int64_t fixed_bytes = 0, per_source_bytes = 0, tile = 0, tiles = 0, needed_bytes = 0;
  mp::Staging staging;
  bool fits = false;
};

ChebyshevTilePlan plan_chebyshev_tiles(const mp::WalkLossSizes& s, const mp::Limits& limits) {
  ChebyshevTilePlan plan;
  plan.budget = mp::device_budget(limits.free_bytes, limits.memory_limit);
  plan.fixed_bytes = mp::csr32_bytes(s.n, s.nnz) + mp::walk_adjacency_bytes(s);
  plan.per_source_bytes = 4 * s.n * mp::kDoubleBytes + mp::kInt64Bytes + 3 * mp::kDoubleBytes;
  plan.needed_bytes = plan.fixed_bytes + plan.per_source_bytes;
  plan.fits = plan.needed_bytes <= plan.budget.bytes;
  if (!plan.fits || s.n < 1 || s.count < 1) return plan;
  mp::plan_source_tiles(plan, s.n, s.count, limits.tile_sources);
  return plan;
}

/// G e_u = p(W)(e_u - 1/n) for every source of every tile (docs/walk_loss.md "Solvers"), column-major n x b
/// blocks (row stride 1, lane stride n), then the losses through TileContext::finish. The launches follow
/// kernels/cpu/walk_loss_cpu.cpp's walk_chebyshev_rows_cpu one to one
/// (tests/backend/test_walk_loss_bodies.cpp runs them on the host in this order).
CudaWalkLossRun walk_chebyshev_cuda(const WalkLossProblem& p, const WalkChebyshevExpansion& e, int device,
                                    std::int64_t first, std::int64_t count, const mp::WalkLossSizes& sizes,
                                    const mp::Limits& limits, LossRowSink& sink) {
  const std::int64_t n = p.w.n, end = first + count;
  const ChebyshevTilePlan plan = plan_chebyshev_tiles(sizes, limits);
  if (!plan.fits) {
    throw_insufficient(n, plan.needed_bytes,
                       std::to_string(plan.fixed_bytes) + " for W and the adjacency + " +
                           std::to_string(plan.per_source_bytes) + " for one source",
                       plan.budget, device);
  }
  namespace wc = walk_chebyshev;
  const cuda::Stream stream;
  DeviceBuffer<std::int64_t> adj_offsets;
  DeviceBuffer<std::int32_t> adjacency;
  upload_adjacency(p, stream.get(), adj_offsets, adjacency);
  const std::int64_t b = plan.tile;
  const auto block = static_cast<std::size_t>(n) * static_cast<std::size_t>(b);
  cuda::Propagator propagator(p.w, /*dense=*/false, stream.get());
  DeviceBuffer<double> t(block), t_prev(block), y(block), sum(block), means(3 * static_cast<std::size_t>(b));
  DeviceBuffer<std::int64_t> sources(static_cast<std::size_t>(b));
  // Never hand a library (or the first step's ignored t_{k-1}) uninitialised memory.
  for (const DeviceBuffer<double>* buffer : {&t, &t_prev, &y, &sum, &means})
    NETDP_CUDA_TRY(cudaMemsetAsync(buffer->data(), 0, buffer->bytes(), stream.get()));
  propagator.reserve(t.data(), y.data(), b);
  cuda::RowStaging staging(n, plan.staging.chunk_columns, stream.get(), sink);  // destroyed first
  CudaWalkLossRun run;
  run.tile_sources = b;
  run.tiles = plan.tiles;
  run.device_bytes =
      propagator.device_bytes() + static_cast<std::int64_t>(adj_offsets.bytes() + adjacency.bytes() +
                                                            4 * t.bytes() + means.bytes() + sources.bytes());
  const TileContext tiles{p, n, stream.get(), adj_offsets.data(), adjacency.data(), staging};
  const double a = 4.0 / (e.hi - e.lo), bb = 2.0 * (e.hi + e.lo) / (e.hi - e.lo);
  const int degree = static_cast<int>(e.coefficients.size()) - 1;
  for (std::int64_t s = first; s < end; s += b) {
    const std::int64_t cols = std::min(b, end - s);
    double* tk = t.data();
    double* tk_prev = t_prev.data();
    // o_k, o_{k-1} and o_{k+1} per lane, rotated by pointer.
    double* mean = means.data();
    double* mean_prev = means.data() + b;
    double* mean_next = means.data() + 2 * b;
    cuda::for_each(cols, wc::LaneSourcesBody{s, sources.data()}, stream.get());
    cuda::for_each_2d(n, cols, wc::StartBody{sources.data(), n, 1, n, e.coefficients[0], tk, sum.data()},
                      stream.get());
    cuda::for_each(cols, wc::LaneMeanBody{tk, n, 1, n, mean}, stream.get());
    for (int k = 0; k < degree; ++k) {
      const bool first_step = k == 0;
      propagator.apply(tk, y.data(), cols);  // y = W t_k
      cuda::for_each_2d(n, cols,
                        wc::StepBody{y.data(), mean, mean_prev, tk, tk_prev, sum.data(), 1, n,
                                     first_step ? 0.5 * a : a, first_step ? 0.5 * bb : bb,
                                     e.coefficients[static_cast<std::size_t>(k) + 1], first_step},
                        stream.get());
      cuda::for_each(cols, wc::LaneMeanBody{tk_prev, n, 1, n, mean_next}, stream.get());
      std::swap(tk, tk_prev);  // t = T_{k+1}, t_prev = T_k
      double* spare = mean_prev;
      mean_prev = mean;
      mean = mean_next;
      mean_next = spare;
    }
    cuda::for_each(cols, wc::LaneMeanBody{sum.data(), n, 1, n, mean}, stream.get());
    cuda::for_each_2d(n, cols, wc::ProjectBody{mean, 1, n, sum.data()}, stream.get());
    // y is spent once the last step is queued (same stream): it takes the losses.
    tiles.finish(s, cols, sum.data(), y.data());
  }
  staging.flush();
  return run;
}

}  // namespace

CudaWalkLossRun walk_loss_cuda(const WalkLossProblem& p, const WalkChebyshevExpansion* chebyshev, int device,
                               node_t first, node_t count, std::int64_t tile_sources,
                               std::int64_t memory_limit, LossRowSink& sink) {
  const std::int64_t n = p.w.n;
  if (p.method < 0 || p.method > 2 || p.steps < 1) {
    throw InvalidInput("walk loss: need method 0, 1 or 2 and steps >= 1, got method = " +
                       std::to_string(p.method) + ", steps = " + std::to_string(p.steps));
  }
  const CheckedRequest request("walk loss", p.graph, p.w, first, count, device);
  if (request.empty()) return {};
  // ---- Memory plan (docs/design.md principle 5): pure, common/memory_plan.hpp; free bytes read once. ----
  const mp::Limits limits{cuda::free_device_bytes(), memory_limit, tile_sources};
  const mp::WalkLossSizes sizes{n, p.w.nnz(), static_cast<std::int64_t>(p.graph.adjacency.size()),
                                p.sender_known, count};
  const std::int64_t end = std::int64_t{first} + count;
  if (chebyshev && p.method != 2)
    return walk_chebyshev_cuda(p, *chebyshev, device, first, count, sizes, limits, sink);
  CudaWalkLossRun run;

  // ---- Device state. Declaration order = reverse destruction order: buffers go before the stream. ----
  const cuda::Stream stream;
  DeviceBuffer<std::int64_t> adj_offsets;
  DeviceBuffer<std::int32_t> adjacency;

  if (p.method == 2) {
    // ---- Series (E1). Per source: X, Y, S on the device (the spare of X / Y takes the losses).
    const mp::WalkSeriesPlan plan = mp::plan_walk_series(sizes, limits);
    if (!plan.fits) {
      throw_insufficient(n, plan.needed_bytes,
                         std::to_string(plan.fixed_bytes) + " for W and the adjacency + " +
                             std::to_string(plan.per_source_bytes) + " for one source",
                         plan.budget, device);
    }
    upload_adjacency(p, stream.get(), adj_offsets, adjacency);
    const std::int64_t b = plan.tile;
    const auto block = static_cast<std::size_t>(n) * static_cast<std::size_t>(b);
    cuda::Propagator propagator(p.w, /*dense=*/false, stream.get());
    DeviceBuffer<double> block_a(block), block_b(block), sums(block);
    // Never hand a library uninitialised memory, not even as a beta = 0 output (0 * NaN = NaN).
    NETDP_CUDA_TRY(cudaMemsetAsync(block_a.data(), 0, block_a.bytes(), stream.get()));
    NETDP_CUDA_TRY(cudaMemsetAsync(block_b.data(), 0, block_b.bytes(), stream.get()));
    propagator.reserve(block_a.data(), block_b.data(), b);
    cuda::RowStaging staging(n, plan.staging.chunk_columns, stream.get(), sink);  // destroyed first
    run.tile_sources = b;
    run.tiles = plan.tiles;
    run.device_bytes = propagator.device_bytes() +
                       static_cast<std::int64_t>(adj_offsets.bytes() + adjacency.bytes() + block_a.bytes() +
                                                 block_b.bytes() + sums.bytes());
    const TileContext tiles{p, n, stream.get(), adj_offsets.data(), adjacency.data(), staging};
    // X and Y alternate as the source and the product; at the end of a tile the product is in `x` and the
    // spare `y` takes the losses. The next tile's identity columns overwrite block_a only after the copies of
    // the previous tile's losses (same stream), whichever block held them.
    for (std::int64_t s = first; s < end; s += b) {
      const std::int64_t cols = std::min(b, end - s);
      const std::int64_t elements = n * cols;
      double* x = block_a.data();
      double* y = block_b.data();
      cuda::set_identity_columns(x, n, cols, s, stream.get());
      NETDP_CUDA_TRY(
          cudaMemsetAsync(sums.data(), 0, static_cast<std::size_t>(elements) * sizeof(double), stream.get()));
      for (int t = 1; t <= p.steps; ++t) {
        propagator.apply(x, y, cols);
        std::swap(x, y);
        // S += X (1/t), rounded like the CPU (walk_loss::AccumulateSeriesBody).
        cuda::for_each(elements, walk_loss::AccumulateSeriesBody{x, 1.0 / t, sums.data()}, stream.get());
      }
      tiles.finish(s, cols, sums.data(), y);
    }
    staging.flush();
    return run;
  }

  // ---- Spectral (E3) / finite (E2). Fixed: V (n^2, the eigensolver works in place on the dense W),
  // eigenvalues, g, adjacency; before the tiles, the 32-bit CSR of W (while the dense W is built) and then
  // the eigensolver's workspace take turns beside it. Per source: B / losses and the G block on the device.
  // ----
  const std::int64_t vectors_bytes = n * n * std::int64_t{sizeof(double)};
  mp::WalkSpectralPlan plan = mp::plan_walk_spectral(sizes, limits, /*workspace_bytes=*/0);
  if (!plan.fits) {
    const std::int64_t other = std::max(plan.per_source_bytes, plan.csr_bytes);
    throw_insufficient(n, plan.needed_bytes,
                       std::to_string(vectors_bytes) + " for the eigenvectors V (n^2 doubles), " +
                           std::to_string(plan.fixed_bytes - vectors_bytes) + " for small arrays and " +
                           std::to_string(other) + " for one source or the CSR of W",
                       plan.budget, device);
  }
  upload_adjacency(p, stream.get(), adj_offsets, adjacency);
  DeviceBuffer<double> vectors(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  DeviceBuffer<double> values(static_cast<std::size_t>(n)), weights(static_cast<std::size_t>(n));
  std::vector<double> host_values(static_cast<std::size_t>(n));
  std::int64_t eigen_peak = 0;
  {
    const auto started = std::chrono::steady_clock::now();
    {
      // Column-major dense W built on the device; symmetric, so either triangle serves the eigensolver.
      DeviceBuffer<std::int32_t> offsets(static_cast<std::size_t>(n) + 1);
      DeviceBuffer<std::int32_t> columns(static_cast<std::size_t>(p.w.nnz()));
      DeviceBuffer<double> entries(static_cast<std::size_t>(p.w.nnz()));
      const std::vector<std::int32_t> offsets32(p.w.offsets.begin(), p.w.offsets.end());
      offsets.upload(std::span<const std::int32_t>(offsets32), stream.get());
      columns.upload(std::span<const std::int32_t>(p.w.columns), stream.get());
      entries.upload(std::span<const double>(p.w.values), stream.get());
      cuda::csr_to_dense_async(offsets.data(), columns.data(), entries.data(), n, vectors.data(),
                               stream.get());
      stream.synchronize();  // before the CSR copies are freed
    }
    cuda::SymmetricEigensolver eigen(n, vectors.data(), values.data(), stream.get());
    plan = mp::plan_walk_spectral(sizes, limits, eigen.workspace_bytes());
    if (!plan.fits) {
      throw_insufficient(n, plan.needed_bytes,
                         std::to_string(vectors_bytes) + " for the eigenvectors V (n^2 doubles), " +
                             std::to_string(plan.workspace_bytes) + " for the eigensolver's workspace and " +
                             std::to_string(plan.fixed_bytes - vectors_bytes) + " for small arrays",
                         plan.budget, device);
    }
    // Ascending eigenvalues; V is overwritten by the orthonormal eigenvectors, column i = phi_i.
    eigen.solve();
    NETDP_CUDA_TRY(cudaMemcpyAsync(host_values.data(), values.data(), values.bytes(), cudaMemcpyDeviceToHost,
                                   stream.get()));
    stream.synchronize();
    run.eigen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    eigen_peak = static_cast<std::int64_t>(vectors.bytes() + values.bytes() + adj_offsets.bytes() +
                                           adjacency.bytes()) +
                 eigen.workspace_bytes();
  }  // the eigensolver's workspace lived only inside solve(): the tiles get its room

  // g_i for ascending eigenvalues, 0 on the largest (phi_1): host code shared with the CPU backend.
  const std::vector<double> g = walk_eigen_weights(host_values, p.method, p.steps);
  weights.upload(std::span<const double>(g), stream.get());

  const std::int64_t b = plan.tile;
  const auto block = static_cast<std::size_t>(n) * static_cast<std::size_t>(b);
  DeviceBuffer<double> scaled(block), graph_block(block);
  NETDP_CUDA_TRY(cudaMemsetAsync(graph_block.data(), 0, graph_block.bytes(), stream.get()));
  cuda::DenseProduct product(stream.get());
  cuda::RowStaging staging(n, plan.staging.chunk_columns, stream.get(), sink);  // destroyed first
  run.tile_sources = b;
  run.tiles = plan.tiles;
  run.device_bytes =
      std::max(eigen_peak, static_cast<std::int64_t>(vectors.bytes() + values.bytes() + weights.bytes() +
                                                     adj_offsets.bytes() + adjacency.bytes() +
                                                     scaled.bytes() + graph_block.bytes()));
  const TileContext tiles{p, n, stream.get(), adj_offsets.data(), adjacency.data(), staging};
  for (std::int64_t s = first; s < end; s += b) {
    const std::int64_t cols = std::min(b, end - s);
    // B = V[s:s+cols, :] diag(g), column-major cols x n (walk_loss::ScaleEigenvectorRowsBody).
    cuda::for_each_2d(
        cols, n,
        walk_loss::ScaleEigenvectorRowsBody{vectors.data(), weights.data(), n, cols, s, scaled.data()},
        stream.get());
    // graph_block (n x cols) = V B^T, column j = G[:, s + j] = G[s + j, :].
    product.times_transpose(n, cols, n, vectors.data(), scaled.data(), graph_block.data());
    // B is spent once the product is queued (same stream): it takes the losses.
    tiles.finish(s, cols, graph_block.data(), scaled.data());
  }
  staging.flush();
  return run;
}

}  // namespace netdp::kernels
