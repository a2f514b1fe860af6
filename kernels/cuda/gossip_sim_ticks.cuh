#pragma once
// Tick kernels of the CUDA randomized gossip (Alg 6.2, MATH_SPEC 2.2 / 6.3), included by
// gossip_sim_varying_cuda.cu. One thread per run walks the ticks as the CPU oracle's run_ticks
// (src/simulation/gossip_sim_varying.cpp) does: the same activation draw (the uniform of words 4 t, 4 t + 1
// of the stream gossip_subsequence(activation, run, 0), looked up by the shared activated_edge), the same
// averaging, and the same error bookkeeping: per-node errors, totals updated with the two changed nodes,
// re-summed in node order every n ticks, reported as total / n at the recorded ticks. Products and sums are
// rounded separately, so a start equal to the CPU's gives the same bits.
//
// Layout: column-major n x (D count) block, column c = b D + k (gossip_sim_common.cuh); per-node errors of
// run b at [b n + v]; totals of run b at [2 b] (to xbar) and [2 b + 1] (to the run's noisy average).
#include <cstdint>

#include "common/gossip_sim_math.hpp"
#include "common/philox.hpp"
#include "cuda/base/launch.cuh"
#include "netdp/core/graph.hpp"

namespace netdp::kernels {
namespace {

/// sum_k (x_vk - ref_k)^2 of node v of run b, as the CPU's node_error.
__device__ inline double tick_node_error(const double* x, std::int64_t n, int dim, std::int64_t b,
                                         std::int64_t v, const double* ref) {
  double sum = 0.0;
  for (int k = 0; k < dim; ++k) {
    const double d = __dsub_rn(x[v + (b * dim + k) * n], ref[k]);
    sum = __dadd_rn(sum, __dmul_rn(d, d));
  }
  return sum;
}

/// The totals afresh: sums of the per-node errors in node order.
__device__ inline void tick_resum(const double* err_true, const double* err_noisy, std::int64_t n,
                                  double& total_true, double& total_noisy) {
  total_true = total_noisy = 0.0;
  for (std::int64_t v = 0; v < n; ++v) {
    total_true += err_true[v];
    total_noisy += err_noisy[v];
  }
}

// Per-node errors and their totals at t = 0, one thread per run. `noisy_average` holds the run's D noisy
// averages at [b D + k].
__global__ void ticks_start(const double* x, std::int64_t n, int dim, std::int64_t count, const double* xbar,
                            const double* noisy_average, double* err_true, double* err_noisy,
                            double* totals) {
  for (std::int64_t b = cuda::global_thread(); b < count; b += cuda::grid_threads()) {
    double* run_true = err_true + b * n;
    double* run_noisy = err_noisy + b * n;
    for (std::int64_t v = 0; v < n; ++v) {
      run_true[v] = tick_node_error(x, n, dim, b, v, xbar);
      run_noisy[v] = tick_node_error(x, n, dim, b, v, noisy_average + b * dim);
    }
    tick_resum(run_true, run_noisy, n, totals[2 * b], totals[2 * b + 1]);
  }
}

/// What one launch of ticks_run needs besides the state.
struct TickArgs {
  std::int64_t n, first, count, edges, points;
  int dim;
  std::uint64_t seed, stream;  // stream = gossip_subsequence(activation, 0, 0); the run goes into bits 24..55
  const double* cumulative;    // p_0 + ... + p_e
  const node_t* edge_nodes;    // u_e, v_e
  const int* times;            // recorded t
  const double *xbar, *noisy_average;
};

// Ticks t0 + 1 .. t1 of every run (one thread per run); `point` = the index of the first recorded time > t0.
// Errors at recorded ticks go to truth / noisy[b points + point].
__global__ void ticks_run(TickArgs a, std::int64_t t0, std::int64_t t1, std::int64_t point, double* x,
                          double* err_true, double* err_noisy, double* totals, double* truth, double* noisy) {
  for (std::int64_t b = cuda::global_thread(); b < a.count; b += cuda::grid_threads()) {
    const std::uint64_t run = static_cast<std::uint64_t>(a.first + b);
    philox::Stream state(a.seed, a.stream | (run << 24), 4 * static_cast<std::uint64_t>(t0));
    double* run_true = err_true + b * a.n;
    double* run_noisy = err_noisy + b * a.n;
    const double* ref_noisy = a.noisy_average + b * a.dim;
    double total_true = totals[2 * b], total_noisy = totals[2 * b + 1];
    std::int64_t p = point;
    for (std::int64_t t = t0 + 1; t <= t1; ++t) {
      const double u = state.next_uniform_double();
      state.next_u32();  // tick t - 1 owns words 4 (t - 1) .. 4 (t - 1) + 3 and uses the first two
      state.next_u32();
      const std::int64_t e = activated_edge(a.cumulative, a.edges, u);
      if (e < a.edges) {
        const std::int64_t u = a.edge_nodes[2 * e], v = a.edge_nodes[2 * e + 1];
        for (int k = 0; k < a.dim; ++k) {
          double* column = x + (b * a.dim + k) * a.n;
          column[u] = column[v] = __dmul_rn(0.5, __dadd_rn(column[u], column[v]));
        }
        const std::int64_t changed[2] = {u, v};
        for (const std::int64_t node : changed) {
          const double et = tick_node_error(x, a.n, a.dim, b, node, a.xbar);
          const double en = tick_node_error(x, a.n, a.dim, b, node, ref_noisy);
          total_true += et - run_true[node];
          total_noisy += en - run_noisy[node];
          run_true[node] = et;
          run_noisy[node] = en;
        }
      }
      if (t % a.n == 0) tick_resum(run_true, run_noisy, a.n, total_true, total_noisy);
      if (p < a.points && a.times[p] == t) {
        truth[b * a.points + p] = total_true / static_cast<double>(a.n);
        noisy[b * a.points + p] = total_noisy / static_cast<double>(a.n);
        ++p;
      }
    }
    totals[2 * b] = total_true;
    totals[2 * b + 1] = total_noisy;
  }
}

}  // namespace
}  // namespace netdp::kernels
