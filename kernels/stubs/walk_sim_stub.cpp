// walk_sim_kernels.hpp's CUDA entry points in a build without CUDA.
#include "stubs/no_cuda.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

WalkSimCudaRun walk_sim_cuda(const WalkModel&, const WalkSimParams&, int, std::int64_t, std::int64_t, double,
                             WalkVisitTallies&, const WalkSimProgress&) {
  no_cuda("walk_sim_cuda");
}

WalkSimCudaRun walk_sim_accounted_cuda(const WalkModel&, const WalkSimParams&, int, std::int64_t,
                                       std::int64_t, double, const WalkAccountingInputs&, WalkVisitTallies&,
                                       WalkSketchBins&, const WalkAccountedSink&, const WalkSimProgress&) {
  no_cuda("walk_sim_accounted_cuda");
}

}  // namespace netdp::kernels
