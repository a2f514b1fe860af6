#pragma once
// NETDP_CUDA_TRY(call) for the four libraries: CUDA runtime (cuda/base/runtime_check.hpp), cuSPARSE, cuBLAS
// and cuSOLVER; the status type picks the overload. Vendor-library calls are GPU-only (docs/cuda_backend.md).
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {

inline void check(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw_cuda_failure("cuSPARSE", cusparseGetErrorName(status), call, file, line);
}

inline void check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_cuda_failure("cuBLAS", cublasGetStatusName(status), call, file, line);
}

/// cuSOLVER has no status-name function.
inline const char* cusolver_status_name(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_INVALID_WORKSPACE:
      return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default:
      return "CUSOLVER_STATUS_(other)";
  }
}

inline void check(cusolverStatus_t status, const char* call, const char* file, int line) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw_cuda_failure("cuSOLVER", cusolver_status_name(status), call, file, line);
}

}  // namespace netdp::kernels::cuda
