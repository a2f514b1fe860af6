#pragma once
// The emulated device's key-value sort (the CUDA one, CUB's radix sort, is kernels/cuda/base/radix_sort.cuh):
// the same result, a stable sort by key bits [0, end_bit), written to the alternate buffers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/base/sort_buffers.hpp"

namespace netdp::kernels::cuda {
namespace {

inline std::size_t sort_pairs_temp_bytes(std::int64_t, int, cudaStream_t) {
  return 0;
}

inline void sort_pairs(void*, std::size_t, SortBuffers& buffers, std::int64_t records, int end_bit,
                       cudaStream_t) {
  if (records <= 0) return;
  const std::uint64_t mask = end_bit >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << end_bit) - 1;
  const std::uint64_t* keys = buffers.keys[buffers.current];
  const std::uint64_t* values = buffers.values[buffers.current];
  std::vector<std::int64_t> order(static_cast<std::size_t>(records));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return (keys[a] & mask) < (keys[b] & mask); });
  std::uint64_t* sorted_keys = buffers.keys[1 - buffers.current];
  std::uint64_t* sorted_values = buffers.values[1 - buffers.current];
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted_keys[i] = keys[order[i]];
    sorted_values[i] = values[order[i]];
  }
  buffers.current = 1 - buffers.current;
}

}  // namespace
}  // namespace netdp::kernels::cuda
