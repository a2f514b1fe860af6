#pragma once
// The ground (docs/design.md "The ground"): the plain types that the kernels' bodies, both backends and the
// library share. Nothing here knows a Graph, a matrix class or an error type, so kernels/common, kernels/cpu
// and kernels/cuda can include it without reaching into the library.
#include <cstdint>

namespace netdp {

using node_t = std::int32_t;    // node ids are 0-based int32
using offset_t = std::int64_t;  // CSR offsets may exceed 2^31 on large graphs

}  // namespace netdp
