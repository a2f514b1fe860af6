// walk_sim_kernels.hpp's CUDA entry points in a build without CUDA.
#include "stubs/no_cuda.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

std::unique_ptr<WalkPlainCudaEngine> walk_sim_cuda(const WalkTables&, const WalkRunSpec&, int, std::int64_t,
                                                   std::int64_t, double) {
  no_cuda("walk_sim_cuda");
}

std::unique_ptr<WalkStepCudaEngine> walk_steps_cuda(const WalkTables&, const WalkRunSpec&, int, bool) {
  no_cuda("walk_steps_cuda");
}

std::unique_ptr<WalkAccountedCudaEngine> walk_sim_accounted_cuda(const WalkTables&, const WalkRunSpec&, int,
                                                                 std::int64_t, std::int64_t, double,
                                                                 const WalkAccountingInputs&) {
  no_cuda("walk_sim_accounted_cuda");
}

}  // namespace netdp::kernels
