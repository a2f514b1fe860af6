#pragma once
// Host-side row tiles of a loss matrix (docs/design.md principle 5): plan the tile from the memory at hand, then fill
// the tiles in order and hand each to the sink. Shared by the CPU paths of every pairwise-loss model.
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

/// Calls fill(start, rows, out) for consecutive tiles of [first, first + count), out holding rows x n values,
/// then passes each tile to the sink.
template <typename Fill>
void stream_row_tiles(node_t first, node_t count, std::int64_t tile, node_t n, LossRowSink& sink,
                      Fill&& fill) {
  std::vector<double> buffer(static_cast<std::size_t>(tile) * static_cast<std::size_t>(n));
  for (std::int64_t start = first; start < std::int64_t{first} + count; start += tile) {
    const node_t rows =
        static_cast<node_t>(std::min<std::int64_t>(tile, std::int64_t{first} + count - start));
    std::span<double> out(buffer.data(), static_cast<std::size_t>(rows) * static_cast<std::size_t>(n));
    fill(static_cast<node_t>(start), rows, out);
    sink.consume(static_cast<node_t>(start), rows, out);
  }
}

}  // namespace netdp
