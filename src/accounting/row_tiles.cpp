#include "accounting/row_tiles.hpp"

#include <omp.h>

#include <string>

#include "core/memory_info.hpp"
#include "netdp/core/error.hpp"

namespace netdp {

namespace {
std::string gib(std::int64_t bytes) {
  return std::to_string(double(bytes) / double(1 << 30)).substr(0, 6) + " GiB";
}
}  // namespace

RowTilePlan plan_row_tiles(const char* model, const char* what, std::int64_t n, std::int64_t count,
                           std::int64_t fixed, std::int64_t per_row, std::int64_t tile_sources,
                           std::int64_t memory_limit) {
  const std::int64_t budget = memory_limit > 0 ? memory_limit : available_memory_bytes() * 4 / 5;
  if (fixed + per_row > budget)
    throw InsufficientMemory(std::string(model) + ": n = " + std::to_string(n) + " needs " +
                             gib(fixed + per_row) + " (" + what + " and one row of sources), but only " +
                             gib(budget) + " is available");
  std::int64_t tile = tile_sources;
  if (tile <= 0) {
    const std::int64_t fits = std::max<std::int64_t>(1, (budget - fixed) / 4 / per_row);
    const std::int64_t preferred = std::max<std::int64_t>((64 << 20) / (n * 8), 32 * omp_get_max_threads());
    tile = std::min(fits, preferred);
  }
  tile = std::max<std::int64_t>(1, std::min(tile, count));
  return {tile, (count + tile - 1) / tile, fixed + tile * per_row};
}

}  // namespace netdp
