#pragma once
// The interface between netdp and its CUDA backend module (docs/cuda_loader.md). In a CUDA build the engines
// of kernels/cuda/ and the CUDA libraries they need (cudart, cuBLAS, cuSPARSE, cuSOLVER) live in a shared
// module, libnetdp_cuda.so, that kernels/cuda_loader.cpp opens with dlopen the first time a device is asked
// for, so that a command which never uses a GPU (--version, --device cpu, any CPU run) does not load them.
// The engines and the structs that cross the boundary are listed once, in cuda_engines.hpp.
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_engines.hpp"
#include "device_kernels.hpp"
#include "netdp/ground/version.hpp"

namespace netdp::kernels {

/// The module's entry points: the device queries, then one per engine of NETDP_CUDA_ENGINES.
struct CudaBackendTable {
  /// cuda_module_signature() (cuda_signature.hpp) as the module was compiled; netdp refuses a module whose
  /// signature differs from its own (a module from another build). The first two members of every version of
  /// the table, so that a module of any version can be told apart and named.
  const char* signature;
  const char* build;  // "netdp VERSION (commit COMMIT)" of the module (cuda_build_id())
  int (*device_count)();
  const char* (*device_count_error)();  // why device_count() is 0 (cuda_device_count_error_impl)
  const char* (*device_name)(int device);
  double (*copy_bandwidth)(int device, std::size_t bytes);
#define NETDP_CUDA_TABLE_MEMBER(name, Ret, ...) Ret (*name)(__VA_ARGS__);
  NETDP_CUDA_ENGINES(NETDP_CUDA_TABLE_MEMBER)
#undef NETDP_CUDA_TABLE_MEMBER
};

// The list must say what the *_kernels.hpp headers declare: the forwarders and stubs are written from it.
#define NETDP_CUDA_CHECK_DECLARATION(name, Ret, ...)                   \
  static_assert(std::is_same_v<decltype(&name), Ret (*)(__VA_ARGS__)>, \
                #name ": its line in cuda_engines.hpp differs from its declaration");
NETDP_CUDA_ENGINES(NETDP_CUDA_CHECK_DECLARATION)
#undef NETDP_CUDA_CHECK_DECLARATION

/// In the module: why cudaGetDeviceCount answers no device ("cudaGetDeviceCount: NAME: TEXT", or that it
/// counted 0 devices); "" when a device answers. Kept for the process, like the device names.
const char* cuda_device_count_error_impl();

/// The exported symbol of the module: extern "C" const CudaBackendTable* NAME(). The module calls nothing in
/// netdp: what its engines share with the CPU backend is in the ground and kernels/common
/// (docs/cuda_backend.md "The ground").
inline constexpr const char* kCudaModuleEntry = "netdp_cuda_backend_open";
using CudaModuleEntry = const CudaBackendTable* (*)();

/// The first item (';'-separated) where two signatures differ, as "module 'A', this netdp 'B'" ("(none)"
/// for an item one of them lacks); "" when they are equal.
std::string cuda_signature_difference(const std::string& module, const std::string& netdp);

/// "netdp VERSION (commit COMMIT)": the build a module or this netdp comes from, named when they disagree.
inline std::string cuda_build_id() {
  return std::string("netdp ") + version() + " (commit " + git_commit() + ")";
}

/// The path the loader tries (docs/cuda_loader.md "Where the module is found"), and a module opened from a
/// given path; throws DeviceUnavailable naming the path and the reason when it cannot be used (in a build
/// without CUDA too, where no module is tried but a given one can be checked).
std::string cuda_module_path();
const CudaBackendTable& open_cuda_module(const std::string& path);

}  // namespace netdp::kernels
