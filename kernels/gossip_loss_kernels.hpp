#pragma once
// Backend entry points of the gossip accountant (docs/math.md §6.2). Internal: called by
// src/accounting/gossip_loss.cpp and the backend tests only.
//
// Both backends use the same two passes over the sources u (columns W^t e_u, propagated by SpMM):
//   1. row norms  r_t(w) = ||row w of W^t||^2 = ||W^t e_w||^2 (W^t is symmetric), for every w;
//   2. losses     s_u(w) = sum_t (W^t)_{w,u}^2 / r_t(w), then f(u, v) = scale * sum_{w in N(v)} s_u(w).
// Every source column is computed with the same arithmetic whatever the tile it belongs to, so tiled and
// untiled runs agree bit for bit.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "netdp/ground/row_sink.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

struct GossipLossProblem {
  GraphView graph;  // N(v) of Theorem 6.1
  CsrView w;        // symmetric gossip matrix supported on graph
  int t_start;      // first power of W
  int steps;        // T
  double scale;     // alpha Delta^2 / (2 sigma^2)
  bool cap_ldp;     // min(f, scale)
  bool dense;       // propagate with GEMM on a dense copy of W
};

// ---- CPU (kernels/cpu/gossip_loss_cpu.cpp) ----

/// norms[k * n + w] = r_{t_start + k}(w), k < steps; progress(share of the panels done), one call at a time
/// (ground::WorkCounter). When it returns false the panels not started are skipped (the caller checks for the
/// stop request that made it answer so).
void gossip_row_norms_cpu(const GossipLossProblem& p, std::span<double> norms,
                          const std::function<bool(double)>& progress = {});

/// Rows first .. first + count - 1 of the loss matrix into rows (count x n, row-major).
void gossip_loss_rows_cpu(const GossipLossProblem& p, std::span<const double> norms, node_t first,
                          node_t count, std::span<double> rows);

/// Bytes the CPU backend needs besides the norms and the output tile (per-thread buffers, dense W).
std::int64_t gossip_cpu_workspace_bytes(const GossipLossProblem& p, int threads);

/// The one-pass CPU method (docs/gossip_loss.md "One pass for long horizons"): every node's panel advances
/// one power at a time, so r_t is held for the current t only (n values, not T x n), and the requested
/// sources' shares s_u(w) accumulate beside. The same panels and sums as the two passes: bit for bit.
struct GossipShares {
  int lanes = 0;  // panel width L
  node_t first = 0, count = 0;
  std::vector<double> shares;  // panel b of the requested sources at b * n * lanes: n x lanes, row-major
};

/// Bytes the one pass holds (panels of every node, the requested sources' shares and, when they are not all
/// n sources, their own panels; a dense copy of W), besides the output tile.
std::int64_t gossip_one_pass_bytes(const GossipLossProblem& p, node_t first, node_t count);

/// The shares of sources first .. first + count - 1; progress(share of the powers done) after every power,
/// from one thread at a time. When it returns false the remaining powers are skipped and the shares are
/// incomplete (the caller checks for the stop request that made it answer so).
GossipShares gossip_shares_one_pass_cpu(const GossipLossProblem& p, node_t first, node_t count,
                                        const std::function<bool(double)>& progress);

/// Rows start .. start + rows - 1 (a multiple of the panel width past shares.first, or up to the end) of the
/// loss matrix into out (rows x n, row-major), from the shares.
void gossip_loss_rows_from_shares_cpu(const GossipLossProblem& p, const GossipShares& shares, node_t start,
                                      node_t rows, std::span<double> out);

// ---- CUDA (kernels/cuda/gossip_loss_cuda.cu; kernels/stubs/ in builds without CUDA) ----

struct CudaGossipLossRun {
  std::int64_t norms_tile = 0;    // sources per pass-1 tile
  std::int64_t tile_sources = 0;  // sources per pass-2 tile
  std::int64_t tiles = 0;         // pass-2 tiles
  std::int64_t device_bytes = 0;  // device memory held
};

/// The gossip accountant on a CUDA device: W, the graph, the T x n norms and the blocks of one tile,
/// allocated once. The driver (src/accounting/gossip_loss.cpp) owns the tile loops: pass 1 over all n
/// sources, then pass 2 over the requested ones in increasing order. Nothing here calls back into it.
class GossipLossCudaEngine {
 public:
  virtual ~GossipLossCudaEngine() = default;
  virtual CudaGossipLossRun plan() const = 0;
  /// Pass 1: adds sources s .. s + cols - 1 (cols <= plan().norms_tile) to every r_t(w); returns when done.
  virtual void add_norms(node_t s, node_t cols) = 0;
  /// Pass 2, once every source is in the norms: loss rows s .. s + cols - 1 (cols <= plan().tile_sources),
  /// queued for the sink, which gets the rows in increasing order through two pinned chunks of at most
  /// 256 MiB (so possibly in more calls than tiles).
  virtual void loss_rows(node_t s, node_t cols) = 0;
  /// Hands the rows still queued to the sink.
  virtual void finish() = 0;
};

/// The engine for sources first .. first + count - 1 on CUDA device `device`; nullptr when count = 0 (after
/// the checks). Tiles come from memory_plan::plan_gossip_loss (common/memory_plan.hpp): tile_sources = 0
/// picks the widest tile that fits 85% of the free device memory (or memory_limit bytes when > 0 and
/// smaller), at most 32 sources; throws InsufficientMemory when not even one source fits. The problem and the
/// sink must outlive the engine.
std::unique_ptr<GossipLossCudaEngine> gossip_loss_cuda(const GossipLossProblem& p, int device, node_t first,
                                                       node_t count, std::int64_t tile_sources,
                                                       std::int64_t memory_limit, LossRowSink& sink);

}  // namespace netdp::kernels
