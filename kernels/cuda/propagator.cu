// W's dense copy on the device and the node-major DGEMM (see propagator.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <span>
#include <vector>

#include "cuda/base/cuda_check.hpp"
#include "cuda/base/propagation_launch.cuh"
#include "cuda/propagator.hpp"

namespace netdp::kernels::cuda {

Propagator::Propagator(CsrView w, cudaStream_t stream)
    : n_(w.n),
      stream_(stream),
      offsets_(static_cast<std::size_t>(n_) + 1),
      columns_(static_cast<std::size_t>(w.nnz())),
      values_(static_cast<std::size_t>(w.nnz())),
      dense_w_(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_)) {
  // 32-bit offsets for csr_to_dense_async (checked by the caller: nnz < 2^31).
  std::vector<std::int32_t> offsets32(w.offsets.begin(), w.offsets.end());
  offsets_.upload(std::span<const std::int32_t>(offsets32), stream_);
  columns_.upload(std::span<const std::int32_t>(w.columns), stream_);
  values_.upload(std::span<const double>(w.values), stream_);
  csr_to_dense_async(offsets_.data(), columns_.data(), values_.data(), n_, dense_w_.data(), stream_);
  cublas_.emplace(stream_);
  // The pageable uploads above are staged before cudaMemcpyAsync returns, but keep the order explicit.
  NETDP_CUDA_TRY(cudaStreamSynchronize(stream_));
}

void Propagator::apply_rows(const double* x, double* y, std::int64_t cols) const {
  const double one = 1.0, zero = 0.0;
  // Row-major n x cols X is the column-major cols x n X^T; Y^T = X^T op(W_col) with op = T (W_col is W).
  NETDP_CUDA_TRY(cublasDgemm(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(cols),
                             static_cast<int>(n_), static_cast<int>(n_), &one, x, static_cast<int>(cols),
                             dense_w_.data(), static_cast<int>(n_), &zero, y, static_cast<int>(cols)));
}

}  // namespace netdp::kernels::cuda
