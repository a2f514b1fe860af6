#pragma once
// The emulated device's warp-per-row launch (the CUDA one is kernels/cuda/gossip_spmm.cuh): the same row body
// for every (row, c) of the node-major block, with host_for_each_row, and the row sums with host_row_sums
// (common/gossip_spmm_bodies.hpp), the same lanes and tree as the device's shuffles, so the bits are the
// device's.
#include <cstdint>

#include "common/gossip_spmm_bodies.hpp"
#include "cuda/base/launch.cuh"

namespace netdp::kernels::cuda {
namespace {

template <class Body>
void for_each_row(std::int64_t rows, std::int64_t cols, const Body& body, cudaStream_t) {
  if (rows <= 0 || cols <= 0) return;
  host_for_each_row(rows, cols, body);
}

template <class Body>
void row_sums(std::int64_t rows, std::int64_t cols, const Body& body, cudaStream_t) {
  if (rows <= 0 || cols <= 0) return;
  host_row_sums(rows, cols, body);
}

}  // namespace
}  // namespace netdp::kernels::cuda
