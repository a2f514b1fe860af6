// A stand-in for libnetdp_cuda.so, built by the host compiler (tests/CMakeLists.txt), so that the loader's
// check of a module's interface is tested without CUDA (tests/backend/test_cuda_loader.cpp). Its table has no
// engines. Built twice: as this build's interface, and with NETDP_FAKE_STALE_LAYOUT as a module compiled
// against a WalkRunSpec with one more member, its signature computed by the same macros as the real one.
#include <string>

#include "cuda_signature.hpp"

namespace netdp::kernels {
namespace {

int no_device() {
  return 0;
}
const char* no_error() {
  return "the fake module has no device";
}
const char* no_name(int) {
  return "";
}
double no_bandwidth(int, std::size_t) {
  return 0;
}

#ifdef NETDP_FAKE_STALE_LAYOUT
namespace stale {
// WalkRunSpec as another version might have it; in this namespace the name means this one.
struct WalkRunSpec {
  std::uint64_t seed = 0;
  std::int64_t warmup = 0;  // the added member: every member after it moves
  std::int64_t steps = 1, runs = 1;
  std::int64_t batch_runs = 0;
  bool per_walk_start = false;
  node_t start_node = 0;
  double eps0 = 0, delta = 0;
};

// The signature with WalkRunSpec's items replaced by the stale struct's.
std::string signature() {
  std::string s;
  NETDP_CUDA_LAYOUT_STRUCT(
      WalkRunSpec, NETDP_CUDA_LAYOUT_MEMBER(seed) NETDP_CUDA_LAYOUT_MEMBER(steps)
                       NETDP_CUDA_LAYOUT_MEMBER(runs) NETDP_CUDA_LAYOUT_MEMBER(batch_runs)
                           NETDP_CUDA_LAYOUT_MEMBER(per_walk_start) NETDP_CUDA_LAYOUT_MEMBER(start_node)
                               NETDP_CUDA_LAYOUT_MEMBER(eps0) NETDP_CUDA_LAYOUT_MEMBER(delta))
  std::string real = cuda_module_signature();
  const std::size_t begin = real.find("struct WalkRunSpec ");
  const std::size_t end = real.find("struct ", begin + 1);
  return real.replace(begin, end - begin, s);
}
}  // namespace stale
const std::string kSignature = stale::signature();
const std::string kBuild = "netdp fake stale module (commit 0000000)";
#else
const std::string kSignature = cuda_module_signature();
const std::string kBuild = "netdp fake module (commit 0000000)";
#endif

}  // namespace
}  // namespace netdp::kernels

extern "C" const netdp::kernels::CudaBackendTable* netdp_cuda_backend_open() {
  using namespace netdp::kernels;
#define NETDP_CUDA_NO_ENGINE(name, ...) nullptr,
  static const CudaBackendTable table{kSignature.c_str(),
                                      kBuild.c_str(),
                                      &no_device,
                                      &no_error,
                                      &no_name,
                                      &no_bandwidth,
                                      NETDP_CUDA_ENGINES(NETDP_CUDA_NO_ENGINE)};
#undef NETDP_CUDA_NO_ENGINE
  return &table;
}
