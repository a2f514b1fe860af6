#pragma once
// RAII owners of cuSPARSE / cuBLAS handles and cuSPARSE generic-API descriptors (GPU-only vendor libraries,
// docs/cuda_backend.md), each an Owned handle of cuda/base/stream.hpp (next to the device guard, streams and
// events): a set-up call that fails after the create call still releases the handle. Destructors ignore
// errors (they must not throw).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdint>

#include "cuda/base/cuda_check.hpp"
#include "cuda/base/stream.hpp"

namespace netdp::kernels::cuda {

/// cuSPARSE handle bound to `stream`.
class CusparseHandle {
 public:
  explicit CusparseHandle(cudaStream_t stream) {
    NETDP_CUDA_TRY(cusparseCreate(handle_.put()));
    NETDP_CUDA_TRY(cusparseSetStream(handle_.get(), stream));
  }
  cusparseHandle_t get() const { return handle_.get(); }

 private:
  Owned<cusparseHandle_t, cusparseDestroy> handle_;
};

/// cuBLAS handle bound to `stream` (host pointer mode: alpha and beta live on the host).
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    NETDP_CUDA_TRY(cublasCreate(handle_.put()));
    NETDP_CUDA_TRY(cublasSetStream(handle_.get(), stream));
  }
  cublasHandle_t get() const { return handle_.get(); }

 private:
  Owned<cublasHandle_t, cublasDestroy> handle_;
};

/// Square n x n CSR matrix, 32-bit offsets and column indices, 0-based, float64 values (device pointers).
class CsrDescriptor {
 public:
  CsrDescriptor(std::int64_t n, std::int64_t nnz, std::int32_t* offsets, std::int32_t* columns,
                double* values) {
    NETDP_CUDA_TRY(cusparseCreateCsr(descr_.put(), n, n, nnz, offsets, columns, values, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  }
  cusparseSpMatDescr_t get() const { return descr_.get(); }

 private:
  Owned<cusparseSpMatDescr_t, cusparseDestroySpMat> descr_;
};

/// Column-major rows x cols float64 dense matrix with leading dimension ld (device pointer).
class DenseDescriptor {
 public:
  DenseDescriptor(std::int64_t rows, std::int64_t cols, std::int64_t ld, double* values) {
    NETDP_CUDA_TRY(cusparseCreateDnMat(descr_.put(), rows, cols, ld, values, CUDA_R_64F, CUSPARSE_ORDER_COL));
  }
  cusparseDnMatDescr_t get() const { return descr_.get(); }

 private:
  Owned<cusparseDnMatDescr_t, cusparseDestroyDnMat> descr_;
};

/// Read-only variant of DenseDescriptor, for SpMM inputs.
class ConstDenseDescriptor {
 public:
  ConstDenseDescriptor(std::int64_t rows, std::int64_t cols, std::int64_t ld, const double* values) {
    NETDP_CUDA_TRY(
        cusparseCreateConstDnMat(descr_.put(), rows, cols, ld, values, CUDA_R_64F, CUSPARSE_ORDER_COL));
  }
  cusparseConstDnMatDescr_t get() const { return descr_.get(); }

 private:
  Owned<cusparseConstDnMatDescr_t, cusparseDestroyDnMat> descr_;
};

}  // namespace netdp::kernels::cuda
