#pragma once
// Single-source bodies of the CUDA random-walk accountant (kernels/cuda/walk_loss_cuda.cu; docs/walk_loss.md,
// docs/cuda_backend.md "Single-source bodies and the device-bodies tests"): every per-thread part of its
// element kernels, written once over plain pointers with the maths of common/walk_loss_math.hpp. The .cu file
// launches them with device_for_each (1-D) or cuda::device_for_each_2d (launch.cuh);
// tests/backend/test_walk_loss_bodies.cpp runs the same code on the host and compares it with the CPU backend
// (kernels/cpu/walk_loss_cpu.cpp).
//
// Layout: a tile of b sources s .. s + b - 1 ends as a column-major n x b block (ld = n) whose column j is
// the graph term G[s + j, :] (spectral) or s_{s+j}(.) (series); column j of the loss block is row s + j of
// the row-major loss matrix.
#include <cstdint>

#include "common/hd.hpp"
#include "common/propagation_bodies.hpp"
#include "common/rounding.hpp"
#include "common/walk_loss_math.hpp"

namespace netdp::kernels::walk_loss {

/// Spectral (E3) / finite (E2), element (r, i) (2-D body over b x n): out[r + i b] = V[first + r, i] g_i,
/// rows first .. first + b - 1 of V diag(g) as a column-major b x n block B (V column-major n x n; x walks r,
/// so reads and writes are both contiguous). A product only: the CPU's `scaled`, transposed.
struct ScaleEigenvectorRowsBody {
  const double* v;
  const double* g;
  std::int64_t n, b, first;
  double* out;

  NETDP_HD void operator()(std::int64_t r, std::int64_t i) const {
    out[r + i * b] = rn_mul(v[i * n + first + r], g[i]);
  }
};

/// Series (E1), element i of the n x cols block (1-D body): S += X (1/t), the t-th term (W^t e_u)_v / t of
/// docs/math.md §5.2. The product and the sum rounded separately, as the CPU (never one FMA on the device).
struct AccumulateSeriesBody {
  const double* x;
  double inverse_t;
  double* s;

  NETDP_HD void operator()(std::int64_t i) const { s[i] = rn_add(s[i], rn_mul(x[i], inverse_t)); }
};

/// Element (v, j) (2-D body over n x cols): out[v, j] = walk_pair_loss(term) for source u = first + j, term =
/// G[v, j] (anonymous sender) or max_{w in N(v)} G[w, j] when v knows its sender (docs/math.md §5.4: the last
/// hop is post-processing; adj_offsets / adj are read only then); a node without neighbours gets term 0, like
/// the CPU backend. The max does not depend on the order: exact on both backends.
struct WalkLossesBody {
  const double* term;
  const std::int64_t* adj_offsets;
  const std::int32_t* adj;
  std::int64_t n, first;
  bool sender_known;
  double constant, scale;
  bool clip;
  double clip_level;
  double* out;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const double* column = term + j * n;
    double t = column[v];
    if (sender_known) {
      const std::int64_t begin = adj_offsets[v], end = adj_offsets[v + 1];
      t = 0.0;
      if (begin < end) {
        t = column[adj[begin]];
        for (std::int64_t e = begin + 1; e < end; ++e) t = column[adj[e]] > t ? column[adj[e]] : t;
      }
    }
    out[v + j * n] = walk_pair_loss(t, constant, scale, clip, clip_level, v == first + j);
  }
};

}  // namespace netdp::kernels::walk_loss
