// CUDA backend of the random-walk accountant (docs/math.md §5.2-5.4; walk_loss_kernels.hpp). Same maths as
// the CPU backend: the eigen weights come from walk_eigen_weights (host, shared), the per-element loss from
// common/walk_loss_math.hpp. Design notes: docs/cuda_backend.md.
//
// Layout: a tile of b sources s .. s + b - 1 makes an n x b graph-term block whose lane j is G[s + j, :]
// (spectral) or s_{s+j}(.) (series); the loss block made from it is column-major (column j = row s + j of the
// row-major loss matrix) and goes to the sink as is.
//  - spectral (E3) / finite (E2), docs/math.md §5.3: W = V diag(lambda) V^T by SymmetricEigensolver
//    (cuda/dense_solvers.hpp: cuSOLVER's 64-bit syevd; LAPACKE on the emulated device), g from the host;
//    B = V[s:s+b, :] diag(g) (b x n), then V B^T = (V diag(g) V^T)[:, s:s+b] = G[s:s+b, :]^T by symmetry of
//    G: a column-major n x b block, the GEMM's layout.
//  - series (E1), docs/math.md §5.2: node-major blocks (row-major n x b), X = W^t e_u by the one node-major
//    product (cuda::multiply, cuda/node_major_matrix.hpp: the warp-per-row body), S += X / t for t = 1 .. T.
//  - spectral / finite by the Chebyshev solver (docs/walk_loss.md "Solvers"): per tile, node-major blocks
//    and the bodies of common/walk_loss_chebyshev.hpp around one product per degree, the CPU's recurrence
//    step by step.
// Twins (docs/cuda_backend.md "Walk-loss twins"): the products W X sum W's rows in CSR order
// (spmm::row_entry, the CPU's csr_row_product), so the series and the Chebyshev solver give the CPU twin's
// bytes; the spectral methods given the same eigenpairs and GEMM too, and those two (cuSOLVER, cuBLAS in
// cuda/dense_solvers.hpp) are the vendor routines that differ on a GPU (the emulated device runs the CPU
// twin's LAPACK and BLAS calls there). Tiles, staging and bytes: memory_plan::plan_walk_series /
// plan_walk_chebyshev / plan_walk_spectral (pure, tested without a GPU); rows reach the sink through two
// small pinned chunks (RowStaging). Each method is an engine that holds the device state; the driver
// (src/accounting/walk_loss.cpp) runs the tile loop, one call per tile.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/for_each.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "common/memory_plan.hpp"
#include "common/walk_loss_bodies.hpp"
#include "common/walk_loss_chebyshev.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/propagation_launch.cuh"
#include "cuda/base/request.hpp"
#include "cuda/base/row_staging.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/dense_solvers.hpp"
#include "cuda/gossip_spmm.cuh"
#include "cuda/node_major_matrix.hpp"
#include "device_kernels.hpp"
#include "netdp/ground/errors.hpp"
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

/// The plans that hold W (or its CSR) and the adjacency plus a per-source block (series, Chebyshev): the
/// plan, or InsufficientMemory when one source does not fit.
template <typename Plan>
const Plan& fitting(const Plan& plan, std::int64_t n, int device) {
  if (!plan.fits) {
    throw_insufficient(n, plan.needed_bytes,
                       std::to_string(plan.fixed_bytes) + " for W and the adjacency + " +
                           std::to_string(plan.per_source_bytes) + " for one source",
                       plan.budget, device);
  }
  return plan;
}

/// What every method's engine holds first (so that it goes last): the request's device, kept current, and the
/// stream; the adjacency of the sender-known view (empty otherwise); the plan. Each engine declares its own
/// row staging last, so that it goes first, once the copies in flight have landed.
class TileEngine : public WalkLossCudaEngine {
 public:
  TileEngine(const WalkLossProblem& p, int device) : p_(p), context_(device) {
    if (!p.sender_known) return;
    adj_offsets_ = DeviceBuffer<std::int64_t>(p.graph.offsets.size());
    adjacency_ = DeviceBuffer<std::int32_t>(p.graph.adjacency.size());
    adj_offsets_.upload(std::span<const std::int64_t>(p.graph.offsets), stream());
    adjacency_.upload(std::span<const std::int32_t>(p.graph.adjacency), stream());
  }

  CudaWalkLossRun plan() const override { return run_; }

 protected:
  cudaStream_t stream() const { return context_.stream.get(); }
  std::int64_t adjacency_bytes() const {
    return static_cast<std::int64_t>(adj_offsets_.bytes() + adjacency_.bytes());
  }
  std::size_t block_elements(std::int64_t sources) const {
    return static_cast<std::size_t>(p_.w.n) * static_cast<std::size_t>(sources);
  }

  /// Loss block of sources s .. s + cols - 1 from the graph-term block `term` (node-major, or column-major
  /// with `column_major`) into the column-major `out` (n x cols, both on the device), then queued for the
  /// host and the sink (the copies run behind the kernel on the stream; the next tile's work, queued after
  /// them, may reuse `term` and `out`).
  void emit(std::int64_t s, std::int64_t cols, const double* term, bool column_major, double* out,
            cuda::RowStaging& staging) {
    const std::int64_t n = p_.w.n;
    cuda::for_each_row(
        n, cols,
        walk_loss::WalkLossesBody{term, column_major ? 1 : cols, column_major ? n : 1, adj_offsets_.data(),
                                  adjacency_.data(), n, s, p_.sender_known, p_.constant, p_.scale, p_.clip,
                                  p_.clip_level, out},
        stream());
    staging.push(s, cols, out);
  }

  const WalkLossProblem p_;
  const cuda::DeviceContext context_;  // device, guard and stream, from construction to the last member's end
  DeviceBuffer<std::int64_t> adj_offsets_;
  DeviceBuffer<std::int32_t> adjacency_;
  CudaWalkLossRun run_;
};

/// Series (E1), docs/math.md §5.2: per source X, Y and S on the device, node-major n x cols blocks (the spare
/// of X / Y takes the losses).
class SeriesEngine final : public TileEngine {
 public:
  SeriesEngine(const WalkLossProblem& p, int device, const mp::WalkSeriesPlan& plan, LossRowSink& sink)
      : TileEngine(p, device),
        w_(p.w, /*dense_path=*/false, stream()),
        block_a_(block_elements(plan.tile)),
        block_b_(block_a_.size()),
        sums_(block_a_.size()),
        staging_(p.w.n, plan.staging.chunk_columns, stream(), sink) {
    run_.tile_sources = plan.tile;
    run_.tiles = plan.tiles;
    run_.device_bytes = w_.device_bytes() + adjacency_bytes() +
                        static_cast<std::int64_t>(block_a_.bytes() + block_b_.bytes() + sums_.bytes());
  }

  /// X and Y alternate as the source and the product; at the end of a tile the product is in `x` and the
  /// spare `y` takes the losses. The next tile's identity rows overwrite block_a only after the copies of
  /// the previous tile's losses (same stream), whichever block held them.
  void loss_rows(node_t s, node_t cols) override {
    const cuda::DeviceGuard guard(context_.device);
    const std::int64_t n = p_.w.n, elements = n * cols;
    double* x = block_a_.data();
    double* y = block_b_.data();
    cuda::for_each_row(n, cols, spmm::IdentityRowsBody{x, cols, s}, stream());
    NETDP_CUDA_TRY(
        cudaMemsetAsync(sums_.data(), 0, static_cast<std::size_t>(elements) * sizeof(double), stream()));
    for (int t = 1; t <= p_.steps; ++t) {
      cuda::multiply(w_, x, y, cols, stream());
      std::swap(x, y);
      // S += X (1/t), rounded like the CPU (walk_loss::AccumulateSeriesBody).
      cuda::for_each(elements, walk_loss::AccumulateSeriesBody{x, 1.0 / t, sums_.data()}, stream());
    }
    emit(s, cols, sums_.data(), /*column_major=*/false, y, staging_);
  }

  void finish() override {
    const cuda::DeviceGuard guard(context_.device);
    staging_.flush();
  }

 private:
  cuda::NodeMajorMatrix w_;
  DeviceBuffer<double> block_a_, block_b_, sums_;
  cuda::RowStaging staging_;
};

/// The plan before the eigensolver's workspace is known: V, the small arrays and one source or the CSR.
mp::WalkSpectralPlan spectral_plan(const mp::WalkLossSizes& sizes, const mp::Limits& limits, int device) {
  const mp::WalkSpectralPlan plan = mp::plan_walk_spectral(sizes, limits, /*workspace_bytes=*/0);
  if (!plan.fits) {
    const std::int64_t vectors_bytes = sizes.n * sizes.n * mp::kDoubleBytes;
    throw_insufficient(sizes.n, plan.needed_bytes,
                       std::to_string(vectors_bytes) + " for the eigenvectors V (n^2 doubles), " +
                           std::to_string(plan.fixed_bytes - vectors_bytes) + " for small arrays and " +
                           std::to_string(std::max(plan.per_source_bytes, plan.csr_bytes)) +
                           " for one source or the CSR of W",
                       plan.budget, device);
  }
  return plan;
}

/// Spectral (E3) / finite (E2), docs/math.md §5.3. Fixed: V (n^2, the eigensolver works in place on the dense
/// W), eigenvalues, g, adjacency; before the tiles, the 32-bit CSR of W (while the dense W is built) and then
/// the eigensolver's workspace take turns beside it. Per source: B / losses and the G block on the device.
class SpectralEngine final : public TileEngine {
 public:
  /// `first_plan`: spectral_plan, without the eigensolver's workspace.
  SpectralEngine(const WalkLossProblem& p, int device, const mp::WalkLossSizes& sizes,
                 const mp::Limits& limits, const mp::WalkSpectralPlan& first_plan, LossRowSink& sink)
      : TileEngine(p, device),
        plan_(first_plan),
        vectors_(block_elements(p.w.n)),
        values_(static_cast<std::size_t>(p.w.n)),
        weights_(values_.size()) {
    const std::vector<double> host_values = decompose(sizes, limits, device);
    // g_i for ascending eigenvalues, 0 on the largest (phi_1): host code shared with the CPU backend.
    const std::vector<double> g = walk_eigen_weights(host_values, p.method, p.steps);
    weights_.upload(std::span<const double>(g), stream());
    scaled_ = DeviceBuffer<double>(block_elements(plan_.tile));
    graph_block_ = DeviceBuffer<double>(scaled_.size());
    NETDP_CUDA_TRY(cudaMemsetAsync(graph_block_.data(), 0, graph_block_.bytes(), stream()));
    product_.emplace(stream());
    staging_.emplace(p.w.n, plan_.staging.chunk_columns, stream(), sink);
    run_.tile_sources = plan_.tile;
    run_.tiles = plan_.tiles;
    run_.device_bytes = std::max(
        run_.device_bytes,
        adjacency_bytes() + static_cast<std::int64_t>(vectors_.bytes() + values_.bytes() + weights_.bytes() +
                                                      scaled_.bytes() + graph_block_.bytes()));
  }

  void loss_rows(node_t s, node_t cols) override {
    const cuda::DeviceGuard guard(context_.device);
    const std::int64_t n = p_.w.n;
    // B = V[s:s+cols, :] diag(g), column-major cols x n (walk_loss::ScaleEigenvectorRowsBody, row i of V^T
    // per row of the launch).
    cuda::for_each_row(
        n, cols,
        walk_loss::ScaleEigenvectorRowsBody{vectors_.data(), weights_.data(), n, cols, s, scaled_.data()},
        stream());
    // graph_block (n x cols, column-major) = V B^T, column j = G[:, s + j] = G[s + j, :].
    product_->times_transpose(n, cols, n, vectors_.data(), scaled_.data(), graph_block_.data());
    // B is spent once the product is queued (same stream): it takes the losses.
    emit(s, cols, graph_block_.data(), /*column_major=*/true, scaled_.data(), *staging_);
  }

  void finish() override {
    const cuda::DeviceGuard guard(context_.device);
    staging_->flush();
  }

 private:
  /// W = V diag(lambda) V^T: V in vectors_ (column i = phi_i), the ascending eigenvalues returned; the plan
  /// redone with the eigensolver's workspace, whose room the tiles get once solve() is over.
  std::vector<double> decompose(const mp::WalkLossSizes& sizes, const mp::Limits& limits, int device) {
    const std::int64_t n = p_.w.n;
    const auto started = std::chrono::steady_clock::now();
    {
      // Column-major dense W built on the device; symmetric, so either triangle serves the eigensolver.
      DeviceBuffer<std::int32_t> offsets(static_cast<std::size_t>(n) + 1);
      DeviceBuffer<std::int32_t> columns(static_cast<std::size_t>(p_.w.nnz()));
      DeviceBuffer<double> entries(static_cast<std::size_t>(p_.w.nnz()));
      const std::vector<std::int32_t> offsets32(p_.w.offsets.begin(), p_.w.offsets.end());
      offsets.upload(std::span<const std::int32_t>(offsets32), stream());
      columns.upload(std::span<const std::int32_t>(p_.w.columns), stream());
      entries.upload(std::span<const double>(p_.w.values), stream());
      cuda::csr_to_dense_async(offsets.data(), columns.data(), entries.data(), n, vectors_.data(), stream());
      context_.stream.synchronize();  // before the CSR copies are freed
    }
    cuda::SymmetricEigensolver eigen(n, vectors_.data(), values_.data(), stream());
    plan_ = mp::plan_walk_spectral(sizes, limits, eigen.workspace_bytes());
    if (!plan_.fits) {
      const std::int64_t vectors_bytes = n * n * mp::kDoubleBytes;
      throw_insufficient(n, plan_.needed_bytes,
                         std::to_string(vectors_bytes) + " for the eigenvectors V (n^2 doubles), " +
                             std::to_string(plan_.workspace_bytes) + " for the eigensolver's workspace and " +
                             std::to_string(plan_.fixed_bytes - vectors_bytes) + " for small arrays",
                         plan_.budget, device);
    }
    // Ascending eigenvalues; V is overwritten by the orthonormal eigenvectors, column i = phi_i.
    eigen.solve();
    std::vector<double> host_values(static_cast<std::size_t>(n));
    NETDP_CUDA_TRY(cudaMemcpyAsync(host_values.data(), values_.data(), values_.bytes(),
                                   cudaMemcpyDeviceToHost, stream()));
    context_.stream.synchronize();
    run_.eigen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    run_.device_bytes = static_cast<std::int64_t>(vectors_.bytes() + values_.bytes()) + adjacency_bytes() +
                        eigen.workspace_bytes();
    return host_values;
  }

  mp::WalkSpectralPlan plan_;
  DeviceBuffer<double> vectors_, values_, weights_;
  // Made once the eigensolver's workspace is gone; the staging last, so that it goes first.
  DeviceBuffer<double> scaled_, graph_block_;
  std::optional<cuda::DenseProduct> product_;
  std::optional<cuda::RowStaging> staging_;
};

/// Spectral / finite by the Chebyshev solver (docs/walk_loss.md "Solvers"): G e_u = p(W)(e_u - 1/n) for every
/// source of a tile, node-major n x cols blocks (row stride cols, lane stride 1, the CPU's panels' layout),
/// then the losses. The launches
/// follow kernels/cpu/walk_loss_cpu.cpp's walk_chebyshev_rows_cpu one to one
/// (tests/backend/test_walk_loss_bodies.cpp runs them on the host in this order).
class ChebyshevEngine final : public TileEngine {
 public:
  ChebyshevEngine(const WalkLossProblem& p, const WalkChebyshevExpansion& e, int device,
                  const mp::WalkChebyshevPlan& plan, LossRowSink& sink)
      : TileEngine(p, device),
        lo_(e.lo),
        hi_(e.hi),
        coefficients_(e.coefficients.begin(), e.coefficients.end()),
        w_(p.w, /*dense_path=*/false, stream()),
        t_(block_elements(plan.tile)),
        t_prev_(t_.size()),
        y_(t_.size()),
        sum_(t_.size()),
        means_(3 * static_cast<std::size_t>(plan.tile)),
        sources_(static_cast<std::size_t>(plan.tile)),
        staging_(p.w.n, plan.staging.chunk_columns, stream(), sink) {
    // The first step reads the ignored t_{k-1} (and mean_prev): never uninitialised memory.
    for (const DeviceBuffer<double>* buffer : {&t_prev_, &means_})
      NETDP_CUDA_TRY(cudaMemsetAsync(buffer->data(), 0, buffer->bytes(), stream()));
    run_.tile_sources = plan.tile;
    run_.tiles = plan.tiles;
    run_.device_bytes = w_.device_bytes() + adjacency_bytes() +
                        static_cast<std::int64_t>(4 * t_.bytes() + means_.bytes() + sources_.bytes());
  }

  void loss_rows(node_t s, node_t cols) override {
    namespace wc = walk_chebyshev;
    const cuda::DeviceGuard guard(context_.device);
    const std::int64_t n = p_.w.n, b = run_.tile_sources;
    const double a = 4.0 / (hi_ - lo_), bb = 2.0 * (hi_ + lo_) / (hi_ - lo_);
    const int degree = static_cast<int>(coefficients_.size()) - 1;
    double* tk = t_.data();
    double* tk_prev = t_prev_.data();
    // o_k, o_{k-1} and o_{k+1} per lane, rotated by pointer.
    double* mean = means_.data();
    double* mean_prev = means_.data() + b;
    double* mean_next = means_.data() + 2 * b;
    // Node-major: element (v, j) at v cols + j.
    cuda::for_each(cols, wc::LaneSourcesBody{s, sources_.data()}, stream());
    cuda::for_each_row(n, cols, wc::StartBody{sources_.data(), n, cols, 1, coefficients_[0], tk, sum_.data()},
                       stream());
    cuda::for_each(cols, wc::LaneMeanBody{tk, n, cols, 1, mean}, stream());
    for (int k = 0; k < degree; ++k) {
      const bool first_step = k == 0;
      cuda::multiply(w_, tk, y_.data(), cols, stream());  // y = W t_k
      cuda::for_each_row(n, cols,
                         wc::StepBody{y_.data(), mean, mean_prev, tk, tk_prev, sum_.data(), cols, 1,
                                      first_step ? 0.5 * a : a, first_step ? 0.5 * bb : bb,
                                      coefficients_[static_cast<std::size_t>(k) + 1], first_step},
                         stream());
      cuda::for_each(cols, wc::LaneMeanBody{tk_prev, n, cols, 1, mean_next}, stream());
      std::swap(tk, tk_prev);  // t = T_{k+1}, t_prev = T_k
      double* spare = mean_prev;
      mean_prev = mean;
      mean = mean_next;
      mean_next = spare;
    }
    cuda::for_each(cols, wc::LaneMeanBody{sum_.data(), n, cols, 1, mean}, stream());
    cuda::for_each_row(n, cols, wc::ProjectBody{mean, cols, 1, sum_.data()}, stream());
    // y is spent once the last step is queued (same stream): it takes the losses.
    emit(s, cols, sum_.data(), /*column_major=*/false, y_.data(), staging_);
  }

  void finish() override {
    const cuda::DeviceGuard guard(context_.device);
    staging_.flush();
  }

 private:
  const double lo_, hi_;
  const std::vector<double> coefficients_;  // c_0 .. c_K
  cuda::NodeMajorMatrix w_;
  DeviceBuffer<double> t_, t_prev_, y_, sum_, means_;
  DeviceBuffer<std::int64_t> sources_;
  cuda::RowStaging staging_;
};

}  // namespace

std::unique_ptr<WalkLossCudaEngine> walk_loss_cuda(const WalkLossProblem& p,
                                                   const WalkChebyshevExpansion* chebyshev, int device,
                                                   node_t first, node_t count, std::int64_t tile_sources,
                                                   std::int64_t memory_limit, LossRowSink& sink) {
  if (p.method < 0 || p.method > 2 || p.steps < 1) {
    throw InvalidInput("walk loss: need method 0, 1 or 2 and steps >= 1, got method = " +
                       std::to_string(p.method) + ", steps = " + std::to_string(p.steps));
  }
  mp::Limits limits;
  {
    const CheckedRequest request("walk loss", p.graph, p.w, first, count, device);
    if (request.empty()) return nullptr;
    // ---- Memory plan (docs/design.md principle 5): pure, common/memory_plan.hpp; free bytes read once. ----
    limits = {cuda::free_device_bytes(), memory_limit, tile_sources};
  }  // the engine's own guard restores the caller's device when it goes
  const mp::WalkLossSizes sizes{p.w.n, p.w.nnz(), static_cast<std::int64_t>(p.graph.adjacency.size()),
                                p.sender_known, count};
  if (chebyshev && p.method != 2)
    return std::make_unique<ChebyshevEngine>(
        p, *chebyshev, device, fitting(mp::plan_walk_chebyshev(sizes, limits), p.w.n, device), sink);
  if (p.method == 2)
    return std::make_unique<SeriesEngine>(p, device,
                                          fitting(mp::plan_walk_series(sizes, limits), p.w.n, device), sink);
  return std::make_unique<SpectralEngine>(p, device, sizes, limits, spectral_plan(sizes, limits, device),
                                          sink);
}

}  // namespace netdp::kernels
