#pragma once
// Host memory the process may use (MemAvailable), for memory-aware tiling (docs/design.md principle 5).
#include <cstdint>
#include <string>

namespace netdp {

std::int64_t available_memory_bytes();

/// Refuses, before allocating, `bytes` that do not fit 4/5 of the available memory: throws InsufficientMemory
/// (exit 2, one line) "WHAT needs about X GiB, more than the Y GiB available" (docs/reliability.md).
void require_memory(double bytes, const std::string& what);

/// Bytes that reading and building a graph of n nodes from m edge lines needs at its peak: the edge list
/// (8 B per edge), CSR offsets, degrees and fill cursors (3 x 8 B per node) and adjacency (2 x 4 B per edge).
double graph_build_bytes(double n, double m);

}  // namespace netdp
