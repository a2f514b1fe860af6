#pragma once
// Single-source bodies of the CUDA gossip simulator (docs/gossip_sim.md "On a GPU", docs/cuda_backend.md
// "Single-source bodies and the device-bodies tests"): every per-thread body of
// kernels/cuda/gossip_sim_cuda.cu, gossip_sim_varying_cuda.cu and their headers, written once over plain
// pointers. The CUDA files launch them with device_for_each (common/for_each.hpp) or, for the column
// reductions, inside their block-tree kernels; tests/backend/test_gossip_sim_bodies.cpp runs the same code on
// the host and compares it with the CPU engine (src/simulation/gossip_sim*.cpp).
//
// Layout: the states of a batch of `count` runs form one column-major n x (D count) block X (ld = n), column
// c = b D + k is coordinate k of run first + b, so X[v + c n] is entry v D + k of the CPU's row-major n x D
// state of that run. Products and sums that the docs promise to round as the CPU does are written with
// rn_mul / rn_add / rn_sub (common/rounding.hpp): never contracted into an FMA on the device.
#include <cmath>
#include <cstdint>

#include "common/for_each.hpp"
#include "common/gossip_sim_math.hpp"
#include "common/hd.hpp"
#include "common/philox.hpp"
#include "common/rounding.hpp"
#include "netdp/ground/types.hpp"

namespace netdp::kernels::gossip {

// ---- the noisy start and the per-column reductions (launched by gossip_sim_common.cuh) ----

/// x^0 = x + sigma eta (Alg 6.1, docs/math.md §6.1) for runs first .. first + count - 1, index = (run b,
/// pair): value i = v D + k takes member i % 2 of the Box-Muller pair i / 2, drawn at offset 4 (i / 2) of the
/// stream noise_stream | run << 24 (the CPU's add_normals), x_i + sigma z rounded as the CPU rounds it.
struct NoisyStartBody {
  const double* x;
  std::int64_t n;
  int dim;
  double sigma;
  std::uint64_t seed, noise_stream;  // noise_stream = gossip_subsequence(noise, 0, 0)
  std::int64_t first;
  double* out;

  NETDP_HD std::int64_t pairs() const { return (n * dim + 1) / 2; }
  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t values = n * dim, b = idx / pairs(), pair = idx % pairs();
    const philox::NormalPair z = draw(b, pair);
    for (int m = 0; m < 2; ++m) {
      const std::int64_t i = 2 * pair + m;  // row-major index v D + k of the CPU state
      if (i >= values) break;
      const std::int64_t v = i / dim, column = b * dim + i % dim;
      out[v + column * n] = value(i, m, z);
    }
  }

  /// Every pair of run b in order (the CPU twin's loop, one run per thread): the values of operator() over
  /// b's pairs, the indices counted instead of divided.
  NETDP_HD void run(std::int64_t b) const {
    const std::int64_t values = n * dim;
    std::int64_t v = 0;
    int k = 0;
    for (std::int64_t pair = 0; pair < pairs(); ++pair) {
      const philox::NormalPair z = draw(b, pair);
      for (int m = 0; m < 2 && 2 * pair + m < values; ++m) {
        out[v + (b * dim + k) * n] = value(2 * pair + m, m, z);
        if (++k == dim) {
          k = 0;
          ++v;
        }
      }
    }
  }

  /// Box-Muller pair `pair` of run first + b (no draw without noise).
  NETDP_HD philox::NormalPair draw(std::int64_t b, std::int64_t pair) const {
    philox::NormalPair z;
    if (sigma > 0.0) {
      const auto run = static_cast<std::uint64_t>(first + b);
      philox::Stream s(seed, noise_stream | (run << 24), 4 * static_cast<std::uint64_t>(pair));
      z = s.next_normal_pair();
    }
    return z;
  }
  /// x_i + sigma z, member m of the pair, rounded as the CPU rounds it.
  NETDP_HD double value(std::int64_t i, int m, const philox::NormalPair& z) const {
    return sigma > 0.0 ? rn_add(x[i], rn_mul(sigma, m == 0 ? z.first : z.second)) : x[i];
  }
};

/// One level of the fixed halving tree: partial[tid] += partial[tid + stride] for tid < stride. The device
/// runs stride = threads / 2, ..., 1 with a barrier between levels; tree_sum below is the same on the host.
NETDP_HD inline void tree_level(double* partial, int tid, int stride) {
  if (tid < stride) partial[tid] += partial[tid + stride];
}

/// partial[0 .. threads) summed by the block tree (threads a power of two), in partial[0]: the host's run of
/// the device's reduction.
inline double tree_sum(double* partial, int threads) {
  for (int stride = threads / 2; stride > 0; stride /= 2)
    for (int tid = 0; tid < stride; ++tid) tree_level(partial, tid, stride);
  return partial[0];
}

/// e(t) of run b: the D column sums in coordinate order, divided by n (GossipSimResult), stored at
/// [b points + point] like the CPU's BatchErrors.
struct RunErrorsBody {
  const double *col_true, *col_noisy;
  int dim;
  std::int64_t n, point, points;
  double *truth, *noisy;

  NETDP_HD void operator()(std::int64_t b) const {
    double sum_true = 0.0, sum_noisy = 0.0;
    for (int k = 0; k < dim; ++k) {
      sum_true += col_true[b * dim + k];
      sum_noisy += col_noisy[b * dim + k];
    }
    truth[b * points + point] = sum_true / static_cast<double>(n);
    noisy[b * points + point] = sum_noisy / static_cast<double>(n);
  }
};

// ---- fixed W (gossip_sim_cuda.cu) ----

/// Chebyshev step (docs/math.md §2.4), element i: y = gamma (W x) + (1 - gamma) prev, y holding W x on entry,
/// one_minus_gamma = the CPU's (1.0 - gamma); two products and a sum rounded separately, as the CPU.
struct ChebyshevBody {
  double* y;
  const double* prev;
  double gamma, one_minus_gamma;

  NETDP_HD void operator()(std::int64_t i) const {
    y[i] = rn_add(rn_mul(gamma, y[i]), rn_mul(one_minus_gamma, prev[i]));
  }
};

// ---- sequence and dropout (launched by gossip_sim_varying_cuda.cu) ----

/// Sequence (docs/math.md §6.1), element (node v, column c) at idx = c n + v: y = W_t x summed in CSR row
/// order from 0, products and sums rounded separately (the CPU's multiply).
struct CsrMultiplyBody {
  const offset_t* offsets;
  const node_t* columns;
  const double* values;
  std::int64_t n;
  const double* x;
  double* y;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t v = idx % n, c = idx / n;
    const double* column = x + c * n;
    double sum = 0.0;
    for (offset_t k = offsets[v]; k < offsets[v + 1]; ++k)
      sum = rn_add(sum, rn_mul(values[k], column[columns[k]]));
    y[idx] = sum;
  }
};

/// Dropout (docs/math.md §6.8), (run b, node v) at idx = b n + v: v stays iff the uniform at offset 2 v of
/// the stream round_stream | run << 24 is >= q (the CPU draws the n uniforms in node order from offset 0,
/// i.e. words 2 v and 2 v + 1). round_stream = gossip_subsequence(dropout, 0, round).
struct DropoutMaskBody {
  std::uint64_t seed, round_stream;
  std::int64_t first, n;
  double q;
  unsigned char* active;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t b = idx / n, v = idx % n;
    const auto run = static_cast<std::uint64_t>(first + b);
    philox::Stream s(seed, round_stream | (run << 24), 2 * static_cast<std::uint64_t>(v));
    active[idx] = s.next_uniform_double() < q ? 0 : 1;
  }
};

/// d'_v, (run b, node v) at idx = b n + v: the number of active neighbours of an active v (0 for a dropped
/// node), its degree in the round's graph.
struct ActiveDegreesBody {
  const offset_t* offsets;
  const node_t* adjacency;
  std::int64_t n;
  const unsigned char* active;
  std::int32_t* degree;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t b = idx / n, v = idx % n;
    const unsigned char* run_active = active + b * n;
    std::int32_t d = 0;
    if (run_active[v])
      for (offset_t k = offsets[v]; k < offsets[v + 1]; ++k) d += run_active[adjacency[k]];
    degree[idx] = d;
  }
};

/// Neighbours present in a dropout round: the active ones of the run.
struct ActiveNeighbours {
  const unsigned char* active;
  NETDP_HD bool operator()(node_t u) const { return active[u] != 0; }
};
/// Neighbours present in an er-per-round graph: all of them.
struct AllNeighbours {
  NETDP_HD bool operator()(node_t) const { return true; }
};

/// wmh_row for `count` <= L columns at once (column j at x + j ld), into out[j]: the diagonal and every
/// weight computed once for the columns, each column summed exactly as wmh_row sums it (the CPU twin's loop:
/// D > 1 without D times the divisions).
template <int L, class Present>
NETDP_HD void wmh_rows(const node_t* adjacency, offset_t begin, offset_t end, std::int64_t v,
                       const std::int32_t* degree, Present present, const double* x, std::int64_t ld,
                       int count, double* out) {
  const std::int32_t dv = degree[v];
  if (dv == 0) {  // the CPU's 0 + 1 * x_v
    for (int j = 0; j < count; ++j) out[j] = rn_add(0.0, x[v + j * ld]);
    return;
  }
  double diagonal = 1.0 / (1.0 + dv);
  for (offset_t k = begin; k < end; ++k)
    if (present(adjacency[k]))
      diagonal = rn_add(diagonal, metropolis_diagonal_term(dv, degree[adjacency[k]]));
  bool diagonal_done = diagonal == 0.0;
  double sum[L] = {};
  for (offset_t k = begin; k < end; ++k) {
    const node_t u = adjacency[k];
    if (!present(u)) continue;
    if (!diagonal_done && u > v) {
      for (int j = 0; j < count; ++j) sum[j] = rn_add(sum[j], rn_mul(diagonal, x[v + j * ld]));
      diagonal_done = true;
    }
    const double weight = metropolis_weight(dv, degree[u]);
    for (int j = 0; j < count; ++j) sum[j] = rn_add(sum[j], rn_mul(weight, x[u + j * ld]));
  }
  if (!diagonal_done)
    for (int j = 0; j < count; ++j) sum[j] = rn_add(sum[j], rn_mul(diagonal, x[v + j * ld]));
  for (int j = 0; j < count; ++j) out[j] = sum[j];
}

/// Row v of W x for W the W-MH matrix of a graph (docs/math.md §2.2), built on the fly in the order of
/// gossip_matrix: the neighbours u of v in adjacency[begin, end) with present(u), the diagonal
/// W_vv = cap + sum_u (cap - W_vu) inserted before the first neighbour u > v (skipped when exactly 0), an
/// isolated node keeping its value (W_vv = 1). degree[u] = d_u in the graph; products and sums rounded
/// separately, as the CPU's multiply.
template <class Present>
NETDP_HD double wmh_row(const node_t* adjacency, offset_t begin, offset_t end, std::int64_t v,
                        const std::int32_t* degree, Present present, const double* column) {
  double out;
  wmh_rows<1>(adjacency, begin, end, v, degree, present, column, 0, 1, &out);
  return out;
}

/// Dropout round, element (node v, column c) at idx = c n + v: y = W_t x with W_t the W-MH matrix of the
/// base graph without the dropped nodes' edges (a dropped node has degree 0 and keeps its value).
struct DropoutStepBody {
  const offset_t* offsets;
  const node_t* adjacency;
  std::int64_t n;
  int dim;
  const unsigned char* active;
  const std::int32_t* degree;
  const double* x;
  double* y;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t v = idx % n, c = idx / n, b = c / dim;
    y[idx] = wmh_row(adjacency, offsets[v], offsets[v + 1], v, degree + b * n,
                     ActiveNeighbours{active + b * n}, x + c * n);
  }

  /// Every column of node v of run b (the CPU twin's loop, wmh_rows): the elements operator() writes.
  NETDP_HD void node(std::int64_t b, std::int64_t v) const {
    for (int c0 = 0; c0 < dim; c0 += 8) {
      const int count = dim - c0 < 8 ? dim - c0 : 8;
      double out[8];
      const std::int64_t first = (b * dim + c0) * n;
      wmh_rows<8>(adjacency, offsets[v], offsets[v + 1], v, degree + b * n, ActiveNeighbours{active + b * n},
                  x + first, n, count, out);
      for (int j = 0; j < count; ++j) y[first + j * n + v] = out[j];
    }
  }
};

// ---- er-per-round (launched by gossip_sim_varying_cuda.cu; docs/math.md §6.4) ----

inline constexpr int kErMaxAttempts = 1000;                                // as sample_er_round
inline constexpr std::uint64_t kErAttemptStride = std::uint64_t{1} << 40;  // words reserved for one attempt

/// Per-run scratch (run b): pairs[2 b cap ..) (u, v), adjacency[2 b cap ..), offsets[b (n + 1) ..),
/// degree[b n ..), parent[b n ..) (union-find, then the fill cursor), status[b]: 0, or 4 (round + 1) + code
/// with code 1 = more than cap edges, 2 = disconnected in every attempt (the first failure is kept).
struct ErScratch {
  std::int32_t *pairs, *adjacency, *degree, *parent, *status;
  offset_t* offsets;
  std::int64_t cap;  // edges a run may hold in one round
};

NETDP_HD inline std::int32_t er_root(std::int32_t* parent, std::int32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];  // path halving
    v = parent[v];
  }
  return v;
}

/// The geometric skip of one G(n, q) draw: floor(ln U / ln(1 - q)) absent pairs before the next edge
/// (log_absent = log1p(-q) from the host), 0 for q = 1 (no word read).
NETDP_HD inline double er_skip(philox::Stream& s, double q, double log_absent) {
  if (!(q < 1.0)) return 0.0;
  return std::floor(std::log(s.next_uniform_double()) / log_absent);
}

/// Round `round` of run first + b: a connected G(n, q) drawn exactly as the CPU's sample_er_round (attempt a
/// reads the stream round_stream | run << 24 from offset a 2^40, one uniform per geometric skip over the
/// pairs (u, v), u < v, row by row; a disconnected draw is redrawn, at most 1000 times), then its CSR rows
/// as graph_from_sorted_pairs builds them (sorted rows). round_stream = gossip_subsequence(er_graph, 0,
/// round). With `active` (dropout-er, docs/math.md §6.8: the run's mask at [b n ..), DropoutMaskBody),
/// the CPU's sample_dropout_er_round instead: attempt 0 only, no connectivity test, and the pairs with a
/// dropped end are not kept.
struct ErSampleBody {
  std::uint64_t seed, round_stream;
  int round;
  std::int64_t first, n;
  double q, log_absent;
  ErScratch s;
  const unsigned char* active = nullptr;  // dropout-er's masks; nullptr for er-per-round

  NETDP_HD void operator()(std::int64_t b) const {
    std::int32_t* pairs = s.pairs + 2 * b * s.cap;
    std::int32_t* parent = s.parent + b * n;
    std::int32_t* degree = s.degree + b * n;
    const auto run = static_cast<std::uint64_t>(first + b);
    const std::int64_t total = n * (n - 1) / 2;
    std::int64_t edges = 0;
    bool connected = false, overflow = false;
    const bool failed = s.status[b] != 0;  // an earlier round failed: the host throws after the batch
    const unsigned char* run_active = active ? active + b * n : nullptr;
    const int attempts = active ? 1 : kErMaxAttempts;
    for (int attempt = 0; attempt < attempts && !connected && !overflow && !failed; ++attempt) {
      philox::Stream stream(seed, round_stream | (run << 24),
                            static_cast<std::uint64_t>(attempt) * kErAttemptStride);
      edges = 0;
      std::int64_t index = -1, u = 0, v = 0;  // (u, v) = pair `index`
      while (q > 0.0 && total > 0) {
        const double skip = er_skip(stream, q, log_absent);
        if (!(skip < static_cast<double>(total - 1 - index))) break;
        advance_pair(static_cast<std::int64_t>(skip) + 1, n, index, u, v);
        if (run_active && !(run_active[u] && run_active[v])) continue;  // a dropped end: the edge is gone
        if (edges == s.cap) {
          overflow = true;
          break;
        }
        pairs[2 * edges] = static_cast<std::int32_t>(u);
        pairs[2 * edges + 1] = static_cast<std::int32_t>(v);
        ++edges;
      }
      if (overflow) break;
      if (run_active) {  // dropout-er: any graph will do (the thesis forces no connectivity)
        connected = true;
        break;
      }
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
    // CSR rows as graph_from_sorted_pairs: counts, prefix sums, then the pairs in order.
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
};

/// Er-per-round and dropout-er step, element (node v, column c) at idx = c n + v: y = W_t x with W_t the
/// W-MH matrix of the run's round graph (isolated nodes keep their value).
struct ErStepBody {
  ErScratch s;
  std::int64_t n;
  int dim;
  const double* x;
  double* y;

  NETDP_HD void operator()(std::int64_t idx) const {
    const std::int64_t v = idx % n, c = idx / n, b = c / dim;
    const offset_t* offsets = s.offsets + b * (n + 1);
    y[idx] = wmh_row(s.adjacency + 2 * b * s.cap, offsets[v], offsets[v + 1], v, s.degree + b * n,
                     AllNeighbours{}, x + c * n);
  }

  /// Every column of node v of run b (the CPU twin's loop, wmh_rows): the elements operator() writes.
  NETDP_HD void node(std::int64_t b, std::int64_t v) const {
    const offset_t* offsets = s.offsets + b * (n + 1);
    for (int c0 = 0; c0 < dim; c0 += 8) {
      const int count = dim - c0 < 8 ? dim - c0 : 8;
      double out[8];
      const std::int64_t first = (b * dim + c0) * n;
      wmh_rows<8>(s.adjacency + 2 * b * s.cap, offsets[v], offsets[v + 1], v, s.degree + b * n,
                  AllNeighbours{}, x + first, n, count, out);
      for (int j = 0; j < count; ++j) y[first + j * n + v] = out[j];
    }
  }
};

// ---- randomized gossip (launched by gossip_sim_varying_cuda.cu; Alg 6.2, docs/math.md §2.2, §6.3) ----
// Per-node errors of run b at [b n + v]; totals of run b at [2 b] (to xbar) and [2 b + 1] (to the run's noisy
// average).

/// sum_k (x_vk - ref_k)^2 of node v of run b, as the CPU's node_error.
NETDP_HD inline double tick_node_error(const double* x, std::int64_t n, int dim, std::int64_t b,
                                       std::int64_t v, const double* ref) {
  double sum = 0.0;
  for (int k = 0; k < dim; ++k) {
    const double d = rn_sub(x[v + (b * dim + k) * n], ref[k]);
    sum = rn_add(sum, rn_mul(d, d));
  }
  return sum;
}

/// The totals afresh: sums of the per-node errors in node order.
NETDP_HD inline void tick_resum(const double* err_true, const double* err_noisy, std::int64_t n,
                                double& total_true, double& total_noisy) {
  total_true = total_noisy = 0.0;
  for (std::int64_t v = 0; v < n; ++v) {
    total_true += err_true[v];
    total_noisy += err_noisy[v];
  }
}

/// The activations of one run from tick t0 on: tick t uses the uniform of words 4 t, 4 t + 1 of the stream
/// activation_stream | run << 24 (words 4 t + 2, 4 t + 3 unused), looked up in the cumulative p_e by the
/// shared activated_edge; `edges` for an idle tick (the CPU's ActivationSampler::draw).
struct TickDraws {
  philox::Stream words;
  NETDP_HD TickDraws(std::uint64_t seed, std::uint64_t activation_stream, std::uint64_t run, std::int64_t t0)
      : words(seed, activation_stream | (run << 24), 4 * static_cast<std::uint64_t>(t0)) {}
  NETDP_HD std::int64_t next(const double* cumulative, std::int64_t edges) {
    const double u = words.next_uniform_double();
    words.next_u32();  // tick t owns words 4 t .. 4 t + 3 and uses the first two
    words.next_u32();
    return activated_edge(cumulative, edges, u);
  }
};

/// Run b at t = 0: per-node errors and their totals. noisy_average holds the run's D noisy averages at
/// [b D + k].
struct TicksStartBody {
  const double* x;
  std::int64_t n;
  int dim;
  const double *xbar, *noisy_average;
  double *err_true, *err_noisy, *totals;

  NETDP_HD void operator()(std::int64_t b) const {
    double* run_true = err_true + b * n;
    double* run_noisy = err_noisy + b * n;
    for (std::int64_t v = 0; v < n; ++v) {
      run_true[v] = tick_node_error(x, n, dim, b, v, xbar);
      run_noisy[v] = tick_node_error(x, n, dim, b, v, noisy_average + b * dim);
    }
    tick_resum(run_true, run_noisy, n, totals[2 * b], totals[2 * b + 1]);
  }
};

/// What a chunk of ticks needs besides the state.
struct TickArgs {
  std::int64_t n, first, count, edges, points;
  int dim;
  std::uint64_t seed, stream;  // stream = gossip_subsequence(activation, 0, 0); the run goes into bits 24..55
  const double* cumulative;    // p_0 + ... + p_e
  const node_t* edge_nodes;    // u_e, v_e
  const int* times;            // recorded t
  const double *xbar, *noisy_average;
};

/// Ticks t0 + 1 .. t1 of run b (the CPU's run_ticks): the activated edge's endpoints average, their errors
/// replace theirs in the totals, the totals are re-summed every n ticks, and at the recorded ticks total / n
/// goes to truth / noisy[b points + p] (`point` = the index of the first recorded time > t0).
struct TicksRunBody {
  TickArgs a;
  std::int64_t t0, t1, point;
  double *x, *err_true, *err_noisy, *totals, *truth, *noisy;

  NETDP_HD void operator()(std::int64_t b) const {
    TickDraws draws(a.seed, a.stream, static_cast<std::uint64_t>(a.first + b), t0);
    double* run_true = err_true + b * a.n;
    double* run_noisy = err_noisy + b * a.n;
    const double* ref_noisy = a.noisy_average + b * a.dim;
    double total_true = totals[2 * b], total_noisy = totals[2 * b + 1];
    std::int64_t p = point;
    for (std::int64_t t = t0 + 1; t <= t1; ++t) {
      const std::int64_t e = draws.next(a.cumulative, a.edges);  // tick t - 1 of the stream
      if (e < a.edges) {
        const std::int64_t u = a.edge_nodes[2 * e], v = a.edge_nodes[2 * e + 1];
        for (int k = 0; k < a.dim; ++k) {
          double* column = x + (b * a.dim + k) * a.n;
          column[u] = column[v] = rn_mul(0.5, rn_add(column[u], column[v]));
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
};

}  // namespace netdp::kernels::gossip
