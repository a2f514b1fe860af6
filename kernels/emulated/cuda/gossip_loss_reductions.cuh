#pragma once
// The emulated device's pass-1 norms (the CUDA launcher is in kernels/cuda/gossip_loss_reductions.cuh): each
// column's kThreads strided parts (gossip_loss::column_square_part), then the same halving tree.
#include <cstdint>

#include "common/for_each.hpp"
#include "common/gossip_loss_bodies.hpp"
#include "cuda/base/launch.cuh"

namespace netdp::kernels {
namespace {

inline void column_sums_of_squares(const double* x, std::int64_t n, std::int64_t cols, double* out,
                                   cudaStream_t) {
  host_for_each(cols, [=](std::int64_t c) {
    double partial[cuda::kThreads];
    for (int tid = 0; tid < cuda::kThreads; ++tid)
      partial[tid] = gossip_loss::column_square_part(x + c * n, n, tid, cuda::kThreads);
    out[c] = gossip::tree_sum(partial, cuda::kThreads);
  });
}

}  // namespace
}  // namespace netdp::kernels
