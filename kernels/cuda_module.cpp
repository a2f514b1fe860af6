// Opening a CUDA backend module and checking that it was built from this netdp's interface
// (docs/cuda_loader.md "The interface"). Compiled in every build: a build without CUDA tries no module, but
// its tests check the refusal of a stale one with a fake module (tests/backend/test_cuda_loader.cpp).
#include <dlfcn.h>

#include <cstring>
#include <string>

#include "cuda_signature.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

// Item i of a ';'-separated signature, or "(none)".
std::string item(const std::string& s, std::size_t begin) {
  if (begin >= s.size()) return "(none)";
  return s.substr(begin, s.find(';', begin) - begin);
}

}  // namespace

std::string cuda_signature_difference(const std::string& module, const std::string& netdp) {
  if (module == netdp) return "";
  // The item where they first differ starts after the last ';' of their common prefix.
  std::size_t common = 0;
  while (common < module.size() && common < netdp.size() && module[common] == netdp[common]) ++common;
  const std::size_t separator = module.rfind(';', common == 0 ? 0 : common - 1);
  const std::size_t begin = common == 0 || separator == std::string::npos ? 0 : separator + 1;
  return "module '" + item(module, begin) + "', this netdp '" + item(netdp, begin) + "'";
}

const CudaBackendTable& open_cuda_module(const std::string& path) {
  // RTLD_LOCAL: the module's symbols (it exports only its entry point) never interpose on netdp's.
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module) throw DeviceUnavailable("cannot load the CUDA backend module: " + last_dl_error());
  auto entry = reinterpret_cast<CudaModuleEntry>(dlsym(module, kCudaModuleEntry));
  if (!entry)
    throw DeviceUnavailable("'" + path + "' is not a netdp CUDA backend module: " + last_dl_error());
  const CudaBackendTable* table = entry();
  const std::string own = cuda_module_signature();
  if (!table || !table->signature || table->signature != own) {
    // Only a module of this table version has `build` where this one has it.
    const bool same_version =
        table && table->signature &&
        std::strncmp(table->signature, kCudaSignatureVersion, std::strlen(kCudaSignatureVersion)) == 0;
    const std::string theirs = same_version && table->build ? table->build : "an older netdp";
    const std::string difference =
        table && table->signature ? cuda_signature_difference(table->signature, own) : "no signature";
    throw DeviceUnavailable("the CUDA backend module '" + path +
                            "' was built from another version of netdp (module: " + theirs +
                            "; this netdp: " + cuda_build_id() + "; first difference: " + difference +
                            "): rebuild it with this one");
  }
  return *table;  // never closed: its engines and their vtables live until the process ends
}

}  // namespace netdp::kernels
