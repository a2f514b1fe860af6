#pragma once
// NETDP_CUDA_TRY(call): throws std::runtime_error naming the file, line, call and the CUDA / cuSPARSE /
// cuBLAS / cuSOLVER error name when a runtime or library call fails (docs/design.md principle 6). One macro
// for the four libraries: the status type picks the overload.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>

namespace netdp::kernels::cuda {

[[noreturn]] inline void throw_cuda_failure(const char* library, const char* name, const char* call,
                                            const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + library + " call " + call +
                           " failed: " + name);
}

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // clear the (non-sticky) error so later calls start clean
  throw_cuda_failure("CUDA", cudaGetErrorName(status), call, file, line);
}

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

#define NETDP_CUDA_TRY(call) ::netdp::kernels::cuda::check((call), #call, __FILE__, __LINE__)

/// After a kernel launch: configuration errors are reported by cudaGetLastError, not by the launch itself.
/// Faults during the kernel's execution (an illegal address, a trap) only show at a later synchronising call,
/// named after that call. Builds with -DNETDP_CUDA_SYNC_LAUNCHES=ON (cmake/Cuda.cmake; scripts/gpu_check.sh's
/// sanitizer passes) also synchronise the device after every launch and check the result, so that such a
/// fault is reported at the launch that caused it (slow: for debugging and the sanitizers only).
#if defined(NETDP_CUDA_SYNC_LAUNCHES) && NETDP_CUDA_SYNC_LAUNCHES
#define NETDP_CUDA_CHECK_LAUNCH()            \
  do {                                       \
    NETDP_CUDA_TRY(cudaGetLastError());      \
    NETDP_CUDA_TRY(cudaDeviceSynchronize()); \
  } while (false)
#else
#define NETDP_CUDA_CHECK_LAUNCH() NETDP_CUDA_TRY(cudaGetLastError())
#endif
