#pragma once
// Backend entry points of the time-varying gossip accountant (docs/math.md §6.1, 6.3, 6.5). Internal: called
// by src/accounting/gossip_loss_sequence.cpp and its tests only.
//
// The state is a dense product P of gossip matrices (n x n, row-major, row w = row w of W_{0:t}) and the
// accumulated shares F of the requested sources, observer-major: F[v * count + j] = sum over the messages v
// received of P_{w, first + j}^2 / ||row w of P||^2. Every entry of F is summed in a fixed order (message
// time, then v's neighbours in increasing id), so results do not depend on the thread count.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gossip_view_kernels.hpp"

#include "netdp/ground/schedule_view.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

struct SequenceState {
  node_t n = 0;
  node_t first = 0;             // first source u
  node_t count = 0;             // number of sources
  std::vector<double> product;  // P, n x n
  std::vector<double> scratch;  // n x n: shares of one round, then the next product (synchronous only)
  std::vector<double> norms;    // ||row w of P||^2 (randomized only)
  std::vector<double> shares;   // F, n x count

  SequenceState(node_t n, node_t first, node_t count, bool with_scratch);
  /// P = I (W_{0:0}), with its row norms 1.
  void reset_identity();
};

/// Bytes the state takes (to check before allocating).
double sequence_state_bytes(node_t n, node_t count, bool with_scratch);

/// Theorem 6.1 on a synchronous schedule: for t = 0 .. T-1, the messages of P = W_{0:t} over E_t (when
/// t >= t_start), then P <- W_t P. O(T (nnz(W_t) + #E_t) n).
void sequence_shares_synchronous_cpu(const ScheduleView& s, int t_start, SequenceState& st);

/// P <- W P (W sparse): row i of the result is sum_k W_ik row k of P, in increasing k (uses the scratch).
void left_multiply(CsrView w, SequenceState& st);

/// Rows v and w of P become their average (W_t of randomized gossip), their norms recomputed.
void average_rows(SequenceState& st, node_t v, node_t w);

/// Corollary C.5 on a randomized schedule: at tick t with edge {v, w}, v receives row w of W_{0:t} and w
/// receives row v (when t >= t_start), then both rows become their average. O(n) per tick.
void sequence_shares_randomized_cpu(const ScheduleView& s, int t_start, SequenceState& st);

/// Theorem C.9: for every gradient round t, P runs through Q_{t,j,k} = W_j^k W_{j-1}^K ... W_t^K (j >= t,
/// k < K) and the messages of each Q over E_j are added. T (T + 1) K / 2 products.
void muffliato_c9_shares_cpu(const ScheduleView& s, int gossip_steps, SequenceState& st);

// ---- The CUDA twin (kernels/cuda/gossip_loss_sequence_cuda.cu; docs/cuda_backend.md "Gossip-loss-sequence
// twins") ----

enum class SequenceKind : int {
  synchronous = 0,  // sequence_shares_synchronous_cpu
  randomized = 1,   // sequence_shares_randomized_cpu
  muffliato_c9 = 2  // muffliato_c9_shares_cpu
};

/// A schedule as plain arrays: what the CUDA twin needs of a ScheduleView (whose rounds it cannot call for).
struct SequenceProblem {
  SequenceKind kind = SequenceKind::synchronous;
  node_t n = 0;
  int steps = 0;                                           // T: rounds or ticks
  const RoundView* rounds = nullptr;                       // round t (synchronous kinds), `steps` of them
  const std::pair<node_t, node_t>* activations = nullptr;  // tick t (randomized), `steps` of them
  int t_start = 0;                                         // synchronous and randomized
  int gossip_steps = 1;                                    // K (muffliato_c9)
  node_t first = 0, count = 0;                             // the sources
};

struct CudaSequenceRun {
  std::int64_t device_bytes = 0;
};

/// The shares F (n x count, observer-major, as SequenceState::shares) of `p` on CUDA device `device`,
/// written to `shares`: the bits of the CPU twin. memory_limit > 0 caps the device bytes; refuses
/// (InsufficientMemory) when the dense products do not fit.
CudaSequenceRun gossip_loss_sequence_cuda(const SequenceProblem& p, int device, std::int64_t memory_limit,
                                          double* shares);

/// The exact accountant on a schedule (below) for one batch of observers, as plain arrays: what its twins
/// take (sequence_view_twin_cpu, gossip_view_sequence_cuda).
struct SequenceViewProblem {
  SequenceProblem schedule;  // synchronous or randomized; first and count are not used
  bool knows_noise = false;
  double floor = 0;          // gossip_view_floor_of(n, the largest max rank over all observers)
  std::int64_t source = -1;  // -1: every source
  const std::int32_t* observers = nullptr;
  std::int64_t count = 0;
  const std::int64_t* capacities = nullptr;  // per observer: sequence_view_max_rank
  std::int64_t width_capacity = 1;           // the most rows an observer of the batch receives in one round
};

struct CudaSequenceViewRun {
  std::int64_t device_bytes = 0;
  std::int64_t batches = 0;  // of observers, each propagating the products again
};

/// sequence_view_twin_cpu on CUDA device `device`: the same bytes. The observers go in batches whose bases
/// fit beside the products in 85% of the free memory (or memory_limit > 0); refuses (InsufficientMemory) when
/// one observer's does not.
CudaSequenceViewRun gossip_view_sequence_cuda(const SequenceViewProblem& p, int device,
                                              std::int64_t memory_limit, double* projections,
                                              GossipViewObserver* reports);

// ---- The exact view on a schedule (docs/math.md §6.9, time-varying schedules) ----

/// The messages observer v receives: the rows of W_{0:t} at w in N_t(v) (synchronous) or at its partner of
/// tick t (randomized), t = t_start .. T-1. Counts them, per observer (T_v of eq. 6.4; `messages` below).
std::vector<std::int64_t> sequence_messages(const ScheduleView& s, int t_start);

/// Most basis vectors observer v can need: min(n, T_v + knows_noise).
std::int64_t sequence_view_max_rank(node_t n, std::int64_t messages, bool knows_noise);

/// The observers v != u some of whose received rows have a structural non-zero in column u (W_t's pattern):
/// the others' view has a zero at u in every row, so ||P_v e_u|| = 0 exactly. O(T (nnz(W_t) + #E_t)).
std::vector<node_t> sequence_observers_reaching(const ScheduleView& s, int t_start, node_t u);

/// Bytes the basis of each of `observers` takes (basis, candidates, coefficients).
std::vector<double> sequence_view_bytes(const ScheduleView& s, int t_start,
                                        std::span<const std::int64_t> messages, bool knows_noise,
                                        std::span<const node_t> observers);

/// For the observers of `batch`: the orthonormal basis of the rows v receives, built round by
/// round with the fixed-W engine's Gram-Schmidt and floor (kernels/cpu/view_basis.hpp, explicit candidates:
/// two full passes), then e_v when v knows its noise. projections[i * n + u] = ||P_v e_u||^2 for v =
/// batch[i] when source < 0, else projections[i] for u = source; observers[i] what the basis kept. `floor` is
/// gossip_view_floor_of(n, the largest max rank over all observers). st holds P (reset to I here); one pass
/// over the schedule, the observers in parallel within each round (an observer's bits do not depend on
/// threads).
void sequence_view_cpu(const ScheduleView& s, int t_start, std::span<const std::int64_t> messages,
                       bool knows_noise, double floor, std::span<const node_t> batch, node_t source,
                       SequenceState& st, std::span<double> projections,
                       std::span<GossipViewObserver> observers);

/// The capacities of a batch's bases: per observer its max rank, and the widest block one receives.
struct SequenceViewShape {
  std::vector<std::int64_t> capacities;
  std::int64_t width_capacity = 1;
};
SequenceViewShape sequence_view_shape(const ScheduleView& s, int t_start,
                                      std::span<const std::int64_t> messages, bool knows_noise,
                                      std::span<const node_t> batch);

/// The twin of sequence_view_cpu on the single-source bodies (common/gossip_view_sequence_bodies.hpp): the
/// same views, rounded as the CUDA twin rounds them (sequence_view_cpu's BLAS blocks agree to rounding only,
/// the documented vendor difference of the fixed-W accountant). projections as sequence_view_cpu's.
void sequence_view_twin_cpu(const SequenceViewProblem& p, double* projections, GossipViewObserver* reports);

}  // namespace netdp::kernels
