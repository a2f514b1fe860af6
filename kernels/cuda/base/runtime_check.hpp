#pragma once
// NETDP_CUDA_TRY(call) for CUDA runtime calls: throws std::runtime_error naming the file, line, call and the
// error name when the call fails (docs/design.md principle 6). The overloads for the vendor libraries
// (cuSPARSE, cuBLAS, cuSOLVER) are in cuda/base/cuda_check.hpp; the engines that call no vendor library
// include only this header, so they also build for the emulated device (docs/cuda_backend.md).
#include <cuda_runtime_api.h>

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
