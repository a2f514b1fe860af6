// gossip_sim_kernels.hpp's CUDA entry points in a build without CUDA.
#include "gossip_sim_kernels.hpp"
#include "stubs/no_cuda.hpp"

namespace netdp::kernels {

std::unique_ptr<GossipSimCudaEngine> gossip_sim_cuda(const GossipSimProblem&, int, std::int64_t, std::int64_t,
                                                     std::int64_t) {
  no_cuda("gossip_sim_cuda");
}

std::unique_ptr<GossipSimCudaEngine> gossip_sim_varying_cuda(const GossipSimVaryingProblem&, int,
                                                             std::int64_t, std::int64_t, std::int64_t) {
  no_cuda("gossip_sim_varying_cuda");
}

}  // namespace netdp::kernels
