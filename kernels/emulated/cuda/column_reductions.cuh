#pragma once
// The emulated device's block reductions (the CUDA kernels are in kernels/cuda/column_reductions.cuh): each
// column's kThreads strided parts, then the same halving tree (gossip::tree_sum runs gossip::tree_level level
// by level), so the bits are the device's.
#include <cstdint>

#include "common/for_each.hpp"
#include "common/gossip_sim_bodies.hpp"
#include "cuda/base/launch.cuh"

namespace netdp::kernels {
namespace {

/// The tree sum of one column's kThreads parts part(tid).
template <class Part>
double column_tree_sum(const Part& part) {
  double partial[cuda::kThreads];
  for (int tid = 0; tid < cuda::kThreads; ++tid) partial[tid] = part(tid);
  return gossip::tree_sum(partial, cuda::kThreads);
}

inline void column_averages(const double* x, std::int64_t n, std::int64_t cols, double* average,
                            cudaStream_t) {
  host_for_each(cols, [=](std::int64_t c) {
    const double sum =
        column_tree_sum([&](int tid) { return gossip::column_sum_part(x + c * n, n, tid, cuda::kThreads); });
    average[c] = sum / static_cast<double>(n);
  });
}

inline void column_errors(const double* x, std::int64_t n, int dim, std::int64_t cols, const double* xbar,
                          const double* noisy_average, double* col_true, double* col_noisy, cudaStream_t) {
  host_for_each(cols, [=](std::int64_t c) {
    double partial_true[cuda::kThreads], partial_noisy[cuda::kThreads];
    for (int tid = 0; tid < cuda::kThreads; ++tid)
      gossip::column_error_parts(x + c * n, n, xbar[c % dim], noisy_average[c], tid, cuda::kThreads,
                                 partial_true[tid], partial_noisy[tid]);
    col_true[c] = gossip::tree_sum(partial_true, cuda::kThreads);
    col_noisy[c] = gossip::tree_sum(partial_noisy, cuda::kThreads);
  });
}

}  // namespace
}  // namespace netdp::kernels
