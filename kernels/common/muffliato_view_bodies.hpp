#pragma once
// Single-source bodies of the exact accountant of linear Muffliato-GD runs (docs/math.md §6.5 "Exact
// accounting of linear runs"; docs/cuda_backend.md "Muffliato exact twins"): the noise coefficients of every
// node's state (n rows of N = nT, column t n + w being node w's noise at round t) through the T rounds of K
// accelerated gossip steps, and each observer's basis (common/gossip_view_bodies.hpp) fed the messages it
// receives, then its shares ||P_v c_u||^2. The CPU twin (muffliato_view_twin_cpu) and the CUDA twin
// (kernels/cuda/muffliato_view_cuda.cu) run them with different geometries and give the same bytes. The
// products are common/gossip_loss_sequence_bodies.hpp's ProductBody with width N.
#include <cstdint>

#include "common/gossip_loss_sequence_bodies.hpp"
#include "common/gossip_view_sequence_bodies.hpp"
#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::muffliato_view {

/// theta_hat = a theta + z_t: every coefficient of the rounds so far (c < cols) times a, then node w's own
/// noise entry of round t plus 1. Index: entry w * cols + c of the n x cols block.
struct InjectNoiseBody {
  double* state;
  std::int64_t n, width, cols, round;
  double factor;
  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t w = i / cols, c = i - w * cols;
    double& x = state[w * width + c];
    x = rn_mul(x, factor);
    if (c == round * n + w) x = rn_add(x, 1.0);
  }
};

/// x^{k+1} = gamma W x^k + (1 - gamma) x^{k-1} (docs/math.md §2.4), next holding W x^k. Index: entry e * cols
/// + c.
struct ChebyshevBody {
  double* next;
  const double* previous;
  std::int64_t width, cols;
  double gamma;
  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t e = i / cols, c = i - e * cols;
    const std::int64_t at = e * width + c;
    next[at] = rn_add(rn_mul(gamma, next[at]), rn_mul(1.0 - gamma, previous[at]));
  }
};

/// One gossip step's messages: observer i receives x^k_w of its neighbours in E_t (increasing ids), its own T
/// noise entries removed when it knows them, added to its basis as one block. Index: i.
struct MessagesBody {
  gossip_view::SequenceBases b;  // vectors of N = n T
  sequence::CsrArrays graph;
  const double* state;
  std::int64_t n;
  int rounds;
  bool knows_noise;
  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t v = b.observers[i];
    gossip_view::Basis basis = b.basis(i);
    std::int64_t j = 0;
    for (offset_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e) {
      gossip_view::SequenceBases::stage(basis, state, b.n, graph.columns[e], j);
      if (knows_noise) {
        const gossip_view::Strided c = basis.candidate(j);
        for (int r = 0; r < rounds; ++r) c[r * n + v] = 0.0;
      }
      ++j;
    }
    if (j > 0) basis.accept(j, 0);
    b.states[i] = basis.state();
  }
};

/// ||P c_u||^2 = ||sum_t q_{u,t}||^2 (same shift: GD), or min(T, sum_{s,t} |q_{u,s} . q_{u,t}|), clamped to
/// [0, T]; q_{u,t} = row t n + u of the basis. Every u (source < 0: share[u * n + v]) or the source
/// (share[v]); 0 at u = v. Index: i (observer v = observers[i]), its report into reports[v].
struct SharesBody {
  gossip_view::SequenceBases b;
  std::int64_t n, source;
  int rounds;
  bool same_shift;
  double* share;
  GossipViewObserver* reports;
  NETDP_HD void operator()(std::int64_t i) const {
    const std::int64_t v = b.observers[i];
    const gossip_view::Basis basis = b.basis(i);
    const std::int64_t r = basis.rank();
    const std::int64_t first = source >= 0 ? source : 0, last = source >= 0 ? source + 1 : n;
    for (std::int64_t u = first; u < last; ++u) {
      double* target = source >= 0 ? share + v : share + u * n + v;
      if (u == v) {
        *target = 0.0;
        continue;
      }
      double value = 0.0;
      if (same_shift) {
        for (std::int64_t j = 0; j < r; ++j) {
          double sum = 0.0;
          for (int t = 0; t < rounds; ++t) sum = rn_add(sum, basis.column(j)[t * n + u]);
          value = rn_add(value, rn_mul(sum, sum));
        }
      } else {
        for (int s = 0; s < rounds; ++s)
          for (int t = 0; t < rounds; ++t) {
            double dot = 0.0;
            for (std::int64_t j = 0; j < r; ++j)
              dot = rn_add(dot, rn_mul(basis.column(j)[s * n + u], basis.column(j)[t * n + u]));
            value = rn_add(value, dot < 0.0 ? -dot : dot);
          }
      }
      // Q is orthonormal to rounding: ||P c||^2 <= ||c||^2 = T.
      *target = value < 0.0 ? 0.0 : (value > double(rounds) ? double(rounds) : value);
    }
    reports[v] = basis.report();
  }
};

}  // namespace netdp::kernels::muffliato_view
