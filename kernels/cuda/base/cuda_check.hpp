#pragma once
// NETDP_CUDA_TRY(call): throws std::runtime_error naming the file, line, call and the CUDA / cuSPARSE /
// cuBLAS error name when a runtime or library call fails (DESIGN "Examples to follow": cuCollections'
// CUDA_TRY). One macro for the three libraries: the status type picks the overload.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
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

}  // namespace netdp::kernels::cuda

#define NETDP_CUDA_TRY(call) ::netdp::kernels::cuda::check((call), #call, __FILE__, __LINE__)

/// After a kernel launch: configuration errors are reported by cudaGetLastError, not by the launch itself.
#define NETDP_CUDA_CHECK_LAUNCH() NETDP_CUDA_TRY(cudaGetLastError())
