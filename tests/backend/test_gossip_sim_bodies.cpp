// The CUDA gossip simulator's single-source bodies (kernels/common/gossip_sim_bodies.hpp) run on the host,
// through the source the GPU compiles, against the CPU engine (gossip_sim_trajectory,
// sample_dropout_round, sample_er_round, ActivationSampler): drop masks, degrees, sampled G(n, q) graphs,
// activation sequences and every state after a round or tick exactly; the noise exactly (0 ulps on the host,
// where Box-Muller uses the CPU's libm; on a GPU a few ulps of log / sin / cos, bounded by
// test_gossip_sim_cuda); the column reductions, whose fixed block tree sums in another order than the CPU's
// node loop, within (n + 16) ulps of the sum of the magnitudes. Label device-bodies: no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/for_each.hpp"
#include "common/gossip_sim_bodies.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp {
namespace {

namespace gossip = kernels::gossip;
using gossip_sim_detail::ActivationSampler;

GossipSimParams params(GossipProtocol protocol, int dim, std::int64_t runs, int steps) {
  GossipSimParams p;
  p.protocol = protocol;
  p.dim = dim;
  p.init.kind = InitKind::normal;
  p.runs = runs;
  p.steps = steps;
  p.sigma = 0.5;
  p.seed = 977;
  p.dropout = 0.3;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

/// Runs first .. first + count - 1 of p's row-major n x D states (one vector per run) as the device's
/// column-major n x (D count) block.
std::vector<double> to_block(const std::vector<std::vector<double>>& states, node_t n, int dim) {
  std::vector<double> block(states.size() * static_cast<std::size_t>(n) * dim);
  for (std::size_t b = 0; b < states.size(); ++b)
    for (node_t v = 0; v < n; ++v)
      for (int k = 0; k < dim; ++k)
        block[v + (b * dim + k) * n] = states[b][static_cast<std::size_t>(v) * dim + k];
  return block;
}

/// Run b's row-major state out of a column-major block.
std::vector<double> run_state(const std::vector<double>& block, std::size_t b, node_t n, int dim) {
  std::vector<double> state(static_cast<std::size_t>(n) * dim);
  for (node_t v = 0; v < n; ++v)
    for (int k = 0; k < dim; ++k) state[static_cast<std::size_t>(v) * dim + k] = block[v + (b * dim + k) * n];
  return state;
}

/// The CPU's states x^t of runs 0 .. runs - 1 at every recorded t (record_every must be 1 for per-round
/// checks): trajectories[run][t].
std::vector<std::vector<std::vector<double>>> cpu_trajectories(const Graph& g, const CsrMatrix& w,
                                                               const GossipSimParams& p) {
  const std::vector<double> x = initial_values(g.n, p);
  std::vector<std::vector<std::vector<double>>> out;
  for (std::int64_t run = 0; run < p.runs; ++run) out.push_back(gossip_sim_trajectory(g, w, x, p, run));
  return out;
}

/// The states of every run at recorded point `point`, as one column-major block.
std::vector<double> block_at(const std::vector<std::vector<std::vector<double>>>& t, std::size_t point,
                             node_t n, int dim) {
  std::vector<std::vector<double>> states;
  for (const auto& run : t) states.push_back(run[point]);
  return to_block(states, n, dim);
}

// ---- Philox streams and the noise ----

TEST(GossipSimBodies, NoisyStartIsTheCpusNoise) {
  const Graph g = erdos_renyi_graph(41, 0.15, 8);  // n D odd for D = 1, 3: the last pair is half used
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (int dim : {1, 2, 3}) {
    for (double sigma : {0.5, 0.0}) {
      GossipSimParams p = params(GossipProtocol::sync, dim, 5, 1);
      p.sigma = sigma;
      const std::vector<double> x = initial_values(g.n, p);
      const auto cpu = cpu_trajectories(g, w, p);
      for (std::int64_t first : {0, 2}) {
        const std::int64_t count = p.runs - first;
        std::vector<double> out(static_cast<std::size_t>(g.n * dim * count), -1.0);
        const gossip::NoisyStartBody body{x.data(), g.n,       dim,
                                          sigma,    p.seed,    gossip_subsequence(GossipStream::noise, 0, 0),
                                          first,    out.data()};
        kernels::host_for_each(body.pairs() * count, body);
        for (std::int64_t b = 0; b < count; ++b)
          ASSERT_EQ(run_state(out, static_cast<std::size_t>(b), g.n, dim), cpu[first + b][0])
              << "D = " << dim << ", sigma " << sigma << ", run " << first + b << " (0 ulps on the host)";
      }
    }
  }
}

// ---- reductions ----

TEST(GossipSimBodies, TreeSumIsTheFixedHalvingOrder) {
  // 8 lanes: ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)), whatever the values.
  double partial[8] = {1e16, 1.0, -1e16, 1.0, 1.0, 3.0, 1.0, -1.0};
  const double a[8] = {1e16, 1.0, -1e16, 1.0, 1.0, 3.0, 1.0, -1.0};
  const double expected = ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
  EXPECT_EQ(gossip::tree_sum(partial, 8), expected);
}

// ---- fixed W: the Chebyshev step ----

/// y = W x for a column-major block, in CSR row order from 0 (the CPU's product order).
std::vector<double> multiply(const CsrMatrix& w, const std::vector<double>& x) {
  std::vector<double> y(x.size());
  const std::size_t n = static_cast<std::size_t>(w.n);
  for (std::size_t c = 0; c < x.size() / n; ++c)
    for (node_t i = 0; i < w.n; ++i) {
      double sum = 0.0;
      for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) sum += w.values[k] * x[c * n + w.columns[k]];
      y[c * n + i] = sum;
    }
  return y;
}

TEST(GossipSimBodies, ChebyshevBodyIsTheCpuRecursion) {
  const Graph g = erdos_renyi_graph(50, 0.12, 4);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (int dim : {1, 3}) {
    const GossipSimParams p = params(GossipProtocol::accelerated, dim, 3, 8);
    const double gamma = gossip_sim(g, w, initial_values(g.n, p), p).gamma;
    const auto cpu = cpu_trajectories(g, w, p);
    for (std::size_t t = 2; t <= 8; ++t) {
      std::vector<double> y = multiply(w, block_at(cpu, t - 1, g.n, dim));  // W x^{t-1}, as the SpMM gives it
      const std::vector<double> prev = block_at(cpu, t - 2, g.n, dim);
      kernels::host_for_each(static_cast<std::int64_t>(y.size()),
                             gossip::ChebyshevBody{y.data(), prev.data(), gamma, 1.0 - gamma});
      ASSERT_EQ(y, block_at(cpu, t, g.n, dim)) << "D = " << dim << ", t = " << t;
    }
  }
}

// ---- sequence, dropout ----

TEST(GossipSimBodies, SequenceStepIsTheCpuMultiply) {
  auto rounds = std::make_shared<std::vector<GossipRound>>();
  for (Graph g : {erdos_renyi_graph(30, 0.15, 11), erdos_renyi_graph(30, 0.1, 12), ring_graph(30)}) {
    CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
    rounds->push_back({std::move(w), std::move(g)});
  }
  const Graph g = (*rounds)[0].graph;
  for (int dim : {1, 2}) {
    GossipSimParams p = params(GossipProtocol::sequence, dim, 4, 8);  // 8 rounds wrap the 3 matrices
    p.sequence = rounds;
    const auto cpu = cpu_trajectories(g, (*rounds)[0].w, p);
    std::vector<double> from = block_at(cpu, 0, g.n, dim), to(from.size());
    for (int t = 1; t <= p.steps; ++t) {
      const CsrMatrix& w = (*rounds)[static_cast<std::size_t>(t - 1) % 3].w;
      kernels::host_for_each(static_cast<std::int64_t>(from.size()),
                             gossip::CsrMultiplyBody{w.offsets.data(), w.columns.data(), w.values.data(), g.n,
                                                     from.data(), to.data()});
      std::swap(from, to);
      ASSERT_EQ(from, block_at(cpu, static_cast<std::size_t>(t), g.n, dim)) << "D = " << dim << ", t = " << t;
    }
  }
}

/// One dropout round of runs first .. first + count - 1 on the host: mask, degrees.
struct DropoutRound {
  std::vector<unsigned char> active;
  std::vector<std::int32_t> degree;
};
DropoutRound dropout_round(const Graph& g, const GossipSimParams& p, std::int64_t first, std::int64_t count,
                           int round) {
  DropoutRound r;
  r.active.assign(static_cast<std::size_t>(g.n * count), 7);
  r.degree.assign(r.active.size(), -1);
  const std::uint64_t stream =
      gossip_subsequence(GossipStream::dropout, 0, static_cast<std::uint64_t>(round));
  kernels::host_for_each(g.n * count,
                         gossip::DropoutMaskBody{p.seed, stream, first, g.n, p.dropout, r.active.data()});
  kernels::host_for_each(g.n * count, gossip::ActiveDegreesBody{g.offsets.data(), g.adjacency.data(), g.n,
                                                                r.active.data(), r.degree.data()});
  return r;
}

TEST(GossipSimBodies, DropoutMasksAndDegreesAreTheCpuRounds) {
  const Graph g = erdos_renyi_graph(60, 0.1, 1);
  for (double q : {0.3, 0.5, 0.0, 1.0}) {
    GossipSimParams p = params(GossipProtocol::dropout, 1, 5, 6);
    p.dropout = q;
    int dropped = 0;
    for (int round = 0; round < p.steps; ++round) {
      const DropoutRound r = dropout_round(g, p, 1, 4, round);  // runs 1 .. 4
      for (std::int64_t b = 0; b < 4; ++b) {
        const GossipRound cpu = gossip_sim_detail::sample_dropout_round(g, q, p.seed, 1 + b, round);
        // The mask is the CPU's draw: the n uniforms of the round's stream in node order.
        PhiloxStream s(p.seed, gossip_subsequence(GossipStream::dropout, static_cast<std::uint64_t>(1 + b),
                                                  static_cast<std::uint64_t>(round)));
        for (node_t v = 0; v < g.n; ++v) {
          const auto i = static_cast<std::size_t>(b * g.n + v);
          ASSERT_EQ(r.active[i], s.next_uniform_double() < q ? 0 : 1) << "q " << q << ", node " << v;
          ASSERT_EQ(r.degree[i], cpu.graph.degree(v)) << "q " << q << ", round " << round << ", node " << v;
          dropped += r.active[i] == 0;
          if (r.active[i] == 0) continue;
          std::vector<node_t> neighbours;
          for (node_t u : g.neighbors(v))
            if (r.active[static_cast<std::size_t>(b * g.n + u)]) neighbours.push_back(u);
          const auto row = cpu.graph.neighbors(v);
          ASSERT_EQ(neighbours, std::vector<node_t>(row.begin(), row.end())) << "q " << q << ", node " << v;
        }
      }
    }
    const int expected = q == 0.0 ? 0 : q == 1.0 ? 6 * 4 * g.n : -1;
    if (expected >= 0) {
      EXPECT_EQ(dropped, expected) << "q " << q;
    } else {
      EXPECT_GT(dropped, 50) << "q " << q;
    }
  }
}

TEST(GossipSimBodies, DropoutStepIsTheCpuRound) {
  for (double q : {0.3, 0.0, 1.0}) {
    const Graph g = erdos_renyi_graph(45, 0.12, 3);
    const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
    for (int dim : {1, 3}) {
      GossipSimParams p = params(GossipProtocol::dropout, dim, 3, 9);
      p.dropout = q;
      const auto cpu = cpu_trajectories(g, w, p);
      std::vector<double> from = block_at(cpu, 0, g.n, dim), to(from.size());
      for (int t = 1; t <= p.steps; ++t) {
        const DropoutRound r = dropout_round(g, p, 0, p.runs, t - 1);
        kernels::host_for_each(
            static_cast<std::int64_t>(from.size()),
            gossip::DropoutStepBody{g.offsets.data(), g.adjacency.data(), g.n, dim, r.active.data(),
                                    r.degree.data(), from.data(), to.data()});
        std::swap(from, to);
        ASSERT_EQ(from, block_at(cpu, static_cast<std::size_t>(t), g.n, dim))
            << "q " << q << ", D = " << dim << ", t = " << t;
      }
    }
  }
}

// ---- er-per-round ----

struct ErBuffers {
  std::vector<std::int32_t> pairs, adjacency, degree, parent, status;
  std::vector<offset_t> offsets;
  gossip::ErScratch scratch;
  ErBuffers(std::int64_t n, std::int64_t count, std::int64_t cap)
      : pairs(static_cast<std::size_t>(2 * cap * count)),
        adjacency(pairs.size()),
        degree(static_cast<std::size_t>(n * count)),
        parent(degree.size()),
        status(static_cast<std::size_t>(count), 0),
        offsets(static_cast<std::size_t>((n + 1) * count)),
        scratch{pairs.data(), adjacency.data(), degree.data(), parent.data(), status.data(), offsets.data(),
                cap} {}
};

void er_sample(const GossipSimParams& p, std::int64_t n, std::int64_t first, std::int64_t count, int round,
               ErBuffers& e) {
  const std::uint64_t stream =
      gossip_subsequence(GossipStream::er_graph, 0, static_cast<std::uint64_t>(round));
  kernels::host_for_each(count, gossip::ErSampleBody{p.seed, stream, round, first, n, p.edge_probability,
                                                     std::log1p(-p.edge_probability), e.scratch, nullptr});
}

std::int64_t capacity(node_t n, double q) {  // gossip_sim_varying_cuda.cu's er_capacity
  const double pairs = double(n) * double(n - 1) / 2, mean = q * pairs;
  return static_cast<std::int64_t>(std::min(pairs, std::ceil(mean + 6 * std::sqrt(mean) + 16)));
}

TEST(GossipSimBodies, ErSamplerDrawsTheCpuGraphs) {
  // c = 1 (q = ln(n)/n: many first draws are disconnected, so the redraws are exercised), c = 2.5, q = 1.
  const node_t n = 40;
  for (double q : {std::log(40.0) / 40.0, 2.5 * std::log(40.0) / 40.0, 1.0}) {
    GossipSimParams p = params(GossipProtocol::er_per_round, 1, 6, 5);
    p.edge_probability = q;
    ErBuffers e(n, 6, capacity(n, q));
    std::int64_t edges = 0;
    for (int round = 0; round < p.steps; ++round) {
      er_sample(p, n, 0, 6, round, e);
      for (std::int64_t b = 0; b < 6; ++b) {
        ASSERT_EQ(e.status[static_cast<std::size_t>(b)], 0) << "q " << q;
        const GossipRound cpu = gossip_sim_detail::sample_er_round(n, q, p.seed, b, round);
        const offset_t* offsets = e.offsets.data() + b * (n + 1);
        const std::vector<offset_t> got_offsets(offsets, offsets + n + 1);
        ASSERT_EQ(got_offsets, cpu.graph.offsets) << "q " << q << ", run " << b << ", round " << round;
        const std::int32_t* adjacency = e.adjacency.data() + 2 * b * e.scratch.cap;
        ASSERT_EQ(std::vector<node_t>(adjacency, adjacency + offsets[n]), cpu.graph.adjacency)
            << "q " << q << ", run " << b << ", round " << round;
        for (node_t v = 0; v < n; ++v)
          ASSERT_EQ(e.degree[static_cast<std::size_t>(b * n + v)], cpu.graph.degree(v));
        edges += offsets[n] / 2;
      }
    }
    EXPECT_GT(edges, 0);
  }
}

TEST(GossipSimBodies, ErSamplerReportsNeverConnectedAndOverflow) {
  GossipSimParams p = params(GossipProtocol::er_per_round, 1, 2, 3);
  p.edge_probability = 0;  // G(6, 0) is never connected: 1000 draws, then the CPU's InvalidInput
  EXPECT_THROW(gossip_sim_detail::sample_er_round(6, 0.0, p.seed, 0, 0), InvalidInput);
  ErBuffers e(6, 2, capacity(6, 0.0));
  er_sample(p, 6, 0, 2, 2, e);
  EXPECT_EQ(e.status, (std::vector<std::int32_t>{4 * 3 + 2, 4 * 3 + 2}));  // round 2, code 2
  er_sample(p, 6, 0, 2, 3, e);  // a failed run keeps its first failure
  EXPECT_EQ(e.status, (std::vector<std::int32_t>{4 * 3 + 2, 4 * 3 + 2}));
  p.edge_probability = 1;  // the complete graph: 15 edges, more than a capacity of 10
  ErBuffers small(6, 1, 10);
  er_sample(p, 6, 0, 1, 0, small);
  EXPECT_EQ(small.status[0], 4 * 1 + 1);
}

// ---- dropout-er: the round's masks (DropoutMaskBody), then attempt 0 of G(n, p) without the dropped ends
// ----

/// The masks of `count` runs for round `round`, then their graphs drawn by ErSampleBody with the masks.
void dropout_er_sample(const GossipSimParams& p, std::int64_t n, std::int64_t count, int round,
                       std::vector<unsigned char>& active, ErBuffers& e) {
  active.assign(static_cast<std::size_t>(n * count), 7);
  const std::uint64_t mask_stream =
      gossip_subsequence(GossipStream::dropout, 0, static_cast<std::uint64_t>(round));
  kernels::host_for_each(n * count,
                         gossip::DropoutMaskBody{p.seed, mask_stream, 0, n, p.dropout, active.data()});
  const std::uint64_t stream =
      gossip_subsequence(GossipStream::er_graph, 0, static_cast<std::uint64_t>(round));
  kernels::host_for_each(count,
                         gossip::ErSampleBody{p.seed, stream, round, 0, n, p.edge_probability,
                                              std::log1p(-p.edge_probability), e.scratch, active.data()});
}

TEST(GossipSimBodies, DropoutErSamplerDrawsTheCpuGraphs) {
  // p = 0.05 on 40 nodes (about 1 neighbour: mostly disconnected graphs, which are kept as drawn), q = 0, 0.5
  // and 1 (no edge at all), and p = 1 (the complete graph on the active nodes).
  const node_t n = 40;
  for (double er_p : {0.05, 0.3, 1.0})
    for (double q : {0.0, 0.5, 1.0}) {
      GossipSimParams p = params(GossipProtocol::dropout_er, 1, 5, 4);
      p.edge_probability = er_p;
      p.dropout = q;
      ErBuffers e(n, 5, capacity(n, er_p));
      std::vector<unsigned char> active;
      for (int round = 0; round < p.steps; ++round) {
        dropout_er_sample(p, n, 5, round, active, e);
        for (std::int64_t b = 0; b < 5; ++b) {
          const std::string what = "p " + std::to_string(er_p) + ", q " + std::to_string(q) + ", run " +
                                   std::to_string(b) + ", round " + std::to_string(round);
          ASSERT_EQ(e.status[static_cast<std::size_t>(b)], 0) << what;
          const GossipRound cpu = gossip_sim_detail::sample_dropout_er_round(n, er_p, q, p.seed, b, round);
          const offset_t* offsets = e.offsets.data() + b * (n + 1);
          ASSERT_EQ(std::vector<offset_t>(offsets, offsets + n + 1), cpu.graph.offsets) << what;
          const std::int32_t* adjacency = e.adjacency.data() + 2 * b * e.scratch.cap;
          ASSERT_EQ(std::vector<node_t>(adjacency, adjacency + offsets[n]), cpu.graph.adjacency) << what;
          const std::vector<char> dropped = gossip_sim_detail::dropout_mask(n, q, p.seed, b, round);
          for (node_t v = 0; v < n; ++v) {
            ASSERT_EQ(active[static_cast<std::size_t>(b * n + v)], dropped[v] ? 0 : 1) << what;
            if (dropped[v]) {
              ASSERT_EQ(cpu.graph.degree(v), 0) << what;  // a dropped node has no edge
            }
          }
        }
      }
    }
}

TEST(GossipSimBodies, DropoutErStepIsTheCpuRound) {
  const Graph g = ring_graph(50);  // only n is used
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (int dim : {1, 3}) {
    GossipSimParams p = params(GossipProtocol::dropout_er, dim, 4, 7);
    p.edge_probability = 0.06;
    p.dropout = 0.4;
    const auto cpu = cpu_trajectories(g, w, p);
    ErBuffers e(g.n, p.runs, capacity(g.n, p.edge_probability));
    std::vector<unsigned char> active;
    std::vector<double> from = block_at(cpu, 0, g.n, dim), to(from.size());
    for (int t = 1; t <= p.steps; ++t) {
      dropout_er_sample(p, g.n, p.runs, t - 1, active, e);
      kernels::host_for_each(static_cast<std::int64_t>(from.size()),
                             gossip::ErStepBody{e.scratch, g.n, dim, from.data(), to.data()});
      std::swap(from, to);
      ASSERT_EQ(from, block_at(cpu, static_cast<std::size_t>(t), g.n, dim)) << "D = " << dim << ", t = " << t;
    }
  }
}

TEST(GossipSimBodies, ErStepIsTheCpuRound) {
  const Graph g = ring_graph(40);  // only n is used
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (int dim : {1, 3}) {
    GossipSimParams p = params(GossipProtocol::er_per_round, dim, 4, 6);
    p.edge_probability = 2.5 * std::log(40.0) / 40.0;
    const auto cpu = cpu_trajectories(g, w, p);
    ErBuffers e(g.n, p.runs, capacity(g.n, p.edge_probability));
    std::vector<double> from = block_at(cpu, 0, g.n, dim), to(from.size());
    for (int t = 1; t <= p.steps; ++t) {
      er_sample(p, g.n, 0, p.runs, t - 1, e);
      kernels::host_for_each(static_cast<std::int64_t>(from.size()),
                             gossip::ErStepBody{e.scratch, g.n, dim, from.data(), to.data()});
      std::swap(from, to);
      ASSERT_EQ(from, block_at(cpu, static_cast<std::size_t>(t), g.n, dim)) << "D = " << dim << ", t = " << t;
    }
  }
}

// ---- randomized gossip: the tick loop ----

TEST(GossipSimBodies, TickDrawsAreTheCpuActivations) {
  for (const Graph& g : {erdos_renyi_graph(50, 0.12, 3), star_graph(12)}) {  // the star has idle ticks
    const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
    const ActivationSampler sampler(g, w);
    const std::vector<node_t> nodes = sampler.edge_nodes();
    const auto edges = static_cast<std::int64_t>(sampler.cumulative().size());
    int idle = 0;
    for (std::int64_t run : {0, 9}) {
      for (std::int64_t t0 : {std::int64_t{0}, std::int64_t{1} << 14, std::int64_t{3}}) {
        gossip::TickDraws draws(977, gossip_subsequence(GossipStream::activation, 0, 0), run, t0);
        for (std::int64_t tick = t0; tick < t0 + 500; ++tick) {
          const std::int64_t e = draws.next(sampler.cumulative().data(), edges);
          const auto cpu = sampler.draw(977, run, tick);
          if (e == edges) {
            ++idle;
            ASSERT_EQ(cpu, (std::pair<node_t, node_t>{0, 0})) << "tick " << tick;
          } else {
            ASSERT_EQ(cpu, (std::pair<node_t, node_t>{nodes[2 * e], nodes[2 * e + 1]})) << "tick " << tick;
          }
        }
      }
    }
    if (g.n == 12) {
      EXPECT_GT(idle, 1000);  // 2 (n - 1) / n^2 = 15% of the ticks activate an edge
    }
  }
}

TEST(GossipSimBodies, TickLoopGivesTheCpuStatesAndErrors) {
  for (const Graph& g : {erdos_renyi_graph(50, 0.12, 4), star_graph(12)}) {
    const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
    const ActivationSampler sampler(g, w);
    const std::vector<node_t> nodes = sampler.edge_nodes();
    for (int dim : {1, 3}) {
      const GossipSimParams p = params(GossipProtocol::randomized, dim, 3, 300);  // every tick recorded
      const std::vector<double> x = initial_values(g.n, p);
      const auto cpu = cpu_trajectories(g, w, p);
      const std::vector<int> times = gossip_sim_detail::recorded_times(p.steps, p.record_every);
      std::vector<double> xbar(static_cast<std::size_t>(dim));
      gossip_sim_detail::node_average(x, g.n, dim, xbar);

      const std::int64_t points = static_cast<std::int64_t>(times.size());
      for (std::int64_t chunk : {std::int64_t{1} << 14, std::int64_t{37}}) {  // ticks per launch
        std::vector<double> state = block_at(cpu, 0, g.n, dim),
                            averages(static_cast<std::size_t>(dim * p.runs));
        for (std::int64_t b = 0; b < p.runs; ++b)  // the run's noisy averages: the CPU's (node order)
          gossip_sim_detail::node_average(
              cpu[b][0], g.n, dim,
              std::span<double>(averages).subspan(static_cast<std::size_t>(b * dim), dim));
        std::vector<double> err_true(static_cast<std::size_t>(g.n * p.runs)), err_noisy(err_true.size()),
            totals(static_cast<std::size_t>(2 * p.runs));
        std::vector<double> truth(static_cast<std::size_t>(p.runs * points), -1.0), noisy(truth.size(), -1.0);
        kernels::host_for_each(p.runs,
                               gossip::TicksStartBody{state.data(), g.n, dim, xbar.data(), averages.data(),
                                                      err_true.data(), err_noisy.data(), totals.data()});
        const gossip::TickArgs args{g.n,
                                    0,
                                    p.runs,
                                    static_cast<std::int64_t>(sampler.cumulative().size()),
                                    points,
                                    dim,
                                    p.seed,
                                    gossip_subsequence(GossipStream::activation, 0, 0),
                                    sampler.cumulative().data(),
                                    nodes.data(),
                                    times.data(),
                                    xbar.data(),
                                    averages.data()};
        for (std::int64_t t0 = 0; t0 < p.steps; t0 += chunk) {
          const std::int64_t t1 = std::min<std::int64_t>(t0 + chunk, p.steps);
          const std::int64_t point = std::upper_bound(times.begin(), times.end(), t0) - times.begin();
          kernels::host_for_each(
              p.runs, gossip::TicksRunBody{args, t0, t1, point, state.data(), err_true.data(),
                                           err_noisy.data(), totals.data(), truth.data(), noisy.data()});
          ASSERT_EQ(state, block_at(cpu, static_cast<std::size_t>(t1), g.n, dim))
              << "n " << g.n << ", D = " << dim << ", t = " << t1;
        }
        // The incremental totals against the errors of the whole states (an independent sum, so to rounding).
        for (std::int64_t b = 0; b < p.runs; ++b)
          for (std::int64_t i = 1; i < points; ++i) {
            const auto& state_t = cpu[static_cast<std::size_t>(b)][static_cast<std::size_t>(i)];
            std::vector<double> average(static_cast<std::size_t>(dim));
            gossip_sim_detail::node_average(cpu[static_cast<std::size_t>(b)][0], g.n, dim, average);
            const double direct_true = gossip_sim_detail::squared_error(state_t, g.n, dim, xbar);
            const double direct_noisy = gossip_sim_detail::squared_error(state_t, g.n, dim, average);
            const std::size_t at = static_cast<std::size_t>(b * points + i);
            ASSERT_NEAR(truth[at], direct_true, 1e-12 * (1 + direct_true)) << "n " << g.n << ", t " << i;
            ASSERT_NEAR(noisy[at], direct_noisy, 1e-12 * (1 + direct_noisy)) << "n " << g.n << ", t " << i;
          }
      }
    }
  }
}

}  // namespace
}  // namespace netdp
