#pragma once
// Memory plans (docs/cuda_backend.md, "One memory plan"; docs/design.md principle 5): tile widths, batch
// sizes, pinned staging and device bytes, decided once before anything is allocated, as pure functions of the
// problem sizes, the free memory and the user's limits. Every batch and tile of the accountants and of the
// gossip simulator (CPU and CUDA) comes from here; the callers only add the bytes of their arrays and word
// the errors. No CUDA call and no CUDA header: the
// plans build in every configuration and tests/unit/test_memory_plan.cpp checks them at the target sizes
// without a GPU. The engines' factories (kernels/cuda/gossip_loss_cuda.cu, walk_loss_cuda.cu) read the free
// bytes once (cuda/base/memory_budget.hpp), call a plan and allocate what it says; the drivers in
// src/accounting run the tiles it gives.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace netdp::kernels::memory_plan {

/// The one share of the free device memory that every CUDA backend plans with, in percent so that budgets
/// are exact integers. The rest is headroom for the CUDA context and for the library workspaces whose size is
/// known only once the blocks exist (cuBLAS's, cuSOLVER's). The simulators' drivers
/// (gossip_sim_common.cuh, walk_sim_cuda.cu, walk_sim_accounting_cuda.cu) still pass their own shares to
/// cuda::device_memory_budget; kDeviceMemoryShare is the value to use there.
inline constexpr std::int64_t kDeviceMemoryPercent = 85;
inline constexpr double kDeviceMemoryShare = static_cast<double>(kDeviceMemoryPercent) / 100.0;

/// Result rows go to the host through kStagingChunks pinned chunks of at most kStagingChunkBytes each, used
/// in turn (the copy into one overlaps the host's work on the other), never through a pinned buffer as large
/// as the device tile (that would be 13 GB at n = 65,536).
inline constexpr std::int64_t kStagingChunkBytes = std::int64_t{256} << 20;
inline constexpr std::int64_t kStagingChunks = 2;

/// Device blocks (n x tile) hold at most 2^31 - 1 elements, so that no library call (cuBLAS and cuSOLVER,
/// with int dimensions) is handed a block whose element offsets need more than 32
/// bits. It binds from n = 65,536 with more than 32,767 sources per tile.
inline constexpr std::int64_t kMaxBlockElements = std::numeric_limits<std::int32_t>::max();

inline constexpr std::int64_t kDoubleBytes = sizeof(double);
inline constexpr std::int64_t kInt32Bytes = sizeof(std::int32_t);
inline constexpr std::int64_t kInt64Bytes = sizeof(std::int64_t);

/// What the user and the device allow.
struct Limits {
  std::int64_t free_bytes = 0;    // free device memory (cudaMemGetInfo), read once before planning
  std::int64_t memory_limit = 0;  // --memory-limit in bytes; 0: none
  std::int64_t tile_sources = 0;  // --tile-sources; 0: the widest tile that fits
};

struct Budget {
  std::int64_t bytes = 0;
  bool from_limit = false;  // memory_limit, not the share of the free memory, set the figure
};

/// floor(free_bytes * kDeviceMemoryPercent / 100), or memory_limit when it is > 0 and smaller.
constexpr Budget device_budget(std::int64_t free_bytes, std::int64_t memory_limit) {
  const std::int64_t share =
      free_bytes / 100 * kDeviceMemoryPercent + free_bytes % 100 * kDeviceMemoryPercent / 100;
  if (memory_limit > 0 && memory_limit < share) return {memory_limit, true};
  return {share, false};
}

/// The same with another share of the free memory (the simulators' drivers).
constexpr Budget device_budget_with_share(std::int64_t free_bytes, double share, std::int64_t memory_limit) {
  const auto bytes = static_cast<std::int64_t>(share * static_cast<double>(free_bytes));
  if (memory_limit > 0 && memory_limit < bytes) return {memory_limit, true};
  return {bytes, false};
}

/// Where a budget comes from, for messages: "85% of the free memory of CUDA device 0" or "the memory limit".
inline std::string describe(const Budget& budget, int device, double share = kDeviceMemoryShare) {
  if (budget.from_limit) return "the memory limit";
  return std::to_string(static_cast<int>(share * 100 + 0.5)) + "% of the free memory of CUDA device " +
         std::to_string(device);
}

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// The most columns of `rows` rows that one device block may hold (kMaxBlockElements), at least 1.
constexpr std::int64_t max_block_columns(std::int64_t rows) {
  return std::max<std::int64_t>(1, kMaxBlockElements / std::max<std::int64_t>(rows, 1));
}

/// Equal tiles: the fewest tiles of at most `widest` columns that cover `count`, then the narrowest width
/// that still needs no more tiles (less memory, never an extra tile). 0 when count or widest is < 1.
constexpr std::int64_t balanced_tile(std::int64_t count, std::int64_t widest) {
  if (count < 1 || widest < 1) return 0;
  return ceil_div(count, ceil_div(count, std::min(widest, count)));
}

/// Pinned staging of result rows of length n for device tiles of `tile` columns: kStagingChunks chunks of
/// chunk_columns rows each (as many rows of n doubles as kStagingChunkBytes holds, at least 1, at most the
/// tile).
struct Staging {
  std::int64_t chunk_columns = 0;
  std::int64_t bytes = 0;  // all chunks together
};

constexpr Staging plan_staging(std::int64_t n, std::int64_t tile) {
  if (n < 1 || tile < 1) return {};
  const std::int64_t row_bytes = n * kDoubleBytes;
  const std::int64_t columns = std::clamp<std::int64_t>(kStagingChunkBytes / row_bytes, 1, tile);
  return {columns, kStagingChunks * columns * row_bytes};
}

/// W in CSR with 32-bit offsets and column indices, float64 values (the Propagator's copy,
/// csr_to_dense_async).
constexpr std::int64_t csr32_bytes(std::int64_t n, std::int64_t nnz) {
  return (n + 1) * kInt32Bytes + nnz * (kInt32Bytes + kDoubleBytes);
}

/// W in CSR with 64-bit offsets, 32-bit column indices and float64 values: the node-major engines' sparse
/// path (cuda::NodeMajorMatrix uploads the host's arrays as they are).
constexpr std::int64_t csr64_bytes(std::int64_t n, std::int64_t nnz) {
  return (n + 1) * kInt64Bytes + nnz * (kInt32Bytes + kDoubleBytes);
}

/// W as cuda::NodeMajorMatrix holds it: its 64-bit CSR (sparse path), or the Propagator's 32-bit CSR and
/// dense n x n copy (dense path).
constexpr std::int64_t node_major_w_bytes(std::int64_t n, std::int64_t nnz, bool dense) {
  return dense ? csr32_bytes(n, nnz) + n * n * kDoubleBytes : csr64_bytes(n, nnz);
}

/// The graph's adjacency on the device: int64 offsets, int32 neighbour ids.
constexpr std::int64_t adjacency_bytes(std::int64_t n, std::int64_t entries) {
  return (n + 1) * kInt64Bytes + entries * kInt32Bytes;
}

/// Widest tile (in sources) of `per_source` bytes beside `fixed` in the budget, within the block limit for
/// blocks of `rows` rows; or the forced width (within the block limit too). Not balanced, not clamped to a
/// count; 0 when not even one source fits.
constexpr std::int64_t widest_tile(std::int64_t fixed, std::int64_t per_source, std::int64_t rows,
                                   const Budget& budget, std::int64_t forced) {
  if (forced > 0) return std::min(forced, max_block_columns(rows));
  if (fixed + per_source > budget.bytes) return 0;
  return std::min((budget.bytes - fixed) / per_source, max_block_columns(rows));
}

/// The tile for `count` sources from the widest one: a forced width (forced > 0) as given, clamped to the
/// count; an automatic one balanced over the count.
constexpr std::int64_t source_tile(std::int64_t count, std::int64_t widest, std::int64_t forced) {
  return forced > 0 ? std::min(widest, count) : balanced_tile(count, widest);
}

/// The tiles of a plan over `count` sources of n rows, once its budget, fixed_bytes and per_source_bytes are
/// set: tile (source_tile of widest_tile), tiles and the staging of result rows. Returns widest_tile.
template <class Plan>
constexpr std::int64_t plan_source_tiles(Plan& plan, std::int64_t n, std::int64_t count,
                                         std::int64_t forced) {
  const std::int64_t widest = widest_tile(plan.fixed_bytes, plan.per_source_bytes, n, plan.budget, forced);
  plan.tile = source_tile(count, widest, forced);
  plan.tiles = ceil_div(count, plan.tile);
  plan.staging = plan_staging(n, plan.tile);
  return widest;
}

// ---- Gossip accountant (gossip_loss_cuda.cu, docs/math.md §6.2) ----

struct GossipLossSizes {
  std::int64_t n = 0;
  std::int64_t nnz = 0;        // stored entries of W
  std::int64_t adjacency = 0;  // stored neighbour ids of the graph (N(v) of Theorem 6.1)
  std::int64_t steps = 0;      // T: the norms r_t hold T n doubles
  bool dense = false;          // a dense copy of W (n^2 doubles) for GEMM propagation
  std::int64_t count = 0;      // requested sources (pass 2)
};

struct GossipLossPlan {
  Budget budget;
  std::int64_t fixed_bytes = 0;       // W (node_major_w_bytes), adjacency, norms
  std::int64_t per_source_bytes = 0;  // X, Y, S and the loss block: 4 n doubles
  std::int64_t norms_tile = 0;        // pass 1 tile (all n sources)
  std::int64_t tile = 0;              // pass 2 tile (the requested sources)
  std::int64_t tiles = 0;             // pass 2 tiles
  std::int64_t block_columns = 0;     // columns of X and Y: max(norms_tile, tile)
  Staging staging;                    // pinned chunks of pass 2
  std::int64_t device_bytes = 0;      // fixed + X, Y (block_columns) + S, losses (tile); no SpMM buffer
  bool fits = false;                  // false: not even one source fits beside the fixed arrays
  std::int64_t needed_bytes = 0;      // fixed + one source
};

/// The gossip plan. A forced tile (limits.tile_sources) is used as given, clamped to the source counts and
/// the block limit; an automatic one is the widest that fits, balanced over each pass.
constexpr GossipLossPlan plan_gossip_loss(const GossipLossSizes& s, const Limits& limits) {
  GossipLossPlan plan;
  plan.budget = device_budget(limits.free_bytes, limits.memory_limit);
  plan.fixed_bytes = node_major_w_bytes(s.n, s.nnz, s.dense) + adjacency_bytes(s.n, s.adjacency) +
                     s.steps * s.n * kDoubleBytes;
  plan.per_source_bytes = 4 * s.n * kDoubleBytes;
  plan.needed_bytes = plan.fixed_bytes + plan.per_source_bytes;
  plan.fits = limits.tile_sources > 0 || plan.needed_bytes <= plan.budget.bytes;
  if (!plan.fits || s.n < 1 || s.count < 1) return plan;
  const std::int64_t widest = plan_source_tiles(plan, s.n, s.count, limits.tile_sources);
  plan.norms_tile = source_tile(s.n, widest, limits.tile_sources);
  plan.block_columns = std::max(plan.norms_tile, plan.tile);
  plan.device_bytes = plan.fixed_bytes + 2 * s.n * kDoubleBytes * (plan.block_columns + plan.tile);
  return plan;
}

// ---- Random-walk accountant (walk_loss_cuda.cu, docs/math.md §5.2-5.4) ----

struct WalkLossSizes {
  std::int64_t n = 0;
  std::int64_t nnz = 0;        // stored entries of W
  std::int64_t adjacency = 0;  // stored neighbour ids of the graph (uploaded for the sender-known view only)
  bool sender_known = false;
  std::int64_t count = 0;  // requested sources
};

/// The tiled walk methods (series, Chebyshev): W in 64-bit CSR (cuda::NodeMajorMatrix's sparse path) and the
/// adjacency fixed, per_source_bytes per source of a tile; the products need no workspace.
struct WalkTilePlan {
  Budget budget;
  std::int64_t fixed_bytes = 0;
  std::int64_t per_source_bytes = 0;
  std::int64_t tile = 0, tiles = 0;
  Staging staging;
  std::int64_t device_bytes = 0;  // fixed + per_source_bytes tile
  bool fits = false;              // fixed + one source fits the budget (checked with a forced tile too)
  std::int64_t needed_bytes = 0;  // fixed + one source
};
using WalkSeriesPlan = WalkTilePlan;
using WalkChebyshevPlan = WalkTilePlan;

constexpr std::int64_t walk_adjacency_bytes(const WalkLossSizes& s) {
  return s.sender_known ? adjacency_bytes(s.n, s.adjacency) : 0;
}

constexpr WalkTilePlan plan_walk_tiles(const WalkLossSizes& s, const Limits& limits,
                                       std::int64_t per_source_bytes) {
  WalkTilePlan plan;
  plan.budget = device_budget(limits.free_bytes, limits.memory_limit);
  plan.fixed_bytes = csr64_bytes(s.n, s.nnz) + walk_adjacency_bytes(s);
  plan.per_source_bytes = per_source_bytes;
  plan.needed_bytes = plan.fixed_bytes + plan.per_source_bytes;
  plan.fits = plan.needed_bytes <= plan.budget.bytes;
  if (!plan.fits || s.n < 1 || s.count < 1) return plan;
  plan_source_tiles(plan, s.n, s.count, limits.tile_sources);
  plan.device_bytes = plan.fixed_bytes + plan.per_source_bytes * plan.tile;
  return plan;
}

/// Series method (E1): per source X, Y, S (the spare of X / Y takes the losses): 3 n doubles.
constexpr WalkSeriesPlan plan_walk_series(const WalkLossSizes& s, const Limits& limits) {
  return plan_walk_tiles(s, limits, 3 * s.n * kDoubleBytes);
}

/// Chebyshev solver (docs/walk_loss.md "Solvers"): per source t_k, t_{k-1}, y = W t_k and the sum s (4 n
/// doubles), its source index and three lane means.
constexpr WalkChebyshevPlan plan_walk_chebyshev(const WalkLossSizes& s, const Limits& limits) {
  return plan_walk_tiles(s, limits, 4 * s.n * kDoubleBytes + kInt64Bytes + 3 * kDoubleBytes);
}

/// LAPACK dsyevd's workspace for eigenvectors (jobz = 'V'): 1 + 6 n + 2 n^2 doubles; cuSOLVER's is of the
/// same order. It is the reference size of the eigensolver plan where the device's own figure is not known.
constexpr std::int64_t syevd_workspace_doubles(std::int64_t n) {
  return 1 + 6 * n + 2 * n * n;
}

/// True when that workspace, counted in doubles, does not fit the int that the 32-bit cuSOLVER API
/// (cusolverDnDsyevd_bufferSize) returns: from n = 32,767. walk_loss_cuda.cu therefore uses the 64-bit API
/// (cusolverDnXsyevd_bufferSize / cusolverDnXsyevd, sizes in size_t bytes).
constexpr bool int_lwork_overflows(std::int64_t n) {
  return syevd_workspace_doubles(n) > std::numeric_limits<std::int32_t>::max();
}

/// Spectral methods (E3, E2). Fixed: V (n^2 doubles; syevd overwrites the dense W with it), the eigenvalues
/// and g (2 n doubles), devInfo, the adjacency. Before the tiles, first the 32-bit CSR of W (while the dense
/// W is built) and then the syevd workspace sit beside the fixed part, one after the other. Per source: B
/// (which later takes the losses) and the G block: 2 n doubles.
struct WalkSpectralPlan {
  Budget budget;
  std::int64_t vectors_bytes = 0;
  std::int64_t fixed_bytes = 0;
  std::int64_t csr_bytes = 0;
  std::int64_t workspace_bytes = 0;   // syevd's device workspace (the plan's input)
  std::int64_t eigen_peak_bytes = 0;  // fixed + max(CSR, workspace)
  std::int64_t per_source_bytes = 0;
  std::int64_t tile = 0, tiles = 0;
  Staging staging;
  std::int64_t device_bytes = 0;  // max(eigen peak, fixed + per_source tile)
  bool fits = false;              // fixed + max(one source, CSR, workspace) fits the budget
  std::int64_t needed_bytes = 0;  // fixed + max(one source, CSR, workspace)
};

/// `workspace_bytes`: syevd's device workspace as the solver reports it (0 before it is known: the plan then
/// checks V, the small arrays and max(one source, CSR) only).
constexpr WalkSpectralPlan plan_walk_spectral(const WalkLossSizes& s, const Limits& limits,
                                              std::int64_t workspace_bytes) {
  WalkSpectralPlan plan;
  plan.budget = device_budget(limits.free_bytes, limits.memory_limit);
  plan.vectors_bytes = s.n * s.n * kDoubleBytes;
  plan.fixed_bytes =
      plan.vectors_bytes + 2 * s.n * kDoubleBytes + std::int64_t{sizeof(int)} + walk_adjacency_bytes(s);
  plan.csr_bytes = csr32_bytes(s.n, s.nnz);
  plan.workspace_bytes = workspace_bytes;
  plan.eigen_peak_bytes = plan.fixed_bytes + std::max(plan.csr_bytes, workspace_bytes);
  plan.per_source_bytes = 2 * s.n * kDoubleBytes;
  plan.needed_bytes = std::max(plan.eigen_peak_bytes, plan.fixed_bytes + plan.per_source_bytes);
  plan.fits = plan.needed_bytes <= plan.budget.bytes;
  if (!plan.fits || s.n < 1 || s.count < 1) return plan;
  plan_source_tiles(plan, s.n, s.count, limits.tile_sources);
  plan.device_bytes = std::max(plan.eigen_peak_bytes, plan.fixed_bytes + plan.per_source_bytes * plan.tile);
  return plan;
}

// ---- Batches of independent runs (walks, gossip runs) ----

/// For the simulators' drivers (not yet called by them): the most items of `per_item` bytes beside `fixed`
/// in the budget, at most max_batch (0: no cap) and `items`, then balanced over the batches.
struct BatchPlan {
  std::int64_t batch = 0, batches = 0;
  std::int64_t bytes = 0;  // fixed + per_item batch
  bool fits = false;       // one item fits beside the fixed part
};

constexpr BatchPlan plan_batch(std::int64_t items, std::int64_t fixed, std::int64_t per_item,
                               const Budget& budget, std::int64_t max_batch) {
  BatchPlan plan;
  plan.fits = fixed + per_item <= budget.bytes;
  if (!plan.fits || items < 1) return plan;
  std::int64_t widest = (budget.bytes - fixed) / per_item;
  if (max_batch > 0) widest = std::min(widest, max_batch);
  plan.batch = balanced_tile(items, widest);
  plan.batches = ceil_div(items, plan.batch);
  plan.bytes = fixed + per_item * plan.batch;
  return plan;
}

// ---- Host budgets and the CPU drivers' tiles and batches ----

/// The host budget of a CPU driver: memory_limit when > 0, else 4/5 of the available memory (the rest is the
/// system's and the output writers').
constexpr std::int64_t host_budget(std::int64_t available_bytes, std::int64_t memory_limit) {
  return memory_limit > 0 ? memory_limit : available_bytes * 4 / 5;
}

/// The most items of `per_item` bytes beside `fixed` in `budget` bytes; 0 when not even one fits.
constexpr std::int64_t items_that_fit(std::int64_t fixed, std::int64_t per_item, std::int64_t budget) {
  return fixed + per_item > budget ? 0 : (budget - fixed) / per_item;
}

/// Result rows of n doubles written kOutputTileBytes at a time (at least one row, at most `rows`): the output
/// tiles of the exact gossip accountants (docs/gossip_loss_sequence.md) and of gossip-sim's privacy.
inline constexpr std::int64_t kOutputTileBytes = std::int64_t{64} << 20;

constexpr std::int64_t output_tile(std::int64_t rows, std::int64_t n) {
  return std::min(
      rows, std::max<std::int64_t>(1, kOutputTileBytes / (kDoubleBytes * std::max<std::int64_t>(n, 1))));
}

/// Row tiles of a loss matrix on the host (src/accounting/row_tiles.cpp): `fixed` bytes plus `per_row` for
/// each source row of a tile. A forced tile (> 0) is used as given; otherwise the widest that fits a quarter
/// of what the fixed part leaves (the sink needs room too), at most about kOutputTileBytes of rows or 32 rows
/// a thread, whichever is more. Clamped to 1 .. count. fits: fixed + one row fits the budget (the tile is
/// still set when it does not, for the message).
struct RowTilePlan {
  std::int64_t tile = 0, tiles = 0;
  std::int64_t bytes = 0;  // fixed + per_row tile
  bool fits = false;
};

constexpr RowTilePlan plan_row_tile(std::int64_t n, std::int64_t count, std::int64_t fixed,
                                    std::int64_t per_row, std::int64_t budget, std::int64_t forced,
                                    std::int64_t threads) {
  RowTilePlan plan;
  plan.fits = fixed + per_row <= budget;
  std::int64_t tile = forced;
  if (tile <= 0) {
    const std::int64_t fits = std::max<std::int64_t>(1, (budget - fixed) / 4 / per_row);
    const std::int64_t preferred =
        std::max<std::int64_t>(kOutputTileBytes / (n * kDoubleBytes), 32 * threads);
    tile = std::min(fits, preferred);
  }
  plan.tile = std::max<std::int64_t>(1, std::min(tile, count));
  plan.tiles = ceil_div(count, plan.tile);
  plan.bytes = fixed + plan.tile * per_row;
  return plan;
}

/// Batches of independent runs (gossip-sim, CPU and CUDA) or observers (the exact gossip accountant on CUDA),
/// taken in order: `per_item` bytes for each item of a batch beside `fixed` once.
struct RunBatchRequest {
  std::int64_t items = 0;     // runs or observers (a count < 1 plans as 1)
  std::int64_t fixed = 0;     // bytes held once
  std::int64_t per_item = 0;  // bytes for each item of a batch
  std::int64_t budget = 0;    // bytes
  std::int64_t forced = 0;  // > 0: the user's batch, clamped to the items (not to what fits: see forced_fits)
  std::int64_t preferred = 0;  // > 0: an automatic batch is at most this (progress, threads' work)
  std::int64_t cap = 0;        // > 0: any batch is at most this (32-bit grid and library sizes)
  // > 0: an automatic batch that does not cover every item is trimmed to whole panels of panel_lanes
  // columns, each item being columns_per_item columns (a short last panel costs as much as a full one).
  std::int64_t columns_per_item = 0, panel_lanes = 0;
};

struct RunBatchPlan {
  std::int64_t fits = 0;  // items_that_fit: 0 when not even one fits (the caller's error; batch is then 0)
  std::int64_t batch = 0, batches = 0;
  std::int64_t bytes = 0;   // fixed + per_item batch
  bool forced_fits = true;  // false: the forced batch is more than fits (the caller's error)
};

constexpr RunBatchPlan plan_run_batch(const RunBatchRequest& r) {
  RunBatchPlan plan;
  plan.fits = items_that_fit(r.fixed, r.per_item, r.budget);
  if (plan.fits < 1) return plan;
  const std::int64_t items = std::max<std::int64_t>(1, r.items);
  if (r.forced > 0) {
    plan.batch = std::min(r.forced, items);
    plan.forced_fits = plan.batch <= plan.fits;
  } else {
    plan.batch =
        std::clamp<std::int64_t>(r.preferred > 0 ? std::min(plan.fits, r.preferred) : plan.fits, 1, items);
    if (r.columns_per_item > 0 && r.panel_lanes > 0 && plan.batch < items) {
      const std::int64_t trimmed =
          plan.batch - (plan.batch * r.columns_per_item % r.panel_lanes) / r.columns_per_item;
      if (trimmed >= 1) plan.batch = trimmed;
    }
  }
  if (r.cap > 0 && plan.forced_fits) plan.batch = std::clamp<std::int64_t>(plan.batch, 1, r.cap);
  plan.batches = ceil_div(items, plan.batch);
  plan.bytes = r.fixed + r.per_item * plan.batch;
  return plan;
}

/// Batches of consecutive items of different sizes (the exact accountant's observers on a gossip schedule,
/// each with its own basis): each batch takes items in order while their bytes together fit `room`, and at
/// least one. counts[i] items in batch i, holding bytes[i] together; largest_bytes: the most of those. The
/// sizes are whole numbers of bytes, so every sum is exact in a double.
struct ConsecutiveBatches {
  std::vector<std::int64_t> counts;
  std::vector<double> bytes;
  double largest_bytes = 0;
};

inline ConsecutiveBatches plan_consecutive_batches(std::span<const double> bytes, double room) {
  ConsecutiveBatches plan;
  for (std::size_t first = 0; first < bytes.size();) {
    std::size_t count = 1;
    double used = bytes[first];
    while (first + count < bytes.size() && used + bytes[first + count] <= room)
      used += bytes[first + count++];
    plan.counts.push_back(static_cast<std::int64_t>(count));
    plan.bytes.push_back(used);
    plan.largest_bytes = std::max(plan.largest_bytes, used);
    first += count;
  }
  return plan;
}

}  // namespace netdp::kernels::memory_plan
