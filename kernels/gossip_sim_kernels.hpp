#pragma once
// Backend entry point of the gossip simulator's fixed-W protocols (sync, accelerated: MATH_SPEC 6.1-6.2,
// 2.4) on CUDA. Internal: called by src/gossip_sim.cpp and the backend tests only. The CPU implementation
// (the oracle) is src/gossip_sim_fixed.cpp; the randomness layout is that of include/netdp/gossip_sim.hpp.
#include <cstdint>
#include <functional>
#include <span>

#include "netdp/sparse_matrix.hpp"

namespace netdp::kernels {

struct GossipSimProblem {
  const CsrMatrix& w;            // doubly stochastic W (checked by the caller)
  bool accelerated;              // Chebyshev recursion with gamma (MATH_SPEC 2.4), else x^{t+1} = W x^t
  bool dense;                    // propagate with DGEMM on a dense copy of W instead of SpMM (principle 4)
  int steps;                     // T
  int dim;                       // D
  double sigma, gamma;           // noise std (added once at t = 0), Chebyshev gamma
  std::uint64_t seed;            // Philox key
  std::span<const double> x;     // initial values, n x D row-major, shared by all runs
  std::span<const double> xbar;  // their average, D
  std::span<const int> times;    // recorded t, increasing, last = T
};

/// Errors of runs first .. first + count - 1, as the CPU's BatchErrors: truth[b * points + i] and
/// noisy[b * points + i] for run first + b at recorded time times[i]. Called once per batch, in run order.
using GossipSimBatchSink = std::function<void(std::int64_t first, std::int64_t count,
                                              std::span<const double> truth, std::span<const double> noisy)>;

// ---- CUDA (kernels/cuda/gossip_sim_cuda.cu; only in builds with NETDP_HAVE_CUDA) ----

struct CudaGossipSimRun {
  std::int64_t batch_runs = 0, batches = 0, device_bytes = 0;
};

/// All `runs` runs on CUDA device `device`, batch after batch. batch_runs = 0 picks the largest batch that
/// fits (in memory_limit bytes when > 0); InsufficientMemory naming the sizes when one run (or the asked
/// batch) cannot fit.
CudaGossipSimRun gossip_sim_cuda(const GossipSimProblem& p, int device, std::int64_t runs,
                                 std::int64_t batch_runs, std::int64_t memory_limit,
                                 const GossipSimBatchSink& sink);

}  // namespace netdp::kernels
