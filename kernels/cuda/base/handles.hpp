#pragma once
// RAII owners of cuSPARSE / cuBLAS handles and cuSPARSE generic-API descriptors (GPU-only vendor libraries,
// docs/cuda_backend.md), next to the device guard, streams and events of cuda/base/stream.hpp. Destructors
// ignore errors (they must not throw).
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
    NETDP_CUDA_TRY(cusparseCreate(&handle_));
    const cusparseStatus_t status = cusparseSetStream(handle_, stream);
    if (status != CUSPARSE_STATUS_SUCCESS) (void)cusparseDestroy(handle_);
    NETDP_CUDA_TRY(status);
  }
  ~CusparseHandle() { (void)cusparseDestroy(handle_); }
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;

  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

/// cuBLAS handle bound to `stream` (host pointer mode: alpha and beta live on the host).
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    NETDP_CUDA_TRY(cublasCreate(&handle_));
    const cublasStatus_t status = cublasSetStream(handle_, stream);
    if (status != CUBLAS_STATUS_SUCCESS) (void)cublasDestroy(handle_);
    NETDP_CUDA_TRY(status);
  }
  ~CublasHandle() { (void)cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// Square n x n CSR matrix, 32-bit offsets and column indices, 0-based, float64 values (device pointers).
class CsrDescriptor {
 public:
  CsrDescriptor(std::int64_t n, std::int64_t nnz, std::int32_t* offsets, std::int32_t* columns,
                double* values) {
    NETDP_CUDA_TRY(cusparseCreateCsr(&descr_, n, n, nnz, offsets, columns, values, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  }
  ~CsrDescriptor() { (void)cusparseDestroySpMat(descr_); }
  CsrDescriptor(const CsrDescriptor&) = delete;
  CsrDescriptor& operator=(const CsrDescriptor&) = delete;

  cusparseSpMatDescr_t get() const { return descr_; }

 private:
  cusparseSpMatDescr_t descr_ = nullptr;
};

/// Column-major rows x cols float64 dense matrix with leading dimension ld (device pointer).
class DenseDescriptor {
 public:
  DenseDescriptor(std::int64_t rows, std::int64_t cols, std::int64_t ld, double* values) {
    NETDP_CUDA_TRY(cusparseCreateDnMat(&descr_, rows, cols, ld, values, CUDA_R_64F, CUSPARSE_ORDER_COL));
  }
  ~DenseDescriptor() { (void)cusparseDestroyDnMat(descr_); }
  DenseDescriptor(const DenseDescriptor&) = delete;
  DenseDescriptor& operator=(const DenseDescriptor&) = delete;

  cusparseDnMatDescr_t get() const { return descr_; }

 private:
  cusparseDnMatDescr_t descr_ = nullptr;
};

/// Read-only variant of DenseDescriptor, for SpMM inputs.
class ConstDenseDescriptor {
 public:
  ConstDenseDescriptor(std::int64_t rows, std::int64_t cols, std::int64_t ld, const double* values) {
    NETDP_CUDA_TRY(cusparseCreateConstDnMat(&descr_, rows, cols, ld, values, CUDA_R_64F, CUSPARSE_ORDER_COL));
  }
  ~ConstDenseDescriptor() { (void)cusparseDestroyDnMat(descr_); }
  ConstDenseDescriptor(const ConstDenseDescriptor&) = delete;
  ConstDenseDescriptor& operator=(const ConstDenseDescriptor&) = delete;

  cusparseConstDnMatDescr_t get() const { return descr_; }

 private:
  cusparseConstDnMatDescr_t descr_ = nullptr;
};

}  // namespace netdp::kernels::cuda
