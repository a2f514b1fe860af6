// Device queries in a build without CUDA: no backend, no device.
#include "device_kernels.hpp"

namespace netdp::kernels {

bool cuda_backend_built() {
  return false;
}
int cuda_device_count_impl() {
  return 0;
}
const char* cuda_device_name_impl(int) {
  return "";
}
double cuda_copy_bandwidth_impl(int, std::size_t) {
  return 0;
}

}  // namespace netdp::kernels
