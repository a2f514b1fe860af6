#pragma once
// The emulated device's launchers (the CUDA ones are in kernels/cuda/base/launch.cuh): the same
// single-source bodies, run on the host threads by host_for_each, with the launch constants the engines
// plan with. Work queued "on a stream" is done when the call returns.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/for_each.hpp"
#include "common/propagation_bodies.hpp"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {
namespace {

/// Threads per block of every kernel, as on the device (the reductions' trees have this width).
constexpr int kThreads = 256;

/// body(i) for i in [0, count).
template <class Body>
void for_each(std::int64_t count, const Body& body, cudaStream_t) {
  if (count > 0) host_for_each(count, body);
}

/// body(r, j) over a column-major rows x cols block.
template <class Body>
void for_each_2d(std::int64_t rows, std::int64_t cols, const Body& body, cudaStream_t) {
  host_for_each(cols, [&](std::int64_t j) {
    for (std::int64_t r = 0; r < rows; ++r) body(r, j);
  });
}

/// X[:, j] = e_{first + j} for a column-major n x cols block (propagation::IdentityColumnsBody).
inline void set_identity_columns(double* x, std::int64_t n, std::int64_t cols, std::int64_t first,
                                 cudaStream_t stream) {
  for_each_2d(n, cols, propagation::IdentityColumnsBody{x, n, first}, stream);
}

/// dense (n x n, column-major) = the CSR matrix (offsets, columns, values): zeroes `dense`, then one thread
/// per row scatters the stored entries (propagation::CsrToDenseBody: the rows touch disjoint entries).
inline void csr_to_dense_async(const std::int32_t* offsets, const std::int32_t* columns, const double* values,
                               std::int64_t n, double* dense, cudaStream_t stream) {
  NETDP_CUDA_TRY(cudaMemsetAsync(
      dense, 0, static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * sizeof(double), stream));
  for_each(n, propagation::CsrToDenseBody<std::int32_t, std::int32_t>{offsets, columns, values, n, dense},
           stream);
}

}  // namespace
}  // namespace netdp::kernels::cuda
