// The CUDA backend module's one exported symbol (docs/cuda_loader.md): the table of its engines, handed to
// kernels/cuda_loader.cpp when netdp first asks for a device. The module's version script exports nothing
// else.
#include "cuda_signature.hpp"

extern "C" const netdp::kernels::CudaBackendTable* netdp_cuda_backend_open() {
  using namespace netdp::kernels;
  static const std::string signature = cuda_module_signature();
  static const std::string build = cuda_build_id();
#define NETDP_CUDA_ENTRY(name, ...) &name,
  static const CudaBackendTable table{signature.c_str(),
                                      build.c_str(),
                                      &cuda_device_count_impl,
                                      &cuda_device_count_error_impl,
                                      &cuda_device_name_impl,
                                      &cuda_copy_bandwidth_impl,
                                      NETDP_CUDA_ENGINES(NETDP_CUDA_ENTRY)};
#undef NETDP_CUDA_ENTRY
  return &table;
}
