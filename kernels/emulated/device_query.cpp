// The emulated device's queries (docs/cuda_backend.md "The emulated device"): one device, the host, so that
// the CUDA engines built for it run through the drivers and the CUDA test suites in CI.
#include <cstddef>

#include "device_kernels.hpp"

namespace netdp::kernels {

bool cuda_backend_built() {
  return true;
}
std::string cuda_unavailable_reason() {
  return "";
}
int cuda_device_count_impl() {
  return 1;
}
const char* cuda_device_name_impl(int device) {
  return device == 0 ? "emulated CUDA device (host)" : "";
}
double cuda_copy_bandwidth_impl(int, std::size_t) {
  return 0;
}

}  // namespace netdp::kernels
