#pragma once
// Parameter checks shared by the pairwise-loss accountants (gossip-loss, walk-loss).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/graph.hpp"

namespace netdp::accounting_checks {

[[noreturn]] inline void bad(const char* parameter, const std::string& what) {
  throw InvalidParameter(parameter, what);
}

/// The Renyi order alpha > 1 and the noise std sigma > 0 of the Gaussian mechanism, both finite.
inline void check_order_and_noise(double alpha, double sigma) {
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    bad("alpha", "alpha must be a finite Renyi order > 1, got " + format_double(alpha));
  if (!(sigma > 0.0) || !std::isfinite(sigma)) bad("sigma", "sigma must be > 0, got " + format_double(sigma));
}

/// The rows asked for (one source u in [0, n), or all), the tile width and the memory limit (0 = automatic).
inline void check_rows(const std::optional<node_t>& source, node_t n, std::int64_t tile_sources,
                       std::int64_t memory_limit) {
  if (source && (*source < 0 || *source >= n))
    bad("source",
        "source " + std::to_string(*source) + " is not a node id in [0, " + std::to_string(n) + ")");
  if (tile_sources < 0) bad("tile-sources", "tile-sources must be >= 0, got " + std::to_string(tile_sources));
  if (memory_limit < 0) bad("memory-limit", "memory-limit must be >= 0");
}

}  // namespace netdp::accounting_checks
