// gossip_loss_kernels.hpp's CUDA entry point in a build without CUDA.
#include "gossip_loss_kernels.hpp"
#include "stubs/no_cuda.hpp"

namespace netdp::kernels {

std::unique_ptr<GossipLossCudaEngine> gossip_loss_cuda(const GossipLossProblem&, int, node_t, node_t,
                                                       std::int64_t, std::int64_t, LossRowSink&) {
  no_cuda("gossip_loss_cuda");
}

}  // namespace netdp::kernels
