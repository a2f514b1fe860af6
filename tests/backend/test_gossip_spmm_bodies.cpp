// The node-major gossip engines' single-source bodies (kernels/common/gossip_spmm_bodies.hpp) run on the
// host through the source the GPU compiles: the warp-per-row entry against the CPU engines' one sparse
// product (csr_row_product, both its compile-time and its run-time width) bit for bit, and against a 3 x 3
// product worked by hand; the fused sync / Chebyshev step against the CPU engine's states
// (gossip_sim_trajectory) bit for bit every round; the node-order averages and errors against the CPU's
// node_average / squared_error bit for bit; the transpose and the lane count exactly. Label device-bodies.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/csr_product.hpp"
#include "common/for_each.hpp"
#include "common/gossip_sim_bodies.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "simulation/gossip_sim_internal.hpp"
#include "support/gossip_sim_cuda_compare.hpp"

namespace netdp {
namespace {

namespace gossip = kernels::gossip;
namespace spmm = kernels::spmm;

/// Bitwise equality (0 ulps, and -0 apart from +0).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// A random n x n CSR matrix with empty rows, signed values and sorted columns (not a gossip matrix: the
/// product must not depend on W's structure).
CsrMatrix random_csr(node_t n, double fill, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), value(-2.0, 2.0);
  CsrMatrix w;
  w.n = n;
  w.offsets.assign(1, 0);
  for (node_t i = 0; i < n; ++i) {
    if (i % 7 != 3)  // every seventh row empty
      for (node_t j = 0; j < n; ++j)
        if (unit(gen) < fill) {
          w.columns.push_back(j);
          w.values.push_back(value(gen));
        }
    w.offsets.push_back(static_cast<offset_t>(w.columns.size()));
  }
  return w;
}

std::vector<double> random_block(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> x(size);
  for (double& v : x) v = value(gen) * (1 + (gen() % 1000));  // magnitudes over three decades
  return x;
}

/// Y = W X by the row body: each (row, c) entry by spmm::row_entry, as a warp lane sums it.
std::vector<double> row_body_product(const CsrMatrix& w, const std::vector<double>& x, std::int64_t cols) {
  std::vector<double> y(x.size(), -7.0);
  kernels::host_for_each_row(w.n, cols, [&](std::int64_t row, std::int64_t c) {
    y[row * cols + c] =
        spmm::row_entry(w.offsets.data(), w.columns.data(), w.values.data(), row, x.data(), cols, c);
  });
  return y;
}

TEST(GossipSpmmBodies, RowEntryIsTheCpuCsrProductBitForBit) {
  const CsrMatrix w = random_csr(150, 0.06, 41);
  for (std::int64_t cols : {1, 3, 8, 32, 33, 64}) {
    const std::vector<double> x = random_block(static_cast<std::size_t>(w.n * cols), 100 + cols);
    std::vector<double> cpu(x.size(), 0.0);
    for (node_t row = 0; row < w.n; ++row)  // the run-time width, accumulated in place in Y's row
      kernels::csr_row_product(w.offsets.data(), w.columns.data(), w.values.data(), row, x.data(), cols,
                               cpu.data());
    EXPECT_TRUE(same_bits(row_body_product(w, x, cols), cpu)) << cols << " columns";
    if (cols == 8) {  // the compile-time width the CPU's panels use (kSparseLanes), accumulators in registers
      std::vector<double> panel(x.size(), 0.0);
      for (node_t row = 0; row < w.n; ++row)
        kernels::csr_row_product<8>(w.offsets.data(), w.columns.data(), w.values.data(), row, x.data(), 8,
                                    panel.data());
      EXPECT_TRUE(same_bits(row_body_product(w, x, 8), panel));
    }
  }
}

TEST(GossipSpmmBodies, RowEntryOnAHandWorkedProduct) {
  // W = [[0.5, 0, 0.5], [0, 0, 0], [0.25, 0.75, 0]], X (3 x 2) = [[1, 2], [4, -8], [16, 32]]:
  // W X = [[8.5, 17], [0, 0], [3.25, -5.5]]; the 32-bit offsets a caller may narrow to give the same.
  CsrMatrix w;
  w.n = 3;
  w.offsets = {0, 2, 2, 4};
  w.columns = {0, 2, 0, 1};
  w.values = {0.5, 0.5, 0.25, 0.75};
  const std::vector<double> x = {1, 2, 4, -8, 16, 32};
  EXPECT_EQ(row_body_product(w, x, 2), (std::vector<double>{8.5, 17, 0, 0, 3.25, -5.5}));
  const std::vector<std::int32_t> narrow = {0, 2, 2, 4};
  EXPECT_EQ(spmm::row_entry(narrow.data(), w.columns.data(), w.values.data(), 2, x.data(), 2, 1), -5.5);
}

TEST(GossipSpmmBodies, LanesPerRowArePowersOfTwoUpToAWarp) {
  const std::vector<std::pair<std::int64_t, int>> cases = {{1, 1},   {2, 2},   {3, 4},   {5, 8},
                                                           {17, 32}, {32, 32}, {33, 32}, {100000, 32}};
  for (const auto& [cols, lanes] : cases) EXPECT_EQ(spmm::lanes_per_row(cols), lanes) << cols;
}

TEST(GossipSpmmBodies, ToNodeMajorMovesEveryEntry) {
  const std::int64_t n = 5, cols = 3;
  std::vector<double> in(n * cols), out(n * cols, -1.0);
  for (std::int64_t i = 0; i < n * cols; ++i) in[i] = static_cast<double>(i);  // in[c n + v] = c n + v
  kernels::host_for_each(n * cols, gossip::ToNodeMajorBody{in.data(), n, cols, out.data()});
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t c = 0; c < cols; ++c) EXPECT_EQ(out[v * cols + c], static_cast<double>(c * n + v));
}

GossipSimParams params(GossipProtocol protocol, int dim, std::int64_t runs, int steps) {
  return testing::gossip_params(protocol, dim, InitKind::normal, runs, steps, 977);
}

/// The CPU states x^t of runs 0 .. runs - 1 as one node-major n x (D runs) block per t.
std::vector<std::vector<double>> cpu_node_major(const Graph& g, const CsrMatrix& w,
                                                const GossipSimParams& p) {
  const std::vector<double> x = initial_values(g.n, p);
  const std::int64_t cols = p.runs * p.dim;
  std::vector<std::vector<double>> blocks(static_cast<std::size_t>(p.steps) + 1,
                                          std::vector<double>(static_cast<std::size_t>(g.n * cols)));
  for (std::int64_t run = 0; run < p.runs; ++run) {
    const auto states = gossip_sim_trajectory(g, w, x, p, run);  // row-major n x D per t
    for (std::size_t t = 0; t < blocks.size(); ++t)
      for (node_t v = 0; v < g.n; ++v)
        for (int k = 0; k < p.dim; ++k)
          blocks[t][v * cols + run * p.dim + k] = states[t][static_cast<std::size_t>(v) * p.dim + k];
  }
  return blocks;
}

TEST(GossipSpmmBodies, FusedStepIsTheCpuRoundBitForBit) {
  const Graph g = erdos_renyi_graph(60, 0.1, 4);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (GossipProtocol protocol : {GossipProtocol::sync, GossipProtocol::accelerated})
    for (int dim : {1, 3}) {
      const GossipSimParams p = params(protocol, dim, 4, 9);
      const double gamma = gossip_sim(g, w, initial_values(g.n, p), p).gamma;
      const auto cpu = cpu_node_major(g, w, p);
      const std::int64_t cols = p.runs * dim;
      for (std::size_t t = 1; t <= 9; ++t) {
        const bool chebyshev = protocol == GossipProtocol::accelerated && t >= 2;
        std::vector<double> y(cpu[t].size(), -3.0);
        kernels::host_for_each_row(
            g.n, cols,
            gossip::NodeMajorStepBody<offset_t, node_t>{
                w.offsets.data(), w.columns.data(), w.values.data(), cpu[t - 1].data(),
                chebyshev ? cpu[t - 2].data() : nullptr, gamma, 1.0 - gamma, cols, y.data()});
        ASSERT_TRUE(same_bits(y, cpu[t])) << to_string(protocol) << ", D = " << dim << ", t = " << t;
      }
    }
}

TEST(GossipSpmmBodies, NodeOrderAveragesAndErrorsAreTheCpuSumsBitForBit) {
  const Graph g = erdos_renyi_graph(70, 0.1, 9);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  const int dim = 2;
  const GossipSimParams p = params(GossipProtocol::sync, dim, 3, 4);
  const auto blocks = cpu_node_major(g, w, p);
  const std::int64_t cols = p.runs * dim, points = 5;
  std::vector<double> xbar(dim);
  gossip_sim_detail::node_average(initial_values(g.n, p), g.n, dim, xbar);
  std::vector<double> average(cols), col_true(cols), col_noisy(cols);
  kernels::host_for_each(cols, gossip::NodeOrderAveragesBody{blocks[0].data(), g.n, cols, average.data()});
  for (std::int64_t t = 0; t < points; ++t) {
    kernels::host_for_each(
        cols, gossip::NodeOrderErrorsBody{blocks[t].data(), g.n, cols, dim, xbar.data(), average.data(),
                                          col_true.data(), col_noisy.data()});
    std::vector<double> truth(p.runs * points, -1.0), noisy(truth.size(), -1.0);
    kernels::host_for_each(p.runs, gossip::RunErrorsBody{col_true.data(), col_noisy.data(), dim, g.n, t,
                                                         points, truth.data(), noisy.data()});
    for (std::int64_t run = 0; run < p.runs; ++run) {
      // The run's row-major state back out of the block, and the CPU's own functions on it.
      std::vector<double> state(static_cast<std::size_t>(g.n) * dim), start(state.size());
      for (node_t v = 0; v < g.n; ++v)
        for (int k = 0; k < dim; ++k) {
          state[static_cast<std::size_t>(v) * dim + k] = blocks[t][v * cols + run * dim + k];
          start[static_cast<std::size_t>(v) * dim + k] = blocks[0][v * cols + run * dim + k];
        }
      std::vector<double> cpu_average(dim);
      gossip_sim_detail::node_average(start, g.n, dim, cpu_average);
      for (int k = 0; k < dim; ++k) ASSERT_EQ(average[run * dim + k], cpu_average[k]) << "run " << run;
      EXPECT_EQ(truth[run * points + t], gossip_sim_detail::squared_error(state, g.n, dim, xbar))
          << "t " << t;
      EXPECT_EQ(noisy[run * points + t], gossip_sim_detail::squared_error(state, g.n, dim, cpu_average))
          << "t " << t;
    }
  }
}

}  // namespace
}  // namespace netdp
