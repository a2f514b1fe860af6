#pragma once
// Round kernels of the CUDA gossip simulator's time-varying protocols with one matrix per round (MATH_SPEC
// 6.1 sequence, 6.8 dropout), included by gossip_sim_varying_cuda.cu. They mirror the CPU oracle
// (src/simulation/gossip_sim_varying.cpp `multiply`, src/simulation/gossip_sim_schedule.cpp
// `sample_dropout_round`, netdp::gossip_matrix): every output entry is summed in the CPU's CSR row order,
// products and sums rounded separately, so a state equal to the CPU's gives the same bits after the round.
//
// Layout: column-major n x (D count) blocks, column c = b D + k (gossip_sim_common.cuh).
#include <cstdint>

#include "common/gossip_sim_math.hpp"
#include "common/philox.hpp"
#include "cuda/base/launch.cuh"
#include "netdp/core/graph.hpp"

namespace netdp::kernels {
namespace {

// Sequence (MATH_SPEC 6.1): y = W_t x for every column, W_t in CSR (offsets rebased into the concatenated
// arrays of all rounds). One thread per (node, column); row order as the CPU's multiply.
__global__ void csr_multiply(const offset_t* offsets, const node_t* columns, const double* values,
                             std::int64_t n, std::int64_t cols, const double* x, double* y) {
  const std::int64_t total = n * cols;
  for (std::int64_t idx = cuda::global_thread(); idx < total; idx += cuda::grid_threads()) {
    const std::int64_t v = idx % n, c = idx / n;
    const double* column = x + c * n;
    double sum = 0.0;
    for (offset_t k = offsets[v]; k < offsets[v + 1]; ++k)
      sum = __dadd_rn(sum, __dmul_rn(values[k], column[columns[k]]));
    y[idx] = sum;
  }
}

// Dropout (MATH_SPEC 6.8), round `round`: node v of run first + b stays iff the uniform at offset 2 v of
// the stream gossip_subsequence(dropout, run, round) is >= q (the CPU draws the n uniforms in node order
// from offset 0, i.e. words 2 v and 2 v + 1). `round_stream` = gossip_subsequence(dropout, 0, round).
__global__ void dropout_mask(std::uint64_t seed, std::uint64_t round_stream, std::int64_t first,
                             std::int64_t count, std::int64_t n, double q, unsigned char* active) {
  const std::int64_t total = n * count;
  for (std::int64_t idx = cuda::global_thread(); idx < total; idx += cuda::grid_threads()) {
    const std::int64_t b = idx / n, v = idx % n;
    const std::uint64_t run = static_cast<std::uint64_t>(first + b);
    philox::Stream state(seed, round_stream | (run << 24), 2 * static_cast<std::uint64_t>(v));
    active[idx] = state.next_uniform_double() < q ? 0 : 1;
  }
}

// d'_v: the number of active neighbours of an active node v (0 for a dropped node), the degree of v in the
// round's graph. One thread per (run, node).
__global__ void active_degrees(const offset_t* offsets, const node_t* adjacency, std::int64_t n,
                               std::int64_t count, const unsigned char* active, std::int32_t* degree) {
  const std::int64_t total = n * count;
  for (std::int64_t idx = cuda::global_thread(); idx < total; idx += cuda::grid_threads()) {
    const std::int64_t b = idx / n, v = idx % n;
    const unsigned char* run_active = active + b * n;
    std::int32_t d = 0;
    if (run_active[v])
      for (offset_t k = offsets[v]; k < offsets[v + 1]; ++k) d += run_active[adjacency[k]];
    degree[idx] = d;
  }
}

/// Row v of W x for W the W-MH matrix of a graph (MATH_SPEC 2.2), built on the fly in the order of
/// gossip_matrix: the neighbours u of v in adjacency[begin, end) with present(u), the diagonal
/// W_vv = cap + sum_u (cap - W_vu) inserted before the first neighbour u > v (skipped when exactly 0), an
/// isolated node keeping its value (W_vv = 1). degree[u] = d_u in the graph; products and sums rounded
/// separately, as the CPU's multiply.
template <class Present>
__device__ double wmh_row(const node_t* adjacency, offset_t begin, offset_t end, std::int64_t v,
                          const std::int32_t* degree, Present present, const double* column) {
  const double xv = column[v];
  const std::int32_t dv = degree[v];
  if (dv == 0) return __dadd_rn(0.0, xv);  // the CPU's 0 + 1 * x_v
  double diagonal = 1.0 / (1.0 + dv);
  for (offset_t k = begin; k < end; ++k)
    if (present(adjacency[k]))
      diagonal = __dadd_rn(diagonal, metropolis_diagonal_term(dv, degree[adjacency[k]]));
  bool diagonal_done = diagonal == 0.0;
  double sum = 0.0;
  for (offset_t k = begin; k < end; ++k) {
    const node_t u = adjacency[k];
    if (!present(u)) continue;
    if (!diagonal_done && u > v) {
      sum = __dadd_rn(sum, __dmul_rn(diagonal, xv));
      diagonal_done = true;
    }
    sum = __dadd_rn(sum, __dmul_rn(metropolis_weight(dv, degree[u]), column[u]));
  }
  if (!diagonal_done) sum = __dadd_rn(sum, __dmul_rn(diagonal, xv));
  return sum;
}

// y = W_t x with W_t the W-MH matrix of the round's graph: the base graph without the dropped nodes' edges
// (a dropped node has degree 0 and keeps its value). One thread per (node, column).
__global__ void dropout_step(const offset_t* offsets, const node_t* adjacency, std::int64_t n, int dim,
                             std::int64_t count, const unsigned char* active, const std::int32_t* degree,
                             const double* x, double* y) {
  const std::int64_t total = n * count * dim;
  for (std::int64_t idx = cuda::global_thread(); idx < total; idx += cuda::grid_threads()) {
    const std::int64_t v = idx % n, c = idx / n, b = c / dim;
    const unsigned char* run_active = active + b * n;
    const auto present = [run_active](node_t u) { return run_active[u] != 0; };
    y[idx] = wmh_row(adjacency, offsets[v], offsets[v + 1], v, degree + b * n, present, x + c * n);
  }
}

}  // namespace
}  // namespace netdp::kernels
