// The CUDA entry points of a CUDA build (docs/cuda_loader.md): each forwards to the backend module
// libnetdp_cuda.so (opened and checked by cuda_module.cpp), opened the first time a device is asked for.
// Until then no CUDA library is loaded, so `netdp --version` and CPU runs start without the 0.5-1.6 s that
// loading cuBLAS, cuSPARSE and cuSOLVER takes.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "cuda_module.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

namespace fs = std::filesystem;

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

// The file this code was linked into: the netdp program, a test, or the Python extension module.
fs::path own_object() {
  Dl_info info{};
  std::error_code ec;
  if (dladdr(reinterpret_cast<void*>(&last_dl_error), &info) != 0 && info.dli_fname && info.dli_fname[0]) {
    auto path = fs::canonical(info.dli_fname, ec);
    if (!ec) return path;
  }
  auto exe = fs::canonical("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

struct Backend {
  const CudaBackendTable* table = nullptr;
  std::string unavailable;  // why table is null: the dynamic loader's text or the module's refusal
  std::string path;         // the module tried
};

Backend load_backend() {
  // Without the driver no device can answer: say so without loading the module and its libraries.
  if (!dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL))
    return {nullptr, "no CUDA driver: " + last_dl_error(), ""};
  const std::string path = cuda_module_path();
  try {
    return {&open_cuda_module(path), "", path};
  } catch (const std::exception& e) {
    return {nullptr, e.what(), path};
  }
}

const Backend& backend() {
  static const Backend loaded = load_backend();  // once per process, thread-safe
  return loaded;
}

const CudaBackendTable& require(const char* entry) {
  const Backend& b = backend();
  if (!b.table) throw DeviceUnavailable(std::string(entry) + ": " + b.unavailable);
  return *b.table;
}

}  // namespace

std::string cuda_module_path() {
  if (const char* path = std::getenv("NETDP_CUDA_MODULE"); path && *path) return path;
  // A program of the build tree uses the build tree's module; an installed one the module installed beside it
  // (PREFIX/bin/netdp -> PREFIX/LIBDIR/netdp/), else the one of the configured install prefix.
  const fs::path self = own_object();
  std::error_code ec;
  const fs::path build = fs::canonical(NETDP_BUILD_DIR, ec);
  if (!ec && !self.empty()) {
    auto [b, s] = std::mismatch(build.begin(), build.end(), self.begin(), self.end());
    if (b == build.end()) return NETDP_CUDA_MODULE_BUILD;
  }
  if (!self.empty()) {
    const fs::path beside = self.parent_path() / NETDP_CUDA_MODULE_RELATIVE;
    if (fs::exists(beside, ec)) return beside.lexically_normal().string();
  }
  return NETDP_CUDA_MODULE_INSTALL;
}

bool cuda_backend_built() {
  return true;
}

std::string cuda_unavailable_reason() {
  const Backend& b = backend();
  if (!b.table) return b.unavailable;
  if (b.table->device_count() > 0) return "";
  return "the CUDA backend module '" + b.path + "' loaded, but " + b.table->device_count_error();
}

int cuda_device_count_impl() {
  const Backend& b = backend();
  return b.table ? b.table->device_count() : 0;
}

const char* cuda_device_name_impl(int device) {
  const Backend& b = backend();
  return b.table ? b.table->device_name(device) : "";
}

double cuda_copy_bandwidth_impl(int device, std::size_t bytes) {
  const Backend& b = backend();
  return b.table ? b.table->copy_bandwidth(device, bytes) : 0;
}

// The engines: each forwards to the module's entry of the same name (cuda_engines.hpp).
#define NETDP_CUDA_FORWARDER(name, Ret, ...)                  \
  Ret name(NETDP_CUDA_PARAMS(__VA_ARGS__)) {                  \
    return require(#name).name(NETDP_CUDA_ARGS(__VA_ARGS__)); \
  }
NETDP_CUDA_ENGINES(NETDP_CUDA_FORWARDER)
#undef NETDP_CUDA_FORWARDER

}  // namespace netdp::kernels
