// Device queries in a build without CUDA: no backend, no device.
#include "cuda_module.hpp"

namespace netdp::kernels {

bool cuda_backend_built() {
  return false;
}
std::string cuda_unavailable_reason() {
  return "";
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

// The backend module (docs/cuda_loader.md) exists in CUDA builds only: none is tried (open_cuda_module, in
// cuda_module.cpp, still checks a given one).
std::string cuda_module_path() {
  return "";
}

}  // namespace netdp::kernels
