#pragma once
// The interface between netdp and its CUDA backend module (docs/cuda_loader.md). In a CUDA build the engines
// of kernels/cuda/ and the CUDA libraries they need (cudart, cuBLAS, cuSPARSE, cuSOLVER) live in a shared
// module, libnetdp_cuda.so, that kernels/cuda_loader.cpp opens with dlopen the first time a device is asked
// for, so that a command which never uses a GPU (--version, --device cpu, any CPU run) does not load them.
#include <cstddef>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include "device_kernels.hpp"
#include "gossip_loss_kernels.hpp"
#include "gossip_sim_kernels.hpp"
#include "walk_loss_kernels.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

/// What the module calls back in netdp (host functions the engines share with the CPU backend); the module
/// defines no netdp function of its own beyond its engines, so that no state is duplicated.
struct CudaHostServices {
  std::vector<double> (*walk_eigen_weights)(std::span<const double> eigenvalues, int method, int steps);
};

/// The module's entry points, one per function of the *_kernels.hpp interfaces.
struct CudaBackendTable {
  /// The function types below as the module was compiled (cuda_module_signature()); netdp refuses a module
  /// whose signature differs from its own (a module from another build).
  const char* signature;
  int (*device_count)();
  const char* (*device_count_error)();  // why device_count() is 0 (cuda_device_count_error_impl)
  const char* (*device_name)(int device);
  double (*copy_bandwidth)(int device, std::size_t bytes);
  decltype(&gossip_loss_cuda) gossip_loss;
  decltype(&gossip_sim_cuda) gossip_sim;
  decltype(&gossip_sim_varying_cuda) gossip_sim_varying;
  decltype(&walk_loss_cuda) walk_loss;
  decltype(&walk_sim_cuda) walk_sim;
  decltype(&walk_steps_cuda) walk_steps;
  decltype(&walk_sim_accounted_cuda) walk_sim_accounted;
};

/// In the module: why cudaGetDeviceCount answers no device ("cudaGetDeviceCount: NAME: TEXT", or that it
/// counted 0 devices); "" when a device answers. Kept for the process, like the device names.
const char* cuda_device_count_error_impl();

/// The exported symbol of the module: extern "C" const CudaBackendTable* NAME(const CudaHostServices*).
inline constexpr const char* kCudaModuleEntry = "netdp_cuda_backend_open";
using CudaModuleEntry = const CudaBackendTable* (*)(const CudaHostServices*);

/// The mangled types of the table's functions: the same string in netdp and in a module built from the same
/// interface headers.
inline std::string cuda_module_signature() {
  std::string s;
  for (const char* name :
       {typeid(decltype(CudaHostServices::walk_eigen_weights)).name(),
        typeid(decltype(&gossip_loss_cuda)).name(), typeid(decltype(&gossip_sim_cuda)).name(),
        typeid(decltype(&gossip_sim_varying_cuda)).name(), typeid(decltype(&walk_loss_cuda)).name(),
        typeid(decltype(&walk_sim_cuda)).name(), typeid(decltype(&walk_steps_cuda)).name(),
        typeid(decltype(&walk_sim_accounted_cuda)).name(), typeid(decltype(&cuda_copy_bandwidth_impl)).name(),
        typeid(decltype(&cuda_device_count_error_impl)).name(), "device_count_error"})
    s.append(name).push_back(';');
  return s;
}

/// The path the loader tries (docs/cuda_loader.md "Where the module is found"), and a module opened from a
/// given path; throws DeviceUnavailable naming the path and the reason when it cannot be used.
std::string cuda_module_path();
const CudaBackendTable& open_cuda_module(const std::string& path);

}  // namespace netdp::kernels
