// Which CUDA devices answer (docs/design.md "Conventions": --device auto uses CUDA when a device answers).
// Never throws: a machine without a driver or without a GPU simply has 0 devices.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/base/cuda_check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"

#include "cuda_module.hpp"
#include "device_kernels.hpp"

namespace netdp::kernels {

using cuda::DeviceBuffer;

bool cuda_backend_built() {
  return true;
}

int cuda_device_count_impl() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver / no device: not an error for the caller
    return 0;
  }
  return count;
}

const char* cuda_device_count_error_impl() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess)
      return count > 0 ? std::string() : std::string("cudaGetDeviceCount counted 0 devices");
    (void)cudaGetLastError();
    return "cudaGetDeviceCount: " + std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  }();
  return reason.c_str();
}

const char* cuda_device_name_impl(int device) {
  // Names are read once and kept for the process lifetime, so the returned pointers stay valid.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    const int count = cuda_device_count_impl();
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, d) == cudaSuccess) {
        result.emplace_back(prop.name);
      } else {
        (void)cudaGetLastError();
        result.emplace_back();
      }
    }
    return result;
  }();
  if (device < 0 || device >= static_cast<int>(names.size())) return "";
  return names[static_cast<std::size_t>(device)].c_str();
}

double cuda_copy_bandwidth_impl(int device, std::size_t bytes) {
  cuda::DeviceGuard guard(device);
  cuda::Stream stream;
  const DeviceBuffer<unsigned char> from(bytes), to(bytes);
  NETDP_CUDA_TRY(cudaMemsetAsync(from.data(), 1, bytes, stream.get()));
  struct Event {  // owner, so that a failing call does not leak it
    cudaEvent_t e = nullptr;
    Event() { NETDP_CUDA_TRY(cudaEventCreate(&e)); }
    ~Event() { (void)cudaEventDestroy(e); }
  } start_event, stop_event;
  const cudaEvent_t start = start_event.e, stop = stop_event.e;
  double best = 0;
  for (int rep = 0; rep < 6; ++rep) {  // the first copy warms up
    NETDP_CUDA_TRY(cudaEventRecord(start, stream.get()));
    NETDP_CUDA_TRY(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    NETDP_CUDA_TRY(cudaEventRecord(stop, stream.get()));
    NETDP_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    NETDP_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    if (rep > 0 && ms > 0) best = std::max(best, 2.0 * static_cast<double>(bytes) / (ms * 1e-3));
  }
  return best;
}

}  // namespace netdp::kernels
