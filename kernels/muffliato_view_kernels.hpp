#pragma once
// CPU engine of the exact accountant of linear Muffliato-GD runs (docs/math.md §6.5 "Exact accounting of
// linear runs"): the noise coefficients of every node's state (n x nT) propagated through the T rounds, and
// for each observer the §6.9 basis of the messages it receives, from which ||P_v c_u||^2 follows. Internal:
// called by src/accounting/muffliato_exact.cpp and its tests. The ground's types only.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gossip_loss_sequence_kernels.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/ground/schedule_view.hpp"

namespace netdp::kernels {

struct MuffliatoViewProblem {
  ScheduleView schedule;           // round t's W_t and graph (t < T; a constant schedule repeats its round)
  std::span<const double> gammas;  // Chebyshev gamma: one value, or one per round
  int rounds = 1;                  // T
  int gossip_steps = 1;            // K
  double state_factor = 1;         // theta_hat = a theta + (data) + (noise)
  bool knows_noise = true;         // v's own T noise entries are removed from its view
  bool same_shift = true;          // GD (exact ||P c_u||^2); false: min(T, sum |M|)
  std::int64_t source = -1;        // only the pairs (source -> v); -1: all pairs
};

/// What the engine holds: `fixed` bytes always (the three n x nT coefficient buffers and the output), and per
/// observer v observer_bytes[v] for its basis; the largest rank v's view can reach and its widest block.
/// observers: those whose basis is built, in increasing order: every v != source, or with a source only those
/// that receive a message with a nonzero coefficient on the source's entries (the others' share is exactly
/// 0).
struct MuffliatoViewPlan {
  double fixed = 0;
  std::vector<double> observer_bytes;
  std::vector<std::int64_t> max_rank, width;
  std::vector<node_t> observers;
  double floor = 0;  // the §6.9 floor on vectors of length nT
};
MuffliatoViewPlan muffliato_view_plan(const MuffliatoViewProblem& p);

/// share: n x n (share[u * n + v], all pairs) or n (share[v], with a source); observers[v] what v's basis
/// kept (the source's entry untouched). Observers in batches that hold at most `budget` bytes beside `fixed`
/// (at least one observer each). done(k) after each batch with the observers finished; false stops the run.
/// Returns the batches run and the most bytes held at once.
struct MuffliatoViewRun {
  int batches = 0;
  double bytes = 0;
};
MuffliatoViewRun muffliato_view_cpu(const MuffliatoViewProblem& p, const MuffliatoViewPlan& plan,
                                    double budget, std::span<double> share,
                                    std::span<GossipViewObserver> observers,
                                    const std::function<bool(std::int64_t)>& done = {});

// ---- The twins on single-source bodies (common/muffliato_view_bodies.hpp; docs/cuda_backend.md "Muffliato
// exact twins") ----

/// The problem as plain arrays, for the twins: the schedule's T rounds, and the observers with their bases'
/// capacities (muffliato_view_plan's max_rank, at least 1, and the widest block).
struct MuffliatoViewArrays {
  SequenceProblem schedule;  // n, steps = T, rounds (T views); kind, first and count not used
  const double* gammas = nullptr;
  int gamma_count = 1;  // one gamma, or one per round
  int gossip_steps = 1;
  double state_factor = 1;
  bool knows_noise = true, same_shift = true;
  std::int64_t source = -1;
  const std::int32_t* observers = nullptr;
  std::int64_t count = 0;
  const std::int64_t* capacities = nullptr;
  std::int64_t width_capacity = 1;
  double floor = 0;
};

/// The arrays of `p` and `plan`; `rounds` and `capacities` receive what they point to.
MuffliatoViewArrays muffliato_view_arrays(const MuffliatoViewProblem& p, const MuffliatoViewPlan& plan,
                                          std::vector<RoundView>& rounds,
                                          std::vector<std::int64_t>& capacities);

/// share and reports as muffliato_view_cpu's (the entries of the observers not listed untouched), all
/// observers in one batch; rounded as the CUDA twin rounds (muffliato_view_cpu's BLAS blocks agree to
/// rounding only).
void muffliato_view_twin_cpu(const MuffliatoViewArrays& p, double* share, GossipViewObserver* reports);

struct CudaMuffliatoViewRun {
  std::int64_t device_bytes = 0;
  std::int64_t batches = 0;
};

/// muffliato_view_twin_cpu on CUDA device `device`: the same bytes. Observers in batches whose bases fit
/// beside the coefficients in 85% of the free memory (or memory_limit > 0); InsufficientMemory when one does
/// not.
CudaMuffliatoViewRun muffliato_view_cuda(const MuffliatoViewArrays& p, int device, std::int64_t memory_limit,
                                         double* share, GossipViewObserver* reports);

}  // namespace netdp::kernels
