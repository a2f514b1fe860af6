#pragma once
// Er-per-round on the device (MATH_SPEC 6.4), included by gossip_sim_varying_cuda.cu. Per round, one thread
// per run draws a connected G(n, q) exactly as the CPU oracle's sample_er_round
// (src/simulation/gossip_sim_schedule.cpp): attempt a reads the Philox stream (seed,
// gossip_subsequence(er_graph, run, round), a 2^40), one uniform (two words) per geometric skip floor(ln U /
// ln(1 - q)) over the pairs (u, v), u < v, row by row; a disconnected draw (union-find) is redrawn, at most
// 1000 times. The only difference from the CPU is the device's log (within 1 ulp of the host's), which could
// move a skip when ln U / ln(1 - q) lies within an ulp of an integer (probability about 2^-52 per skip). The
// pairs become a CSR graph as graph_from_sorted_pairs builds it (sorted rows), and er_step applies its W-MH
// with the shared wmh_row.
//
// Per-run scratch (run b): pairs[2 b cap ..) (u, v), adjacency[2 b cap ..), offsets[b (n + 1) ..),
// degree[b n ..), parent[b n ..) (union-find, then the fill cursor), status[b]: 0, or 4 (round + 1) + code
// with code 1 = more than cap edges, 2 = disconnected in every attempt (the first failure is kept).
#include <cstdint>

#include "common/philox.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/gossip_sim_rounds.cuh"  // wmh_row
#include "netdp/core/graph.hpp"

namespace netdp::kernels {
namespace {

constexpr int kErMaxAttempts = 1000;                                // as sample_er_round
constexpr std::uint64_t kErAttemptStride = std::uint64_t{1} << 40;  // words reserved for one attempt

struct ErScratch {
  std::int32_t *pairs, *adjacency, *degree, *parent, *status;
  offset_t* offsets;
  std::int64_t cap;  // edges a run may hold in one round
};

__device__ inline std::int32_t er_root(std::int32_t* parent, std::int32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];  // path halving
    v = parent[v];
  }
  return v;
}

// Round `round` of runs first .. first + count - 1. `round_stream` = gossip_subsequence(er_graph, 0, round);
// log_absent = log1p(-q) from the host (the CPU's value).
__global__ void er_sample(std::uint64_t seed, std::uint64_t round_stream, int round, std::int64_t first,
                          std::int64_t count, std::int64_t n, double q, double log_absent, ErScratch s) {
  for (std::int64_t b = cuda::global_thread(); b < count; b += cuda::grid_threads()) {
    std::int32_t* pairs = s.pairs + 2 * b * s.cap;
    std::int32_t* parent = s.parent + b * n;
    std::int32_t* degree = s.degree + b * n;
    const std::uint64_t run = static_cast<std::uint64_t>(first + b);
    const std::int64_t total = n * (n - 1) / 2;
    std::int64_t edges = 0;
    bool connected = false, overflow = false;
    const bool failed = s.status[b] != 0;  // an earlier round failed: the host throws after the batch
    for (int attempt = 0; attempt < kErMaxAttempts && !connected && !overflow && !failed; ++attempt) {
      philox::Stream state(seed, round_stream | (run << 24),
                           static_cast<std::uint64_t>(attempt) * kErAttemptStride);
      edges = 0;
      std::int64_t index = -1, u = 0, v = 0;  // (u, v) = pair `index`
      while (q > 0.0 && total > 0) {
        double skip = 0.0;
        if (q < 1.0) {
          skip = floor(log(state.next_uniform_double()) / log_absent);
        }
        if (!(skip < static_cast<double>(total - 1 - index))) break;
        advance_pair(static_cast<std::int64_t>(skip) + 1, n, index, u, v);
        if (edges == s.cap) {
          overflow = true;
          break;
        }
        pairs[2 * edges] = static_cast<std::int32_t>(u);
        pairs[2 * edges + 1] = static_cast<std::int32_t>(v);
        ++edges;
      }
      if (overflow) break;
      for (std::int64_t i = 0; i < n; ++i) parent[i] = static_cast<std::int32_t>(i);
      std::int64_t components = n;
      for (std::int64_t e = 0; e < edges; ++e) {
        const std::int32_t ru = er_root(parent, pairs[2 * e]), rv = er_root(parent, pairs[2 * e + 1]);
        if (ru != rv) {
          parent[ru] = rv;
          --components;
        }
      }
      connected = components <= 1;
    }
    if (!connected && !failed) s.status[b] = 4 * (round + 1) + (overflow ? 1 : 2);
    if (!connected) edges = 0;  // the run's result is discarded (the host throws); keep the state finite
    // CSR rows as graph_from_sorted_pairs: counts, prefix sums, then the pairs in order (rows come out
    // sorted).
    offset_t* offsets = s.offsets + b * (n + 1);
    std::int32_t* adjacency = s.adjacency + 2 * b * s.cap;
    for (std::int64_t i = 0; i < n; ++i) degree[i] = 0;
    for (std::int64_t e = 0; e < 2 * edges; ++e) ++degree[pairs[e]];
    offsets[0] = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      offsets[i + 1] = offsets[i] + degree[i];
      parent[i] = static_cast<std::int32_t>(offsets[i]);  // fill cursor
    }
    for (std::int64_t e = 0; e < edges; ++e) {
      const std::int32_t u = pairs[2 * e], v = pairs[2 * e + 1];
      adjacency[parent[u]++] = v;
      adjacency[parent[v]++] = u;
    }
  }
}

// y = W_t x with W_t the W-MH matrix of each run's round graph. One thread per (node, column).
__global__ void er_step(ErScratch s, std::int64_t n, int dim, std::int64_t count, const double* x,
                        double* y) {
  const std::int64_t total = n * count * dim;
  const auto present = [](node_t) { return true; };
  for (std::int64_t idx = cuda::global_thread(); idx < total; idx += cuda::grid_threads()) {
    const std::int64_t v = idx % n, c = idx / n, b = c / dim;
    const offset_t* offsets = s.offsets + b * (n + 1);
    y[idx] = wmh_row(s.adjacency + 2 * b * s.cap, offsets[v], offsets[v + 1], v, s.degree + b * n, present,
                     x + c * n);
  }
}

}  // namespace
}  // namespace netdp::kernels
