#pragma once
// A stable sort of 64-bit key-value pairs by key bits [0, end_bit), ping-ponging between two buffers of each
// (CUB's DoubleBuffer overload: the 32 bytes per record are ours; the temporary storage holds only CUB's
// per-block counters). The result is in the `current` buffers. The emulated device's twin
// (kernels/emulated/cuda/base/radix_sort.cuh) sorts on the host with the same stability.
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>

#include "cuda/base/runtime_check.hpp"
#include "cuda/base/sort_buffers.hpp"

namespace netdp::kernels::cuda {
namespace {

/// Bytes of temporary storage for sorting `records` pairs.
inline std::size_t sort_pairs_temp_bytes(std::int64_t records, int end_bit, cudaStream_t stream) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr), values(nullptr, nullptr);
  NETDP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, records, 0, end_bit, stream));
  return bytes;
}

/// Sorts the `records` current pairs of `buffers` by key bits [0, end_bit), stably; updates buffers.current.
inline void sort_pairs(void* temp, std::size_t temp_bytes, SortBuffers& buffers, std::int64_t records,
                       int end_bit, cudaStream_t stream) {
  if (records <= 0) return;
  cub::DoubleBuffer<std::uint64_t> keys(buffers.keys[buffers.current], buffers.keys[1 - buffers.current]),
      values(buffers.values[buffers.current], buffers.values[1 - buffers.current]);
  NETDP_CUDA_TRY(
      cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, values, records, 0, end_bit, stream));
  if (keys.Current() != buffers.keys[buffers.current]) buffers.current = 1 - buffers.current;
}

}  // namespace
}  // namespace netdp::kernels::cuda
