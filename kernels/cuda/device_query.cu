// Which CUDA devices answer (DESIGN "Conventions": --device auto uses CUDA when a device answers). Never
// throws: a machine without a driver or without a GPU simply has 0 devices.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "gossip_loss_kernels.hpp"

namespace netdp::kernels {

int cuda_device_count_impl() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver / no device: not an error for the caller
    return 0;
  }
  return count;
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

}  // namespace netdp::kernels
