#pragma once
// The launcher of the dense-copy body (common/propagation_bodies.hpp) written once for both CUDA backends:
// "cuda/base/launch.cuh" is the real launcher under nvcc and the emulated device's host twin in the host
// build (kernels/emulated comes first on that build's include path), so this runs the same body on either.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/propagation_bodies.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {
namespace {

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
