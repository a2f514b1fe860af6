// CUDA backend of the random-walk accountant (MATH_SPEC 5.2-5.4; walk_loss_kernels.hpp). Same maths as the
// CPU backend: the eigen weights come from walk_eigen_weights (host, shared), the per-element loss from
// common/walk_loss_math.hpp. Design notes: docs/cuda_backend.md.
//
// Layout: a tile of b sources s .. s + b - 1 ends as a column-major n x b block (ld = n) whose column j is
// the graph term G[s + j, :] (spectral) or s_{s+j}(.) (series), so column j of the loss block is row s + j of
// the row-major loss matrix and the block goes to the sink as is.
//  - spectral (E3) / finite (E2), MATH_SPEC 5.3: W = V diag(lambda) V^T by cuSOLVER syevd, g from the host;
//    B = V[s:s+b, :] diag(g) (b x n), then V B^T = (V diag(g) V^T)[:, s:s+b] = G[s:s+b, :]^T by symmetry of
//    G.
//  - series (E1), MATH_SPEC 5.2: X = W^t e_u by propagation (Propagator), S += X / t for t = 1 .. T.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

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

#include "common/walk_loss_math.hpp"
#include "cuda/base/cuda_check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/request.hpp"
#include "cuda/propagator.hpp"
#include "device_kernels.hpp"
#include "netdp/core/error.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp::kernels::cuda {

namespace {

/// cuSOLVER dense handle bound to `stream`.
class CusolverHandle {
 public:
  explicit CusolverHandle(cudaStream_t stream) {
    NETDP_CUDA_TRY(cusolverDnCreate(&handle_));
    const cusolverStatus_t status = cusolverDnSetStream(handle_, stream);
    if (status != CUSOLVER_STATUS_SUCCESS) (void)cusolverDnDestroy(handle_);
    NETDP_CUDA_TRY(status);
  }
  ~CusolverHandle() { (void)cusolverDnDestroy(handle_); }
  CusolverHandle(const CusolverHandle&) = delete;
  CusolverHandle& operator=(const CusolverHandle&) = delete;

  cusolverDnHandle_t get() const { return handle_; }

 private:
  cusolverDnHandle_t handle_ = nullptr;
};

}  // namespace
}  // namespace netdp::kernels::cuda

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

using cuda::global_thread;
using cuda::grid_for;
using cuda::grid_threads;
using cuda::kThreads;
using cuda::set_identity_columns;

// Share of the free device memory a run plans to use: the rest is headroom for the library handles' internal
// workspaces, the SpMM buffer and the CUDA context, unknown before the tile is chosen (as in the gossip
// backend).
constexpr double kFreeMemoryShare = 0.85;

// out[r + i b] = V[first + r, i] g_i: rows first .. first + b - 1 of V diag(g) as a column-major b x n block
// (V column-major n x n). Consecutive threads walk r, so reads and writes are both contiguous.
__global__ void scale_eigenvector_rows(const double* v, const double* g, std::int64_t n, std::int64_t b,
                                       std::int64_t first, double* out) {
  const std::int64_t total = n * b;
  for (std::int64_t k = global_thread(); k < total; k += grid_threads()) {
    const std::int64_t r = k % b;
    const std::int64_t i = k / b;
    out[k] = v[(first + r) + i * n] * g[i];
  }
}

// S += X (1/t): the t-th term (W^t e_u)_v / t of the series (MATH_SPEC 5.2, E1), scaled like the CPU backend.
__global__ void accumulate_series(const double* x, double inverse_t, std::int64_t elements, double* s) {
  for (std::int64_t i = global_thread(); i < elements; i += grid_threads()) s[i] += x[i] * inverse_t;
}

// out[v, j] = walk_pair_loss(term) for source u = first + j, term = G[v, j] (anonymous sender) or
// max_{w in N(v)} G[w, j] when v knows its sender (MATH_SPEC 5.4: the last hop is post-processing); a node
// without neighbours gets 0, like the CPU backend. The max does not depend on the order: exact on both
// backends.
__global__ void walk_losses(const double* term, const std::int64_t* adj_offsets, const std::int32_t* adj,
                            std::int64_t n, std::int64_t cols, std::int64_t first, bool sender_known,
                            double constant, double scale, bool clip, double clip_level, double* out) {
  const std::int64_t total = n * cols;
  for (std::int64_t i = global_thread(); i < total; i += grid_threads()) {
    const std::int64_t v = i % n;
    const std::int64_t j = i / n;
    const double* column = term + j * n;
    double t = column[v];
    if (sender_known) {
      const std::int64_t begin = adj_offsets[v], end = adj_offsets[v + 1];
      t = 0.0;
      if (begin < end) {
        t = column[adj[begin]];
        for (std::int64_t e = begin + 1; e < end; ++e) t = column[adj[e]] > t ? column[adj[e]] : t;
      }
    }
    out[i] = walk_pair_loss(t, constant, scale, clip, clip_level, v == first + j);
  }
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

using cuda::MemoryBudget;

[[noreturn]] void throw_insufficient(std::int64_t n, std::int64_t needed, const std::string& parts,
                                     const MemoryBudget& budget) {
  throw InsufficientMemory("walk loss on CUDA: n = " + std::to_string(n) + " needs " +
                           std::to_string(needed) + " bytes (" + parts + ") but only " +
                           std::to_string(budget.bytes) + " bytes are available (" + budget.source + ")");
}

/// State shared by both methods: the stream, the adjacency of the sender-known view and the output path.
struct TileContext {
  const WalkLossProblem& p;
  std::int64_t n;
  cudaStream_t stream;
  const std::int64_t* adj_offsets;  // nullptr for the anonymous view
  const std::int32_t* adjacency;
  PinnedBuffer<double>& host_rows;
  LossRowSink& sink;

  /// Loss block of sources s .. s + cols - 1 from the graph-term block `term` into `out` (n x cols, both on
  /// the device), then to the host and the sink.
  void finish(std::int64_t s, std::int64_t cols, const double* term, double* out) const {
    const std::size_t elements = static_cast<std::size_t>(n * cols);
    walk_losses<<<grid_for(n * cols), kThreads, 0, stream>>>(term, adj_offsets, adjacency, n, cols, s,
                                                             p.sender_known, p.constant, p.scale, p.clip,
                                                             p.clip_level, out);
    NETDP_CUDA_CHECK_LAUNCH();
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(host_rows.data(), out, elements * sizeof(double), cudaMemcpyDeviceToHost, stream));
    NETDP_CUDA_TRY(cudaStreamSynchronize(stream));
    sink.consume(static_cast<node_t>(s), static_cast<node_t>(cols),
                 std::span<const double>(host_rows.data(), elements));
  }
};

std::int64_t adjacency_bytes(const WalkLossProblem& p) {
  if (!p.sender_known) return 0;
  return static_cast<std::int64_t>(p.graph.offsets.size() * sizeof(std::int64_t) +
                                   p.graph.adjacency.size() * sizeof(std::int32_t));
}

/// W in CSR with 32-bit indices (what cuSPARSE and csr_to_dense_async take).
std::int64_t csr32_bytes(const CsrMatrix& w) {
  return (std::int64_t{w.n} + 1) * std::int64_t{sizeof(std::int32_t)} +
         w.nnz() * std::int64_t{sizeof(std::int32_t) + sizeof(double)};
}

}  // namespace

CudaWalkLossRun walk_loss_cuda(const WalkLossProblem& p, int device, node_t first, node_t count,
                               std::int64_t tile_sources, std::int64_t memory_limit, LossRowSink& sink) {
  const std::int64_t n = p.w.n;
  if (p.method < 0 || p.method > 2 || p.steps < 1) {
    throw InvalidInput("walk loss: need method 0, 1 or 2 and steps >= 1, got method = " +
                       std::to_string(p.method) + ", steps = " + std::to_string(p.steps));
  }
  cuda::validate_request("walk loss", p.graph, p.w, first, count, device);
  CudaWalkLossRun run;
  if (count == 0) return run;

  const cuda::DeviceGuard guard(device);
  const MemoryBudget budget = cuda::device_memory_budget(device, kFreeMemoryShare, memory_limit);
  const std::int64_t d = sizeof(double);
  const std::int64_t end = std::int64_t{first} + count;
  auto tile_for = [&](std::int64_t fixed, std::int64_t per_row) {
    const std::int64_t b = tile_sources > 0 ? tile_sources : (budget.bytes - fixed) / per_row;
    return std::clamp<std::int64_t>(b, 1, count);
  };

  // ---- Device state. Declaration order = reverse destruction order: buffers go before the stream. ----
  const cuda::Stream stream;
  DeviceBuffer<std::int64_t> adj_offsets;
  DeviceBuffer<std::int32_t> adjacency;
  if (p.sender_known) {
    adj_offsets = DeviceBuffer<std::int64_t>(p.graph.offsets.size());
    adjacency = DeviceBuffer<std::int32_t>(p.graph.adjacency.size());
    adj_offsets.upload(std::span<const std::int64_t>(p.graph.offsets), stream.get());
    adjacency.upload(std::span<const std::int32_t>(p.graph.adjacency), stream.get());
  }

  if (p.method == 2) {
    // ---- Series (E1). Per source: X, Y, S on the device (the spare of X / Y takes the losses) + host row.
    const std::int64_t fixed = csr32_bytes(p.w) + adjacency_bytes(p);
    const std::int64_t per_row = 4 * n * d;
    if (fixed + per_row > budget.bytes) {
      throw_insufficient(
          n, fixed + per_row,
          std::to_string(fixed) + " for W and the adjacency + " + std::to_string(per_row) + " for one source",
          budget);
    }
    const std::int64_t b = tile_for(fixed, per_row);
    cuda::Propagator propagator(p.w, /*dense=*/false, stream.get());
    DeviceBuffer<double> block_a(static_cast<std::size_t>(n * b)), block_b(static_cast<std::size_t>(n * b));
    DeviceBuffer<double> sums(static_cast<std::size_t>(n * b));
    PinnedBuffer<double> host_rows(static_cast<std::size_t>(n * b));
    // Never hand a library uninitialised memory, not even as a beta = 0 output (0 * NaN = NaN).
    NETDP_CUDA_TRY(cudaMemsetAsync(block_a.data(), 0, block_a.bytes(), stream.get()));
    NETDP_CUDA_TRY(cudaMemsetAsync(block_b.data(), 0, block_b.bytes(), stream.get()));
    propagator.reserve(block_a.data(), block_b.data(), b);
    run.tile_sources = b;
    run.tiles = ceil_div(count, b);
    run.device_bytes = propagator.device_bytes() +
                       static_cast<std::int64_t>(adj_offsets.bytes() + adjacency.bytes() + block_a.bytes() +
                                                 block_b.bytes() + sums.bytes());
    const TileContext tiles{p, n, stream.get(), adj_offsets.data(), adjacency.data(), host_rows, sink};
    for (std::int64_t s = first; s < end; s += b) {
      const std::int64_t cols = std::min(b, end - s);
      const std::int64_t elements = n * cols;
      double* x = block_a.data();
      double* y = block_b.data();
      set_identity_columns<<<grid_for(elements), kThreads, 0, stream.get()>>>(x, n, cols, s);
      NETDP_CUDA_CHECK_LAUNCH();
      NETDP_CUDA_TRY(
          cudaMemsetAsync(sums.data(), 0, static_cast<std::size_t>(elements) * sizeof(double), stream.get()));
      for (int t = 1; t <= p.steps; ++t) {
        propagator.apply(x, y, cols);
        std::swap(x, y);
        accumulate_series<<<grid_for(elements), kThreads, 0, stream.get()>>>(x, 1.0 / t, elements,
                                                                             sums.data());
        NETDP_CUDA_CHECK_LAUNCH();
      }
      tiles.finish(s, cols, sums.data(), y);
    }
    return run;
  }

  // ---- Spectral (E3) / finite (E2). Fixed: V (n^2, syevd works in place on the dense W), eigenvalues, g,
  // devInfo, adjacency; before the tiles, the 32-bit CSR of W (while the dense W is built) and then the syevd
  // workspace take turns beside it. Per source: B / losses and the G block on the device + the host row. ----
  const std::int64_t fixed = n * n * d + 2 * n * d + std::int64_t{sizeof(int)} + adjacency_bytes(p);
  const std::int64_t per_row = 3 * n * d;
  const std::int64_t csr_bytes = csr32_bytes(p.w);
  if (fixed + std::max(per_row, csr_bytes) > budget.bytes) {
    throw_insufficient(n, fixed + std::max(per_row, csr_bytes),
                       std::to_string(n * n * d) + " for the eigenvectors V (n^2 doubles), " +
                           std::to_string(fixed - n * n * d) + " for small arrays and " +
                           std::to_string(std::max(per_row, csr_bytes)) + " for one source or the CSR of W",
                       budget);
  }
  const int n32 = static_cast<int>(n);  // node_t is 32-bit: n fits cuSOLVER's and cuBLAS's int
  DeviceBuffer<double> vectors(static_cast<std::size_t>(n * n));
  DeviceBuffer<double> values(static_cast<std::size_t>(n)), weights(static_cast<std::size_t>(n));
  DeviceBuffer<int> info(1);
  std::vector<double> host_values(static_cast<std::size_t>(n));
  std::int64_t eigen_peak = 0;
  {
    const cuda::CusolverHandle solver(stream.get());
    // Bit-identical repeated runs (syevd is one of the routines this mode governs).
    NETDP_CUDA_TRY(cusolverDnSetDeterministicMode(solver.get(), CUSOLVER_DETERMINISTIC_RESULTS));
    const auto started = std::chrono::steady_clock::now();
    {
      // Column-major dense W built on the device; symmetric, so either triangle serves syevd.
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
    int lwork = 0;
    NETDP_CUDA_TRY(cusolverDnDsyevd_bufferSize(solver.get(), CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER,
                                               n32, vectors.data(), n32, values.data(), &lwork));
    const std::int64_t work_bytes = std::int64_t{lwork} * d;
    if (fixed + work_bytes > budget.bytes) {
      throw_insufficient(n, fixed + work_bytes,
                         std::to_string(n * n * d) + " for the eigenvectors V (n^2 doubles), " +
                             std::to_string(work_bytes) + " for the cuSOLVER syevd workspace and " +
                             std::to_string(fixed - n * n * d) + " for small arrays",
                         budget);
    }
    DeviceBuffer<double> work(static_cast<std::size_t>(std::max(lwork, 1)));
    // Ascending eigenvalues; V is overwritten by the orthonormal eigenvectors, column i = phi_i.
    NETDP_CUDA_TRY(cusolverDnDsyevd(solver.get(), CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n32,
                                    vectors.data(), n32, values.data(), work.data(), lwork, info.data()));
    int host_info = 0;
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(&host_info, info.data(), sizeof(int), cudaMemcpyDeviceToHost, stream.get()));
    NETDP_CUDA_TRY(cudaMemcpyAsync(host_values.data(), values.data(), values.bytes(), cudaMemcpyDeviceToHost,
                                   stream.get()));
    stream.synchronize();
    run.eigen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (host_info != 0) {
      throw std::runtime_error(
          "walk loss on CUDA: cusolverDnDsyevd returned devInfo = " + std::to_string(host_info) +
          (host_info > 0 ? " (that many off-diagonal elements did not converge)"
                         : " (parameter " + std::to_string(-host_info) + " was wrong)"));
    }
    eigen_peak = static_cast<std::int64_t>(vectors.bytes() + values.bytes() + info.bytes() + work.bytes() +
                                           adj_offsets.bytes() + adjacency.bytes());
  }  // the workspace is freed here: the tiles get its room

  // g_i for ascending eigenvalues, 0 on the largest (phi_1): host code shared with the CPU backend.
  const std::vector<double> g = walk_eigen_weights(host_values, p.method, p.steps);
  weights.upload(std::span<const double>(g), stream.get());

  const std::int64_t b = tile_for(fixed, per_row);
  DeviceBuffer<double> scaled(static_cast<std::size_t>(n * b)), graph_block(static_cast<std::size_t>(n * b));
  PinnedBuffer<double> host_rows(static_cast<std::size_t>(n * b));
  NETDP_CUDA_TRY(cudaMemsetAsync(graph_block.data(), 0, graph_block.bytes(), stream.get()));
  const cuda::CublasHandle blas(stream.get());
  run.tile_sources = b;
  run.tiles = ceil_div(count, b);
  run.device_bytes =
      std::max(eigen_peak, static_cast<std::int64_t>(vectors.bytes() + values.bytes() + weights.bytes() +
                                                     info.bytes() + adj_offsets.bytes() + adjacency.bytes() +
                                                     scaled.bytes() + graph_block.bytes()));
  const TileContext tiles{p, n, stream.get(), adj_offsets.data(), adjacency.data(), host_rows, sink};
  const double one = 1.0, zero = 0.0;
  for (std::int64_t s = first; s < end; s += b) {
    const std::int64_t cols = std::min(b, end - s);
    scale_eigenvector_rows<<<grid_for(n * cols), kThreads, 0, stream.get()>>>(vectors.data(), weights.data(),
                                                                              n, cols, s, scaled.data());
    NETDP_CUDA_CHECK_LAUNCH();
    // graph_block (n x cols) = V B^T, column j = G[:, s + j] = G[s + j, :].
    NETDP_CUDA_TRY(cublasDgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_T, n32, static_cast<int>(cols), n32, &one,
                               vectors.data(), n32, scaled.data(), static_cast<int>(cols), &zero,
                               graph_block.data(), n32));
    // B is spent once the product is queued (same stream): it takes the losses.
    tiles.finish(s, cols, graph_block.data(), scaled.data());
  }
  return run;
}

}  // namespace netdp::kernels
