#pragma once
// Host-side row tiles of a loss matrix (docs/design.md principle 5): plan the tile from the memory at hand,
// then fill the tiles in order and hand each to the sink. Shared by the CPU paths of every pairwise-loss
// model; the CUDA paths walk the same tiles with for_each_row_tile and hand each to their engine.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "netdp/core/loss_rows.hpp"

namespace netdp {

struct RowTilePlan {
  std::int64_t tile = 0, tiles = 0, memory_estimate = 0;
};

/// `fixed` bytes plus `per_row` bytes for each source row in a tile. tile_sources > 0 forces the tile;
/// otherwise the largest that fits a quarter of what is left (the sink needs room too), about 64 MiB of rows
/// by default so that long runs report progress. InsufficientMemory (naming `model` and `what` takes the
/// fixed part) when not even one row fits.
RowTilePlan plan_row_tiles(const char* model, const char* what, std::int64_t n, std::int64_t count,
                           std::int64_t fixed, std::int64_t per_row, std::int64_t tile_sources,
                           std::int64_t memory_limit);

/// Calls run(start, rows) for consecutive tiles of [first, first + count), in order, rows <= tile.
template <typename Run>
void for_each_row_tile(std::int64_t first, std::int64_t count, std::int64_t tile, Run&& run) {
  for (std::int64_t start = first; start < first + count; start += tile)
    run(static_cast<node_t>(start), static_cast<node_t>(std::min(tile, first + count - start)));
}

/// Calls fill(start, rows, out) for consecutive tiles of [first, first + count), out holding rows x n values,
/// then passes each tile to the sink.
template <typename Fill>
void stream_row_tiles(node_t first, node_t count, std::int64_t tile, node_t n, LossRowSink& sink,
                      Fill&& fill) {
  std::vector<double> buffer(static_cast<std::size_t>(tile) * static_cast<std::size_t>(n));
  for_each_row_tile(first, count, tile, [&](node_t start, node_t rows) {
    std::span<double> out(buffer.data(), static_cast<std::size_t>(rows) * static_cast<std::size_t>(n));
    fill(start, rows, out);
    sink.consume(start, rows, out);
  });
}

}  // namespace netdp
