#pragma once
// Single-source bodies of the exact accountant on a gossip schedule (docs/math.md §6.9, time-varying
// schedules; docs/cuda_backend.md "Gossip-loss-sequence twins"): every observer's view basis grown round by
// round with the rows of P = W_{0:t} it receives, by the Basis of common/gossip_view_bodies.hpp (its state
// saved between rounds), then its entries ||P_v e_u||^2. The CPU twin (sequence_view_twin_cpu, kernels/cpu)
// runs them on contiguous slots, the CUDA twin (kernels/cuda/gossip_view_sequence_cuda.cu) one observer per
// thread on interleaved slots: the same bytes. P itself is propagated by
// common/gossip_loss_sequence_bodies.hpp.
#include <cstdint>

#include "common/gossip_loss_sequence_bodies.hpp"
#include "common/gossip_view_bodies.hpp"
#include "common/hd.hpp"

namespace netdp::kernels::gossip_view {

/// The bases of a batch of observers: slot i and state i belong to observers[i].
struct SequenceBases {
  std::int64_t n = 0;
  const std::int32_t* observers = nullptr;
  const std::int64_t* capacities = nullptr;  // most basis vectors each observer can need
  double floor = 0;
  double* workspace = nullptr;
  std::int64_t slots = 0;
  bool interleaved = false;
  std::int64_t rank_capacity = 1, width_capacity = 1;
  BasisState* states = nullptr;

  NETDP_HD Basis basis(std::int64_t i) const {
    Basis b(slot_of(workspace, i, slots, interleaved, slot_doubles(n, rank_capacity, width_capacity)), n,
            rank_capacity, width_capacity, floor, capacities[i]);
    b.restore(states[i]);
    return b;
  }
  /// Row w of P as candidate j.
  NETDP_HD static void stage(const Basis& b, const double* p, std::int64_t n, std::int64_t w,
                             std::int64_t j) {
    const Strided c = b.candidate(j);
    const double* row = p + w * n;
    for (std::int64_t x = 0; x < n; ++x) c[x] = row[x];
  }
};

/// A synchronous round: observer i receives the rows of P at its neighbours in E_t (increasing ids), added to
/// its basis as one block (two full passes). Index: i.
struct RoundMessagesBody {
  SequenceBases b;
  sequence::CsrArrays graph;
  const double* p;
  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t v = b.observers[i];
    Basis basis = b.basis(i);
    std::int64_t j = 0;
    for (offset_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e)
      SequenceBases::stage(basis, p, b.n, graph.columns[e], j++);
    if (j > 0) basis.accept(j, 0);
    b.states[i] = basis.state();
  }
};

/// A randomized tick on {v, w}: v receives row w of P and w row v (before the averaging), each observer of
/// the batch among them one candidate. index[x] is x's place in the batch (-1: not in it). Index: 0 (v), 1
/// (w).
struct TickMessagesBody {
  SequenceBases b;
  const std::int64_t* index;
  const double* p;
  node_t v, w;
  NETDP_HD void operator()(std::int64_t k) const {
    const node_t observer = k == 0 ? v : w, sender = k == 0 ? w : v;
    const std::int64_t i = index[observer];
    if (i < 0) return;
    Basis basis = b.basis(i);
    SequenceBases::stage(basis, p, b.n, sender, 0);
    basis.accept(1, 0);
    b.states[i] = basis.state();
  }
};

/// The end of the schedule: e_v when the observer knows its noise, then its entries (row i of n, or entry i
/// for one source) and its report. Index: i.
struct FinishViewsBody {
  SequenceBases b;
  bool knows_noise;
  std::int64_t source;
  double* projections;
  GossipViewObserver* reports;
  NETDP_HD void operator()(std::int64_t i) const {
    Basis basis = b.basis(i);
    if (knows_noise) {
      const Strided c = basis.candidate(0);
      for (std::int64_t x = 0; x < b.n; ++x) c[x] = 0.0;
      c[b.observers[i]] = 1.0;
      basis.accept(1, 0);
    }
    write_projections(basis, b.n, source, projections + i * (source >= 0 ? 1 : b.n));
    reports[i] = basis.report();
  }
};

}  // namespace netdp::kernels::gossip_view
