#pragma once
// Single-source body of the exact gossip accountant (docs/math.md §6.9, docs/cuda_backend.md "The exact
// gossip accountant: twins"): one observer's view basis by block Gram-Schmidt with reorthogonalisation, the
// same steps and the same rounding floor as the production CPU engine (kernels/cpu/view_basis.hpp), then the
// squared projections ||P_v e_u||^2. Written once over plain pointers, every sum in a fixed order and every
// product rounded on its own (common/rounding.hpp), so that the CPU twin (a host loop over observers,
// gossip_view_twin_cpu in kernels/cpu/gossip_view_cpu.cpp) and the CUDA twin (one device thread per observer,
// kernels/cuda/gossip_view_cuda.cu) give the same bytes for the same input.
//
// The production CPU engine computes the same basis with OpenBLAS GEMMs (blocked sums, FMAs): it agrees with
// this body to rounding, not bit for bit (the one documented vendor difference, docs/cuda_backend.md).
//
// Workspace: each observer owns one slot of `slot_doubles` doubles: the basis Q (n x rank_capacity,
// column-major), the candidates C (n x width_capacity), the block coefficients H (rank_capacity x
// width_capacity), two norms per candidate and an n-vector of scratch. A slot is contiguous (CPU twin) or
// interleaved with the other slots of its batch (element e of slot s at workspace[e * slots + s], CUDA twin:
// neighbouring threads read neighbouring addresses). The layout moves no bit: only addresses change.
#include <cmath>
#include <cstdint>

#include "common/hd.hpp"
#include "common/rounding.hpp"
#include "gossip_view_kernels.hpp"

namespace netdp::kernels::gossip_view {

/// The floor of docs/math.md §6.9 "Numerics": 8 u sqrt(n r_max), u = 2^-53.
NETDP_HD inline double floor_of(std::int64_t n, std::int64_t max_rank) {
  const double r = static_cast<double>(max_rank > 1 ? max_rank : 1);
  return 8.0 * std::sqrt(static_cast<double>(n) * r) * 1.1102230246251565e-16;
}

/// Most basis vectors observer v can need: min(n, |N(v)| steps + knows_noise).
NETDP_HD inline std::int64_t max_rank(std::int64_t n, std::int64_t degree, int steps, bool knows_noise) {
  const std::int64_t r = degree * steps + (knows_noise ? 1 : 0);
  return r < n ? r : n;
}

/// Doubles of one observer's slot (the layout above).
NETDP_HD inline std::int64_t slot_doubles(std::int64_t n, std::int64_t rank_capacity,
                                          std::int64_t width_capacity) {
  return n * (rank_capacity + width_capacity + 1) + rank_capacity * width_capacity + 2 * width_capacity;
}

/// A vector of a slot: element i at data[i * step].
struct Strided {
  double* data;
  std::int64_t step;
  NETDP_HD double& operator[](std::int64_t i) const { return data[i * step]; }
  NETDP_HD Strided shifted(std::int64_t elements) const { return {data + elements * step, step}; }
};

/// sum_i a_i b_i, i ascending, each product rounded on its own.
NETDP_HD inline double dot(Strided a, Strided b, std::int64_t n) {
  double s = 0.0;
  for (std::int64_t i = 0; i < n; ++i) s = rn_add(s, rn_mul(a[i], b[i]));
  return s;
}

NETDP_HD inline double norm(Strided a, std::int64_t n) {
  return std::sqrt(dot(a, a, n));
}

/// What a Basis keeps outside its slot: saved between the launches that grow one view over a schedule
/// (common/gossip_view_sequence_bodies.hpp).
struct BasisState {
  std::int64_t rank = 0;
  std::int32_t dropped = 0;
  double smallest = 0;
};

/// The basis of one view, grown block by block: the steps of the production ViewBasis::accept
/// (kernels/cpu/view_basis.hpp), with the block products written as loops.
class Basis {
 public:
  NETDP_HD Basis(Strided slot, std::int64_t n, std::int64_t rank_capacity, std::int64_t width_capacity,
                 double floor, std::int64_t capacity)
      : n_(n),
        rank_capacity_(rank_capacity),
        floor_(floor),
        capacity_(capacity),
        q_(slot),
        c_(slot.shifted(n * rank_capacity)),
        h_(slot.shifted(n * (rank_capacity + width_capacity))),
        norm0_(h_.shifted(rank_capacity * width_capacity)),
        norm1_(norm0_.shifted(width_capacity)),
        scratch_(norm1_.shifted(width_capacity)) {}

  NETDP_HD Strided candidate(std::int64_t j) const { return c_.shifted(j * n_); }
  NETDP_HD Strided column(std::int64_t j) const { return q_.shifted(j * n_); }
  NETDP_HD Strided scratch() const { return scratch_; }
  NETDP_HD std::int64_t rank() const { return rank_; }
  NETDP_HD BasisState state() const { return {rank_, dropped_, smallest_}; }
  NETDP_HD void restore(const BasisState& s) {
    rank_ = s.rank;
    dropped_ = s.dropped;
    smallest_ = s.smallest;
  }
  NETDP_HD GossipViewObserver report() const {
    GossipViewObserver r;
    r.rank = static_cast<std::int32_t>(rank_);
    r.dropped = dropped_;
    r.smallest_kept = smallest_;
    r.below_floor = 0;
    return r;
  }

  /// Makes the first m candidates orthogonal to the basis and to each other and appends those whose residual
  /// is above the floor (docs/math.md §6.9 "Numerics"); returns how many it appended. `local` > 0: the
  /// candidates are W times the last block, so a first pass against the last `local` columns, then a full
  /// pass; local = 0: two full passes. Then, per candidate, two passes against the columns appended from this
  /// block, and more full passes while one removes more than half of what is left (at most three).
  NETDP_HD std::int64_t accept(std::int64_t m, std::int64_t local) {
    const std::int64_t old_rank = rank_;
    for (std::int64_t j = 0; j < m; ++j) norm0_[j] = norm(candidate(j), n_);
    if (old_rank > 0) {
      const std::int64_t first = local > 0 ? old_rank - (local < old_rank ? local : old_rank) : 0;
      for (std::int64_t j = 0; j < m; ++j) project(first, old_rank, j);
      for (std::int64_t j = 0; j < m; ++j) norm1_[j] = norm(candidate(j), n_);
      for (std::int64_t j = 0; j < m; ++j) project(0, old_rank, j);
    }
    for (std::int64_t j = 0; j < m; ++j) {
      const Strided c = candidate(j);
      if (rank_ == n_ || !(norm0_[j] > 0)) {  // the view already spans everything, or nothing to add
        ++dropped_;
        continue;
      }
      double before = old_rank > 0 ? norm1_[j] : norm0_[j];
      double after = norm(c, n_);
      if (rank_ > old_rank) {
        before = after;
        for (int pass = 0; pass < 2; ++pass) project_into(old_rank, rank_, c);
        after = norm(c, n_);
      }
      for (int extra = 0; extra < 3 && after < 0.5 * before && after > floor_ * norm0_[j]; ++extra) {
        project_into(0, rank_, c);
        before = after;
        after = norm(c, n_);
      }
      const double relative = after / norm0_[j];
      if (!(relative > floor_) || rank_ >= capacity_) {
        ++dropped_;
        continue;
      }
      smallest_ = rank_ == 0 ? relative : (relative < smallest_ ? relative : smallest_);
      const Strided target = column(rank_);
      for (std::int64_t i = 0; i < n_; ++i) target[i] = c[i] / after;
      ++rank_;
    }
    return rank_ - old_rank;
  }

 private:
  /// Candidate j -= Q[:, from:to] (Q[:, from:to]^T candidate j), the coefficients kept in H's column j.
  NETDP_HD void project(std::int64_t from, std::int64_t to, std::int64_t j) {
    project_with(from, to, candidate(j), h_.shifted(j * rank_capacity_));
  }
  /// The same for any vector c (coefficients in H's first column: the block's are no longer needed).
  NETDP_HD void project_into(std::int64_t from, std::int64_t to, Strided c) { project_with(from, to, c, h_); }

  /// Classical Gram-Schmidt against columns from .. to - 1: every coefficient from c as it was, then
  /// c -= Q_k h_k for k ascending, element by element.
  NETDP_HD void project_with(std::int64_t from, std::int64_t to, Strided c, Strided h) const {
    for (std::int64_t k = from; k < to; ++k) h[k - from] = dot(column(k), c, n_);
    for (std::int64_t k = from; k < to; ++k) {
      const Strided q = column(k);
      const double hk = h[k - from];
      for (std::int64_t i = 0; i < n_; ++i) c[i] = rn_sub(c[i], rn_mul(q[i], hk));
    }
  }

  std::int64_t n_, rank_capacity_;
  double floor_;
  std::int64_t capacity_;
  Strided q_, c_, h_, norm0_, norm1_, scratch_;
  std::int64_t rank_ = 0;
  std::int32_t dropped_ = 0;
  double smallest_ = 0;
};

/// y = W x, each entry summed over W's row in CSR order from 0 (the order of common/csr_product.hpp).
NETDP_HD inline void multiply(const std::int64_t* offsets, const std::int32_t* columns, const double* values,
                              std::int64_t n, Strided x, Strided y) {
  for (std::int64_t row = 0; row < n; ++row) {
    double s = 0.0;
    for (std::int64_t k = offsets[row]; k < offsets[row + 1]; ++k)
      s = rn_add(s, rn_mul(values[k], x[columns[k]]));
    y[row] = s;
  }
}

/// ||P e_u||^2 clipped to [0, 1] (rounding must not raise it past the LDP level).
NETDP_HD inline double clipped(double x) {
  return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

/// Slot i of a workspace of `slots` slots of `size` doubles: contiguous (CPU twins) or interleaved (CUDA
/// twins).
NETDP_HD inline Strided slot_of(double* workspace, std::int64_t i, std::int64_t slots, bool interleaved,
                                std::int64_t size) {
  if (interleaved) return {workspace + i, slots};
  return {workspace + i * size, 1};
}

/// The entries of a finished view: ||P_v e_u||^2 = sum over the basis of Q_uj^2 (j ascending), clipped; into
/// out[0] for u = source >= 0, else out[u] for every u.
NETDP_HD inline void write_projections(const Basis& basis, std::int64_t n, std::int64_t source, double* out) {
  const std::int64_t first = source >= 0 ? source : 0, last = source >= 0 ? source + 1 : n;
  for (std::int64_t u = first; u < last; ++u) {
    double s = 0.0;
    for (std::int64_t j = 0; j < basis.rank(); ++j) {
      const double q = basis.column(j)[u];
      s = rn_add(s, rn_mul(q, q));
    }
    out[u - first] = clipped(s);
  }
}

/// Item i: observer observers[i]'s basis (its neighbours' unit vectors moved t_start steps, steps - 1 Krylov
/// blocks, then e_v when it knows its noise; docs/math.md §6.9 "Computation") in slot i of the workspace, its
/// entries into projections (row i of n entries when source < 0, else entry i = ||P e_source||^2) and its
/// report into reports[i]. Dense n-vectors (the production engine's path when balls are off).
struct ObserverBody {
  std::int64_t n;
  const std::int64_t* w_offsets;
  const std::int32_t* w_columns;
  const double* w_values;
  const std::int64_t* g_offsets;
  const std::int32_t* g_adjacency;
  int t_start, steps;
  bool knows_noise;
  double floor;
  const std::int32_t* observers;
  std::int64_t source;
  double* workspace;
  std::int64_t slots;  // slots of the workspace; item i uses slot i
  bool interleaved;
  std::int64_t rank_capacity, width_capacity;
  double* projections;
  GossipViewObserver* reports;

  NETDP_HD Strided slot(std::int64_t i) const {
    return slot_of(workspace, i, slots, interleaved, slot_doubles(n, rank_capacity, width_capacity));
  }

  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t v = observers[i];
    const std::int64_t first = g_offsets[v], degree = g_offsets[v + 1] - first;
    Basis basis(slot(i), n, rank_capacity, width_capacity, floor, max_rank(n, degree, steps, knows_noise));
    for (std::int64_t j = 0; j < degree; ++j) {
      const Strided c = basis.candidate(j);
      for (std::int64_t x = 0; x < n; ++x) c[x] = 0.0;
      c[g_adjacency[first + j]] = 1.0;
      for (int t = 0; t < t_start; ++t) {
        multiply(w_offsets, w_columns, w_values, n, c, basis.scratch());
        for (std::int64_t x = 0; x < n; ++x) c[x] = basis.scratch()[x];
      }
    }
    std::int64_t added = basis.accept(degree, 0), previous = 0;
    for (int k = 1; k < steps && added > 0; ++k) {
      const std::int64_t from = basis.rank() - added;
      for (std::int64_t j = 0; j < added; ++j)
        multiply(w_offsets, w_columns, w_values, n, basis.column(from + j), basis.candidate(j));
      const std::int64_t last_two = added + previous;  // W Q_k lies in span(Q_{k-1}, Q_k, Q_{k+1})
      previous = added;
      added = basis.accept(added, last_two);
    }
    if (knows_noise) {
      const Strided c = basis.candidate(0);
      for (std::int64_t x = 0; x < n; ++x) c[x] = 0.0;
      c[v] = 1.0;
      basis.accept(1, 0);
    }
    write_projections(basis, n, source, projections + i * (source >= 0 ? 1 : n));
    reports[i] = basis.report();
  }
};

/// Host helper: the body's fields that come from the problem (W and the graph, host or device copies alike:
/// the caller passes a problem whose pointers the body may read), the floor, the source (-1: every source)
/// and the slot capacities. The caller sets the workspace layout (workspace, slots, interleaved), the
/// observers and the outputs.
inline ObserverBody observer_body(const GossipViewProblem& p, double floor, std::int64_t source,
                                  std::int64_t rank_capacity, std::int64_t width_capacity) {
  return {.n = p.n,
          .w_offsets = p.w_offsets,
          .w_columns = p.w_columns,
          .w_values = p.w_values,
          .g_offsets = p.g_offsets,
          .g_adjacency = p.g_adjacency,
          .t_start = p.t_start,
          .steps = p.steps,
          .knows_noise = p.knows_noise,
          .floor = floor,
          .observers = nullptr,
          .source = source,
          .workspace = nullptr,
          .slots = 0,
          .interleaved = false,
          .rank_capacity = rank_capacity,
          .width_capacity = width_capacity,
          .projections = nullptr,
          .reports = nullptr};
}

}  // namespace netdp::kernels::gossip_view
