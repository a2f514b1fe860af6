#pragma once
// Host memory the process may use (MemAvailable), for memory-aware tiling (docs/design.md principle 5).
#include <cstdint>

namespace netdp {

std::int64_t available_memory_bytes();

}  // namespace netdp
