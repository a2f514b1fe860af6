#pragma once
// Backend entry points of the exact gossip accountant (docs/math.md §6.9): for each observer v, an
// orthonormal basis of v's view and the squared projections ||P_v e_u||^2 of every unit vector on it.
// Internal: called by src/accounting/gossip_view.cpp and the backend tests only. Plain types only (no library
// headers).
//
// The view of v is the span of the messages it receives, the columns W^t e_w for w in N(v) and
// t = t_start .. t_start + steps - 1 (W symmetric), plus e_v when v knows its own noise. It is a block Krylov
// space, so the basis is built block by block: the next candidates are W times the block accepted last, made
// orthogonal to the whole basis by two passes of block Gram-Schmidt, then to each other; a candidate is
// dropped only when what is left of it is below the rounding floor (docs/math.md §6.9 "Numerics").
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

namespace netdp::kernels {

struct GossipViewProblem {
  std::int64_t n = 0;
  // W, symmetric and stochastic, in CSR (columns sorted within each row).
  const std::int64_t* w_offsets = nullptr;
  const std::int32_t* w_columns = nullptr;
  const double* w_values = nullptr;
  // The graph: N(v) = adjacency[offsets[v] .. offsets[v + 1]), v itself excluded.
  const std::int64_t* g_offsets = nullptr;
  const std::int32_t* g_adjacency = nullptr;
  int t_start = 0;          // first power of W
  int steps = 1;            // messages per neighbour
  bool knows_noise = true;  // e_v joins the view (v drew its own noise)
  // Build each observer's basis on its ball (the nodes its view can touch, docs/math.md §6.9
  // "Computation") when that is under half the graph; false: always on dense n-vectors (the tests compare).
  bool use_balls = true;
};

/// What the basis of one observer's view kept.
struct GossipViewObserver {
  std::int32_t rank = 0;     // dimension of the view kept
  std::int32_t dropped = 0;  // candidates dropped at the floor (zero within rounding)
  double smallest_kept = 0;  // the smallest residual kept, relative to its candidate's norm
  // With exact block dimensions (gossip_view_spans_cpu): directions kept below the floor.
  std::int32_t below_floor = 0;
};

/// The relative floor below which a candidate's residual is rounding: 8 u sqrt(n r_max), u = 2^-53, r_max the
/// largest max_rank over the observers (docs/math.md §6.9 "Numerics"). An observer whose basis is built on
/// its ball of m < n nodes uses 8 u sqrt(m r_max), smaller (its inner products have m terms).
double gossip_view_floor(const GossipViewProblem& p);

/// The same floor for a view of at most max_rank basis vectors in R^n.
double gossip_view_floor_of(std::int64_t n, std::int64_t max_rank);

/// Most basis vectors observer v can need: min(n, |N(v)| steps + knows_noise).
std::int64_t gossip_view_max_rank(const GossipViewProblem& p, std::int64_t v);

/// Most bytes one thread holds for any of the listed observers (basis, candidates, coefficients, and on a
/// ball its local W and the search's n labels).
std::int64_t gossip_view_thread_bytes(const GossipViewProblem& p, std::span<const std::int32_t> observers);

/// Observers first .. first + count - 1 (in any order over threads, the results do not depend on it):
/// projections[i * n + u] = ||P_v e_u||^2 in [0, 1] for v = first + i when `source` < 0; with source = u >= 0
/// only that entry, projections[i]. observers[i] what the basis kept. done(k) is called now and then with
/// the number of observers finished, from one thread at a time; when it returns false the remaining
/// observers are skipped (their entries are left as they were).
void gossip_view_cpu(const GossipViewProblem& p, std::int64_t first, std::int64_t count, std::int64_t source,
                     std::span<double> projections, std::span<GossipViewObserver> observers,
                     const std::function<bool(std::int64_t)>& done = {});

/// The same for the listed observers: entry i (projections[i] or row i) is observer observers[i]'s.
void gossip_view_listed_cpu(const GossipViewProblem& p, std::span<const std::int32_t> observers,
                            std::int64_t source, std::span<double> projections,
                            std::span<GossipViewObserver> reports,
                            const std::function<bool(std::int64_t)>& done = {});

/// Views given explicitly (the reconstruction attack's knowledge, docs/math.md §7.2): view i is the span of
/// W^t e_w for w in start_nodes[start_offsets[i] .. start_offsets[i + 1]) and p.t_start <= t < p.t_start +
/// p.steps, plus the unit vectors known_nodes[known_offsets[i] .. known_offsets[i + 1]), built like an
/// observer's view (p's graph is not used) with the given floor. `dims` (may be null): count x (steps + 1)
/// exact dimensions, what each Krylov block and then the known vectors add to the view; view i then keeps
/// exactly those many directions per block (the largest residuals) instead of applying the floor.
/// projections[i * n + u] = ||P_i e_u||^2 in [0, 1]; observers[i] what the basis kept. Views in parallel over
/// the OpenMP threads, results independent of them.
void gossip_view_spans_cpu(const GossipViewProblem& p, double floor, std::int64_t count,
                           const std::int64_t* start_offsets, const std::int32_t* start_nodes,
                           const std::int64_t* known_offsets, const std::int32_t* known_nodes,
                           const std::int32_t* dims, std::span<double> projections,
                           std::span<GossipViewObserver> observers);

/// The CPU twin of the CUDA engine (docs/cuda_backend.md "The exact gossip accountant: twins"): the listed
/// observers' entries and reports (gossip_view_listed_cpu's layout) from the single-source body
/// common/gossip_view_bodies.hpp, run by a host loop over the observers (OpenMP, one workspace slot per
/// thread), dense n-vectors, the floor of gossip_view_floor. Byte for byte what gossip_view_cuda gives for
/// the same input; the production engine above agrees with both to rounding (its GEMMs sum in another order).
void gossip_view_twin_cpu(const GossipViewProblem& p, std::span<const std::int32_t> observers,
                          std::int64_t source, std::span<double> projections,
                          std::span<GossipViewObserver> reports,
                          const std::function<bool(std::int64_t)>& done = {});

/// What the CUDA engine planned: observers per batch, batches, device bytes held.
struct CudaGossipViewRun {
  std::int64_t batch_observers = 0;
  std::int64_t batches = 0;
  std::int64_t device_bytes = 0;
};

/// The CUDA twin (kernels/cuda/gossip_view_cuda.cu): W, the graph and the observer list on the device, one
/// batch of observers' workspaces at a time, one device thread per observer running the same body.
class GossipViewCudaEngine {
 public:
  virtual ~GossipViewCudaEngine() = default;
  virtual CudaGossipViewRun plan() const = 0;
  /// Observers first .. first + count - 1 of the engine's list (count <= batch_observers): entry k (row k of
  /// n entries when the engine's source < 0, else projections[k]) and reports[k] are observer first + k's.
  virtual void run_batch(std::int64_t first, std::int64_t count, double* projections,
                         GossipViewObserver* reports) = 0;
};

/// The CUDA engine for the `count` observers listed at `observers` (host memory, copied) and `source` (-1:
/// all sources), its batches planned against 85% of the free device memory or memory_limit (> 0) when
/// smaller (docs/cuda_backend.md "The exact gossip accountant: twins").
std::unique_ptr<GossipViewCudaEngine> gossip_view_cuda(const GossipViewProblem& p, int device,
                                                       const std::int32_t* observers, std::int64_t count,
                                                       std::int64_t source, std::int64_t memory_limit);

}  // namespace netdp::kernels
