#pragma once
// Backend entry points of the gossip simulator, its CPU twin and its CUDA twin: the fixed-W protocols (sync,
// accelerated: docs/math.md 6.1-6.2, 2.4) and the time-varying ones without privacy (sequence, dropout,
// randomized, er-per-round, dropout-er: 6.1, 6.8, 6.3, 6.4). Both twins run the bodies of
// kernels/common/gossip_sim_bodies.hpp and gossip_spmm_bodies.hpp and give the same bytes on the emulated
// device (tests/backend/test_gossip_sim_twins.cpp, docs/cuda_backend.md "Gossip-sim twins"). Internal: called
// by src/simulation/gossip_sim.cpp (checks, batches, statistics, writers) and the backend tests only. The
// randomness layout is that of include/netdp/simulation/gossip_sim.hpp.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "netdp/ground/schedule_view.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

struct GossipSimProblem {
  CsrView w;                     // doubly stochastic W (checked by the caller)
  bool accelerated;              // Chebyshev recursion with gamma (docs/math.md §2.4), else x^{t+1} = W x^t
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
/// noisy[b * points + i] for run first + b at recorded time times[i].
struct GossipSimBatchErrors {
  std::span<const double> truth, noisy;
};

// ---- CPU (kernels/cpu/gossip_sim_cpu.cpp, gossip_sim_varying_cpu.cpp) ----

/// Where the CPU twin writes runs first .. first + count - 1: buffers the driver owns and sizes.
struct GossipSimCpuOutput {
  std::span<double> truth, noisy;    // count x points, [b points + i] for run first + b at times[i]
  std::span<double> noisy_average;   // count x D: the node average of each run's x^0 (after the clip)
  std::span<double> states{};        // empty, or count x points x (n x D row-major): the states at times[i]
  std::span<std::int32_t> status{};  // time-varying: count; 4 (round + 1) + 2 where a G(n, q) of
                                     // er-per-round was disconnected in every draw (the run stops there)
};

/// Sync and accelerated on the CPU (p.dense is ignored: the CPU's product is sparse): the batch's columns
/// in panels of kSparseLanes, one panel per thread through all T steps, or the rows of one panel over the
/// threads when the panels are few or the states are wanted. clip_start: x^0 clipped to [0, 1]. progress
/// (share of the batch's panels done) answers false to skip the panels not started (ground::WorkCounter);
/// the caller checks for the stop request that made it so.
void gossip_sim_cpu(const GossipSimProblem& p, bool clip_start, std::int64_t first, std::int64_t count,
                    const GossipSimCpuOutput& out, const std::function<bool(double)>& progress = {});

// ---- CUDA (kernels/cuda/gossip_sim_cuda.cu, gossip_sim_varying_cuda.cu; kernels/stubs/ without CUDA) ----

struct CudaGossipSimRun {
  std::int64_t batch_runs = 0, batches = 0, device_bytes = 0;
};

/// A gossip simulation on a CUDA device: the device state for batches of plan().batch_runs runs, allocated
/// once. The host driver (src/simulation/gossip_sim.cpp) owns the loop: it asks for the batches in run order
/// and folds their errors; nothing here calls back into it.
class GossipSimCudaEngine {
 public:
  virtual ~GossipSimCudaEngine() = default;
  virtual CudaGossipSimRun plan() const = 0;
  /// Runs first .. first + count - 1 (count <= plan().batch_runs); the errors stay valid until the next call.
  virtual GossipSimBatchErrors run_batch(std::int64_t first, std::int64_t count) = 0;
};

/// The fixed-W protocols on CUDA device `device` for `runs` runs. batch_runs = 0 picks the largest batch
/// that fits (in memory_limit bytes when > 0); InsufficientMemory naming the sizes when one run (or the
/// asked batch) cannot fit. The problem's views must outlive the engine.
std::unique_ptr<GossipSimCudaEngine> gossip_sim_cuda(const GossipSimProblem& p, int device, std::int64_t runs,
                                                     std::int64_t batch_runs, std::int64_t memory_limit);

enum class VaryingProtocol { sequence, dropout, randomized, er_per_round, dropout_er };

/// A time-varying protocol: every run has its own W_t per round (dropout, er-per-round, dropout-er), or its
/// own edge per tick (randomized), or all runs share the user's W_{t mod L} (sequence).
struct GossipSimVaryingProblem {
  VaryingProtocol protocol = VaryingProtocol::sequence;
  node_t n = 0;
  int steps = 0;                   // T: rounds, or ticks for randomized
  int dim = 1;                     // D
  double sigma = 0;                // noise std (added once at t = 0)
  std::uint64_t seed = 0;          // Philox key
  std::span<const double> x{};     // initial values, n x D row-major, shared by all runs
  std::span<const double> xbar{};  // their average, D
  std::span<const int> times{};    // recorded t, increasing, first 0, last = T
  // sequence: W_0 .. W_{L-1} (checked by load_gossip_sequence), round t uses W_{t mod L}
  std::span<const RoundView> rounds{};
  // dropout: the base graph (sorted CSR adjacency) and the drop-out probability q (also dropout-er's q)
  GraphView graph{};
  double dropout = 0;
  // randomized: cumulative p_0 + ... + p_e and endpoints (u_e, v_e) of the edges u < v in CSR order, as
  // gossip_sim_detail::ActivationSampler holds them (edge_nodes[2 e] = u_e, edge_nodes[2 e + 1] = v_e)
  std::span<const double> cumulative{};
  std::span<const node_t> edge_nodes{};
  // er-per-round: the edge probability q = c ln(n) / n of the fresh G(n, q) per round (docs/math.md §6.4);
  // dropout-er: p of the fresh G(n, p) per round, not forced connected (docs/math.md §6.8)
  double edge_probability = 0;
};

/// A time-varying protocol on the CPU: one run per thread, its state column-major n x D as one run of the
/// CUDA twin's block. progress and clip_start as gossip_sim_cpu (the share of the batch's runs done).
void gossip_sim_varying_cpu(const GossipSimVaryingProblem& p, bool clip_start, std::int64_t first,
                            std::int64_t count, const GossipSimCpuOutput& out,
                            const std::function<bool(double)>& progress = {});

/// A time-varying protocol on CUDA device `device` for `runs` runs; batch size and errors as
/// gossip_sim_cuda.
std::unique_ptr<GossipSimCudaEngine> gossip_sim_varying_cuda(const GossipSimVaryingProblem& p, int device,
                                                             std::int64_t runs, std::int64_t batch_runs,
                                                             std::int64_t memory_limit);

}  // namespace netdp::kernels
