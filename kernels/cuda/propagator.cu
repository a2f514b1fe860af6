// Device-resident W and Y = W X (see propagator.hpp). Moved out of gossip_loss_cuda.cu unchanged so that the
// random-walk backend propagates with the same code.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

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
  } else {
    cusparse_.emplace(stream_);
    csr_.emplace(n_, nnz_, offsets_.data(), columns_.data(), values_.data());
  }
  // The pageable uploads above are staged before cudaMemcpyAsync returns, but keep the order explicit.
  NETDP_CUDA_TRY(cudaStreamSynchronize(stream_));
}

void Propagator::reserve(const double* x, double* y, std::int64_t cols) {
  if (dense_) return;
  const ConstDenseDescriptor in(n_, cols, n_, x);
  const DenseDescriptor out(n_, cols, n_, y);
  ensure_workspace(in, out);
}

void Propagator::apply(const double* x, double* y, std::int64_t cols) {
  const double one = 1.0, zero = 0.0;
  if (dense_) {
    NETDP_CUDA_TRY(cublasDgemm(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n_),
                               static_cast<int>(cols), static_cast<int>(n_), &one, dense_w_.data(),
                               static_cast<int>(n_), x, static_cast<int>(n_), &zero, y,
                               static_cast<int>(n_)));
    return;
  }
  const ConstDenseDescriptor in(n_, cols, n_, x);
  const DenseDescriptor out(n_, cols, n_, y);
  ensure_workspace(in, out);
  // Non-transposed CSR SpMM: deterministic run to run (only the transposed variants are not).
  NETDP_CUDA_TRY(cusparseSpMM(cusparse_->get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                              CUSPARSE_OPERATION_NON_TRANSPOSE, &one, csr_->get(), in.get(), &zero, out.get(),
                              CUDA_R_64F, kAlgorithm, workspace_.data()));
}

void Propagator::apply_rows(const double* x, double* y, std::int64_t cols) {
  if (!dense_) throw InvalidInput("Propagator::apply_rows: node-major products need the dense copy of W");
  const double one = 1.0, zero = 0.0;
  // Row-major n x cols X is the column-major cols x n X^T; Y^T = X^T op(W_col) with op = T (W_col is W).
  NETDP_CUDA_TRY(cublasDgemm(cublas_->get(), CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(cols),
                             static_cast<int>(n_), static_cast<int>(n_), &one, x, static_cast<int>(cols),
                             dense_w_.data(), static_cast<int>(n_), &zero, y, static_cast<int>(cols)));
}

void Propagator::ensure_workspace(const ConstDenseDescriptor& in, const DenseDescriptor& out) {
  const double one = 1.0, zero = 0.0;
  std::size_t bytes = 0;
  NETDP_CUDA_TRY(cusparseSpMM_bufferSize(cusparse_->get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         CUSPARSE_OPERATION_NON_TRANSPOSE, &one, csr_->get(), in.get(), &zero,
                                         out.get(), CUDA_R_64F, kAlgorithm, &bytes));
  if (bytes <= workspace_.bytes()) return;
  // Work queued on the stream may still use the old workspace.
  NETDP_CUDA_TRY(cudaStreamSynchronize(stream_));
  workspace_ = DeviceBuffer<std::byte>(bytes);
}

}  // namespace netdp::kernels::cuda
