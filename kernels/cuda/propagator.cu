// Device-resident W and Y = W X (see propagator.hpp): the walk accountant's sparse product by the CPU
// twins' CSR order (propagation::CsrColumnsProductBody), the dense path by cuBLAS.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <span>
#include <vector>

#include "common/for_each.hpp"
#include "common/propagation_bodies.hpp"
#include "cuda/base/cuda_check.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/propagation_launch.cuh"
#include "cuda/propagator.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels::cuda {

Propagator::Propagator(CsrView w, bool dense, cudaStream_t stream)
    : n_(w.n),
      nnz_(w.nnz()),
      dense_(dense),
      stream_(stream),
      offsets_(static_cast<std::size_t>(n_) + 1),
      columns_(static_cast<std::size_t>(nnz_)),
      values_(static_cast<std::size_t>(nnz_)) {
  // cuSPARSE gets 32-bit offsets (checked by the caller: nnz < 2^31).
  std::vector<std::int32_t> offsets32(w.offsets.begin(), w.offsets.end());
  offsets_.upload(std::span<const std::int32_t>(offsets32), stream_);
  columns_.upload(std::span<const std::int32_t>(w.columns), stream_);
  values_.upload(std::span<const double>(w.values), stream_);
  if (dense_) {
    dense_w_ = DeviceBuffer<double>(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_));
    csr_to_dense_async(offsets_.data(), columns_.data(), values_.data(), n_, dense_w_.data(), stream_);
    cublas_.emplace(stream_);
  }
  // The pageable uploads above are staged before cudaMemcpyAsync returns, but keep the order explicit.
  NETDP_CUDA_TRY(cudaStreamSynchronize(stream_));
}

void Propagator::reserve(const double*, double*, std::int64_t) {}  // the CSR body needs no workspace

void Propagator::apply(const double* x, double* y, std::int64_t cols) {
  if (dense_) {
    const double one = 1.0, zero = 0.0;
    NETDP_CUDA_TRY(cublasDgemm(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n_),
                               static_cast<int>(cols), static_cast<int>(n_), &one, dense_w_.data(),
                               static_cast<int>(n_), x, static_cast<int>(n_), &zero, y,
                               static_cast<int>(n_)));
    return;
  }
  // One thread per entry, W's row summed in CSR order from 0 with products and sums rounded on their own:
  // the CPU twins' bits (propagation::CsrColumnsProductBody; docs/cuda_backend.md "Walk-loss twins"), where
  // cuSPARSE's SpMM sums in an order of its own.
  for_each_2d(n_, cols,
              propagation::CsrColumnsProductBody<std::int32_t, std::int32_t>{offsets_.data(), columns_.data(),
                                                                             values_.data(), x, n_, y},
              stream_);
}

void Propagator::apply_rows(const double* x, double* y, std::int64_t cols) {
  if (!dense_) throw InvalidInput("Propagator::apply_rows: node-major products need the dense copy of W");
  const double one = 1.0, zero = 0.0;
  // Row-major n x cols X is the column-major cols x n X^T; Y^T = X^T op(W_col) with op = T (W_col is W).
  NETDP_CUDA_TRY(cublasDgemm(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(cols),
                             static_cast<int>(n_), static_cast<int>(n_), &one, x, static_cast<int>(cols),
                             dense_w_.data(), static_cast<int>(n_), &zero, y, static_cast<int>(cols)));
}

}  // namespace netdp::kernels::cuda
