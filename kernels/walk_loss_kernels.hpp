#pragma once
// Backend entry points of the random-walk accountant (docs/math.md §5.2-5.4). Internal: called by
// src/accounting/walk_loss.cpp and the backend tests only.
//
// Spectral methods: W = V diag(lambda) V^T (ascending eigenvalues, the largest = 1 on phi_1 = 1/sqrt(n)); the
// graph term is G = V diag(g) V^T with g_i = -ln(1 - lambda_i) (E3) or S_T(lambda_i) (E2) for every eigenpair
// but the largest (g = 0 there). Rows of G come from one product per tile: (V[rows, :] diag(g)) V^T.
// Series method: s_u(v) = sum_{t=1}^T (W^t e_u)_v / t by propagation.
// Then eps_{u->v} = walk_pair_loss(G_{uv} or max_{w in N(v)} G_{uw}, ...).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/walk_loss_math.hpp"
#include "netdp/ground/row_sink.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

struct WalkLossProblem {
  GraphView graph;  // N(v) for the sender-known view
  CsrView w;        // symmetric gossip matrix of a connected graph
  int method;       // 0 spectral (E3), 1 finite (E2), 2 series (E1): WalkLossMethod
  bool sender_known;
  int steps;        // T
  double constant;  // c_T / n: ln(T)/n (E3), H_T/n (E2), 0 (series)
  double scale;     // N_u alpha / sigma^2
  bool clip;
  double clip_level;  // alpha / (2 sigma^2)
};

// The eigenpair weights g_i: walk_eigen_weights (common/walk_loss_math.hpp), host code both backends run.

// ---- CPU (kernels/cpu/walk_loss_cpu.cpp) ----

/// Eigen-decomposition of symmetric W with LAPACK dsyevd: values ascending; vectors column-major, column i =
/// phi_i.
struct SymmetricEigen {
  std::vector<double> values, vectors;
};
SymmetricEigen symmetric_eigen_cpu(CsrView w);

/// Rows first .. first + count - 1 of the loss matrix, spectral methods (needs the eigendecomposition).
void walk_spectral_rows_cpu(const WalkLossProblem& p, const SymmetricEigen& eigen, node_t first, node_t count,
                            std::span<double> rows);

/// Rows first .. first + count - 1 of the loss matrix, series method (propagation, no eigendecomposition).
void walk_series_rows_cpu(const WalkLossProblem& p, node_t first, node_t count, std::span<double> rows);
/// Bytes of the series method's per-thread panels.
std::int64_t walk_series_cpu_workspace_bytes(node_t n, int threads);

/// Chebyshev expansion of the graph term (spectral and finite methods without an eigendecomposition,
/// common/walk_loss_chebyshev.hpp): p(B) = sum_k coefficients[k] T_k(B), B = (2 W - (hi + lo) I) / (hi - lo)
/// on the complement of the all-ones vector.
/// Sources per CPU panel of the Chebyshev solver: one 64-byte line per gathered row of t_k. Measured on ER
/// n = 16,384 (benchmarks/RESULTS.md, issue 16): 4 and 16 lanes cost about the same per source and step, 32
/// lanes 2.5x more (the 4 MiB panels leave the cache); the width never changes the bits (lanes independent).
constexpr int kChebyshevLanes = 8;

struct WalkChebyshevExpansion {
  double lo, hi;
  std::span<const double> coefficients;  // c_0 .. c_K
};
/// Rows first .. first + count - 1 of the loss matrix from the expansion (panels of sources, sparse
/// products).
void walk_chebyshev_rows_cpu(const WalkLossProblem& p, const WalkChebyshevExpansion& e, node_t first,
                             node_t count, std::span<double> rows);
/// Bytes of the Chebyshev method's per-thread panels.
std::int64_t walk_chebyshev_cpu_workspace_bytes(node_t n, int threads);

// ---- CUDA (kernels/cuda/walk_loss_cuda.cu; kernels/stubs/ in builds without CUDA) ----

struct CudaWalkLossRun {
  std::int64_t tile_sources = 0, tiles = 0, device_bytes = 0;
  double eigen_seconds = 0;
};

/// The random-walk accountant on a CUDA device: W (or its eigenvectors), the adjacency and the blocks of one
/// tile, allocated once. The driver (src/accounting/walk_loss.cpp) owns the tile loop over the requested
/// sources, in increasing order. Nothing here calls back into it.
class WalkLossCudaEngine {
 public:
  virtual ~WalkLossCudaEngine() = default;
  virtual CudaWalkLossRun plan() const = 0;
  /// Loss rows s .. s + cols - 1 (cols <= plan().tile_sources), queued for the sink, which gets the rows in
  /// increasing order through two pinned chunks of at most 256 MiB (so possibly in more calls than tiles).
  virtual void loss_rows(node_t s, node_t cols) = 0;
  /// Hands the rows still queued to the sink.
  virtual void finish() = 0;
};

/// The engine for sources first .. first + count - 1 on CUDA device `device`; nullptr when count = 0 (after
/// the checks). Spectral methods: cuSOLVER's 64-bit Xsyevd (run here, before the engine returns) and one
/// cuBLAS GEMM per tile; or, when `chebyshev` is given, the Chebyshev expansion by the node-major CSR-order
/// product (cuda::multiply: the warp-per-row body of cuda/gossip_spmm.cuh) and the bodies of
/// common/walk_loss_chebyshev.hpp; series: the same product. Tiles come from
/// memory_plan::plan_walk_series / plan_walk_spectral (common/memory_plan.hpp): tile_sources = 0 picks the
/// widest tile that fits (85% of the free memory, or memory_limit bytes when > 0 and smaller), balanced over
/// the sources; InsufficientMemory when the eigenvectors with the solver's workspace, or one row, cannot fit.
/// The Chebyshev plan takes 4 n doubles per source (t_k, t_{k-1}, W t_k, the sum; the spare takes the
/// losses) beside W and the adjacency. The problem and the sink must outlive the engine.
std::unique_ptr<WalkLossCudaEngine> walk_loss_cuda(const WalkLossProblem& p,
                                                   const WalkChebyshevExpansion* chebyshev, int device,
                                                   node_t first, node_t count, std::int64_t tile_sources,
                                                   std::int64_t memory_limit, LossRowSink& sink);

}  // namespace netdp::kernels
