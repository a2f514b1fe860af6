// The CUDA backend module's one exported symbol (docs/cuda_loader.md): the table of its engines, handed to
// kernels/cuda_loader.cpp when netdp first asks for a device. The module's version script exports nothing
// else.
#include "cuda_signature.hpp"

namespace netdp::kernels {
namespace {
const CudaHostServices* host = nullptr;
}

// The eigen weights are the CPU backend's (kernels/cpu/walk_loss_cpu.cpp), reached through netdp.
std::vector<double> walk_eigen_weights(std::span<const double> eigenvalues, int method, int steps) {
  return host->walk_eigen_weights(eigenvalues, method, steps);
}

}  // namespace netdp::kernels

extern "C" const netdp::kernels::CudaBackendTable* netdp_cuda_backend_open(
    const netdp::kernels::CudaHostServices* services) {
  using namespace netdp::kernels;
  host = services;
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
