#pragma once
// Single-source bodies of the CUDA random-walk accountant (kernels/cuda/walk_loss_cuda.cu; docs/walk_loss.md,
// docs/cuda_backend.md "Single-source bodies and the device-bodies tests"): every per-thread part of its
// element kernels, written once over plain pointers with the maths of common/walk_loss_math.hpp. The .cu file
// launches the 1-D bodies with cuda::for_each and the row bodies (v, j) with cuda::for_each_row
// (cuda/gossip_spmm.cuh); tests/backend/test_walk_loss_bodies.cpp runs the same code on the host
// (host_for_each, host_for_each_row) and compares it with the CPU backend (kernels/cpu/walk_loss_cpu.cpp).
//
// Layout: the series' and the Chebyshev solver's blocks are node-major (row-major n x cols, X[v cols + j]),
// the layout of the one sparse product (docs/cuda_backend.md "Node-major gossip engines"); the spectral
// methods' graph-term block is the GEMM's column-major n x cols. WalkLossesBody reads either through its
// strides and writes the column-major loss block: column j is row s + j of the row-major loss matrix, as the
// row staging hands it to the sink.
#include <cstdint>

#include "common/hd.hpp"
#include "common/rounding.hpp"
#include "common/walk_loss_math.hpp"

namespace netdp::kernels::walk_loss {

/// Spectral (E3) / finite (E2), element (i, r) (row body over n x b): out[r + i b] = V[first + r, i] g_i,
/// rows first .. first + b - 1 of V diag(g) as a column-major b x n block B (V column-major n x n; the lanes
/// of a row i take consecutive r, so reads and writes are both contiguous). A product only: the CPU's
/// `scaled`, transposed.
struct ScaleEigenvectorRowsBody {
  const double* v;
  const double* g;
  std::int64_t n, b, first;
  double* out;

  NETDP_HD void operator()(std::int64_t i, std::int64_t r) const {
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

/// Element (v, j) (row body over n x cols): out[v + j n] = walk_pair_loss(term) for source u = first + j,
/// term = G[v, j] (anonymous sender) or max_{w in N(v)} G[w, j] when v knows its sender (docs/math.md §5.4:
/// the last hop is post-processing; adj_offsets / adj are read only then); a node without neighbours gets
/// term 0, like the CPU backend. The max does not depend on the order: exact on both backends. G[w, j] is
/// graph[w row_stride + j lane_stride]: node-major (cols, 1) or column-major (1, n).
struct WalkLossesBody {
  const double* graph;
  std::int64_t row_stride, lane_stride;
  const std::int64_t* adj_offsets;
  const std::int32_t* adj;
  std::int64_t n, first;
  bool sender_known;
  double constant, scale;
  bool clip;
  double clip_level;
  double* out;

  NETDP_HD void operator()(std::int64_t v, std::int64_t j) const {
    const double* lane = graph + j * lane_stride;
    double t = lane[v * row_stride];
    if (sender_known) {
      const std::int64_t begin = adj_offsets[v], end = adj_offsets[v + 1];
      t = 0.0;
      for (std::int64_t e = begin; e < end; ++e) {
        const double g = lane[static_cast<std::int64_t>(adj[e]) * row_stride];
        t = e == begin || g > t ? g : t;
      }
    }
    out[v + j * n] = walk_pair_loss(t, constant, scale, clip, clip_level, v == first + j);
  }
};

}  // namespace netdp::kernels::walk_loss
