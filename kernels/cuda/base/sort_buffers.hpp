#pragma once
// The two key and two value buffers of a stable key-value sort that ping-pongs between them
// (cuda/base/radix_sort.cuh on the GPU, its twin on the emulated device); `current` (0 or 1) names the pair
// holding the data, the other pair is free after the sort.
#include <cstdint>

namespace netdp::kernels::cuda {

struct SortBuffers {
  std::uint64_t* keys[2];
  std::uint64_t* values[2];
  int current = 0;
  std::uint64_t* current_keys() const { return keys[current]; }
  std::uint64_t* current_values() const { return values[current]; }
  std::uint64_t* alternate_values() const { return values[1 - current]; }
};

}  // namespace netdp::kernels::cuda
