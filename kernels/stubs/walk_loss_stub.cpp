// walk_loss_kernels.hpp's CUDA entry point in a build without CUDA.
#include "stubs/no_cuda.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp::kernels {

std::unique_ptr<WalkLossCudaEngine> walk_loss_cuda(const WalkLossProblem&, const WalkChebyshevExpansion*, int,
                                                   node_t, node_t, std::int64_t, std::int64_t, LossRowSink&) {
  no_cuda("walk_loss_cuda");
}

}  // namespace netdp::kernels
