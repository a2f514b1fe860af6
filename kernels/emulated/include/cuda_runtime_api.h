#pragma once
// The emulated CUDA device (docs/cuda_backend.md "The emulated device"): the subset of the CUDA runtime API
// that the engines' host code calls (allocation, copies, streams, events, the current device), implemented
// on the host so that the engines of kernels/cuda/ compile with g++ and run in CI with their own source.
// Memory is host memory, streams and events are ordered trivially (every call completes before it
// returns), and there is one device. Put first on the include path of the emulated build only
// (kernels/CMakeLists.txt); the CUDA build uses the toolkit's header of the same name.
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidDevice = 101
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};

struct CUstream_st {};
struct CUevent_st {};
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;

inline constexpr unsigned cudaStreamNonBlocking = 1;
inline constexpr unsigned cudaEventDisableTiming = 2;

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace netdp::kernels::emulated {
/// The emulated device's current device per host thread (0, the only one).
inline int& current_device() {
  thread_local int device = 0;
  return device;
}
}  // namespace netdp::kernels::emulated

inline const char* cudaGetErrorName(cudaError_t status) {
  switch (status) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
  }
  return "cudaError(other)";
}
inline cudaError_t cudaGetLastError() {
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() {
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* device) {
  *device = netdp::kernels::emulated::current_device();
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  netdp::kernels::emulated::current_device() = device;
  return cudaSuccess;
}

/// A quarter of the host's available memory, at most 2 GiB: enough for the test sizes, small enough that
/// the engines' batch planning stays exercised.
inline cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::size_t host = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * page : 0;
  *free_bytes = host / 4 < (std::size_t{1} << 31) ? host / 4 : (std::size_t{1} << 31);
  *total_bytes = *free_bytes;
  return cudaSuccess;
}

inline cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
  *pointer = std::malloc(bytes);
  return *pointer != nullptr || bytes == 0 ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaMallocHost(void** pointer, std::size_t bytes) {
  return cudaMalloc(pointer, bytes);
}
inline cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* pointer) {
  return cudaFree(pointer);
}

inline cudaError_t cudaMemcpy(void* to, const void* from, std::size_t bytes, cudaMemcpyKind) {
  if (bytes > 0) std::memmove(to, from, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(to, from, bytes, kind);
}
inline cudaError_t cudaMemsetAsync(void* to, int value, std::size_t bytes, cudaStream_t = nullptr) {
  if (bytes > 0) std::memset(to, value, bytes);
  return cudaSuccess;
}

// Streams and events are empty handles: work is done when the call that queues it returns.
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
  *stream = new CUstream_st;
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = new CUevent_st;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = nullptr) {
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) {
  return cudaSuccess;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) {
  return cudaSuccess;
}
