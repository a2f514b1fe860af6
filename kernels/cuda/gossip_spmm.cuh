#pragma once
// The warp-per-row launch of the node-major engines (every gossip engine and accountant, the walk-loss twin)
// (docs/cuda_backend.md "Node-major gossip engines"): a row body (common/gossip_spmm_bodies.hpp, body(row, c)
// over a node-major n x cols block) run by a group of spmm::lanes_per_row(cols) lanes of one warp per row,
// lane l taking the columns l, l + lanes,
// ... of its row. The lanes of a group read the same entries of W's row (one broadcast load each) and
// consecutive entries of X's rows (coalesced), and each lane sums its column in W's CSR order: the CPU's
// bits. The emulated device's twin (kernels/emulated/cuda/gossip_spmm.cuh) runs the same body with
// host_for_each_row. Internal linkage, like launch.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/gossip_spmm_bodies.hpp"
#include "cuda/base/launch.cuh"

namespace netdp::kernels::cuda {
namespace {

/// Column slabs of `lanes` columns (grid y, striding on past 65,535) times groups of `lanes` lanes per row
/// (grid x, striding over the rows): lane l of the group of row `row` in slab k computes column k lanes + l.
/// Blocks are issued x first, so one slab of every row runs before the next slab: the slab of X (n lanes
/// doubles) is what the gathers keep in L2 (docs/cuda_backend.md "Node-major gossip engines"). A group
/// (lanes a power of two <= 32, kThreads a multiple of 32) never straddles two warps.
template <class Body>
__global__ void device_for_each_row(std::int64_t rows, std::int64_t cols, int lanes, const Body body) {
  const std::int64_t thread = global_thread();
  const std::int64_t lane = thread & (lanes - 1), groups = grid_threads() / lanes;
  for (std::int64_t slab = first_column(); slab * lanes < cols; slab += column_stride()) {
    const std::int64_t c = slab * lanes + lane;
    if (c >= cols) continue;
    for (std::int64_t row = thread / lanes; row < rows; row += groups) body(row, c);
  }
}

/// Grid for rows x cols: x = row groups of kThreads / lanes rows per block (at most 2^16 blocks, the loops
/// stride on), y = column slabs (at most 65,535).
inline dim3 row_grid(std::int64_t rows, std::int64_t cols, int lanes) {
  const std::int64_t rows_per_block = kThreads / lanes;
  const std::int64_t x =
      std::clamp<std::int64_t>((rows + rows_per_block - 1) / rows_per_block, 1, std::int64_t{1} << 16);
  const std::int64_t y = std::clamp<std::int64_t>((cols + lanes - 1) / lanes, 1, 65535);
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

/// body(row, c) over a node-major rows x cols block, queued on `stream`.
template <class Body>
void for_each_row(std::int64_t rows, std::int64_t cols, const Body& body, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const int lanes = spmm::lanes_per_row(cols);
  device_for_each_row<<<row_grid(rows, cols, lanes), kThreads, 0, stream>>>(rows, cols, lanes, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

/// One group per row over all its columns: lane l sums body.part(row, c) for c = l, l + lanes, ... in that
/// order, the group's sums are added by the fixed halving tree in shuffles (the order of gossip::tree_sum
/// over the lanes: host_row_sums), and lane 0 calls body.done(row, total).
template <class Body>
__global__ void device_row_sums(std::int64_t rows, std::int64_t cols, int lanes, const Body body) {
  const std::int64_t thread = global_thread();
  const int lane = static_cast<int>(thread & (lanes - 1));
  // Rows are handed out per warp (32 / lanes rows each), so every lane of a warp runs the same iterations
  // and the full-warp shuffles below are safe.
  const std::int64_t per_warp = 32 / lanes, warps = grid_threads() / 32;
  const std::int64_t group = (thread & 31) / lanes;
  for (std::int64_t base = (thread / 32) * per_warp; base < rows; base += warps * per_warp) {
    const std::int64_t row = base + group;
    double sum = 0.0;
    if (row < rows)
      for (std::int64_t c = lane; c < cols; c += lanes) sum = rn_add(sum, body.part(row, c));
    for (int stride = lanes / 2; stride > 0; stride /= 2)
      sum = rn_add(sum, __shfl_down_sync(0xffffffffu, sum, stride, lanes));
    if (row < rows && lane == 0) body.done(row, sum);
  }
}

/// body.done(row, sum_c body.part(row, c)) for every row of a node-major rows x cols block (a tile of a few
/// warps' worth of columns: one group reads the whole row), queued on `stream`.
template <class Body>
void row_sums(std::int64_t rows, std::int64_t cols, const Body& body, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const int lanes = spmm::lanes_per_row(cols);
  const dim3 grid(row_grid(rows, 1, lanes).x);
  device_row_sums<<<grid, kThreads, 0, stream>>>(rows, cols, lanes, body);
  NETDP_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace netdp::kernels::cuda
