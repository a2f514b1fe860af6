#include "accounting/row_tiles.hpp"

#include <omp.h>

#include <string>

#include "common/memory_plan.hpp"
#include "core/memory_info.hpp"
#include "netdp/core/error.hpp"

namespace netdp {

namespace {
namespace memory_plan = kernels::memory_plan;

std::string gib(std::int64_t bytes) {
  return std::to_string(double(bytes) / double(1 << 30)).substr(0, 6) + " GiB";
}
}  // namespace

RowTilePlan plan_row_tiles(const char* model, const char* what, std::int64_t n, std::int64_t count,
                           std::int64_t fixed, std::int64_t per_row, std::int64_t tile_sources,
                           std::int64_t memory_limit) {
  const std::int64_t budget = memory_plan::host_budget(available_memory_bytes(), memory_limit);
  const memory_plan::RowTilePlan plan =
      memory_plan::plan_row_tile(n, count, fixed, per_row, budget, tile_sources, omp_get_max_threads());
  if (!plan.fits)
    throw InsufficientMemory(std::string(model) + ": n = " + std::to_string(n) + " needs " +
                             gib(fixed + per_row) + " (" + what + " and one row of sources), but only " +
                             gib(budget) + " is available");
  return {plan.tile, plan.tiles, plan.bytes};
}

}  // namespace netdp
