// The engines of cuda_engines.hpp in a build without CUDA: each refuses with "built without CUDA".
#include "cuda_engines.hpp"
#include "stubs/no_cuda.hpp"

namespace netdp::kernels {

#define NETDP_CUDA_STUB(name, Ret, ...) \
  Ret name(__VA_ARGS__) {               \
    no_cuda(#name);                     \
  }
NETDP_CUDA_ENGINES(NETDP_CUDA_STUB)
#undef NETDP_CUDA_STUB

}  // namespace netdp::kernels
