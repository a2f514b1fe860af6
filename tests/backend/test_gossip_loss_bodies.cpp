// The CUDA gossip accountant's single-source bodies (kernels/common/gossip_loss_bodies.hpp) and the
// propagation bodies it shares with the walk accountant (common/propagation_bodies.hpp) run on the host,
// through the source the GPU compiles, in the order kernels/cuda/gossip_loss_cuda.cu launches them, with the
// cuSPARSE SpMM replaced by the CPU backend's own sparse product (cpu/power_panels.hpp propagate_sparse, one
// lane per column: every lane of the CPU's panels runs the same arithmetic). Compared with the CPU backend
// (kernels::gossip_row_norms_cpu, gossip_loss_rows_cpu):
//  - pass 2 (AccumulateSharesBody, NeighbourLossesBody) from the CPU's norms: 0 ulps, the same operations in
//    the same order (shares summed over t, neighbours in the graph's sorted order from 0, pair_loss);
//  - pass 1 (column_square_part + the block tree): each term a fused multiply-add, strided parts summed by
//  the
//    fixed halving tree, where the CPU sums rounded squares in node order. Both are sums of n non-negative
//    terms: the CPU is within gamma_n R of the exact R, the tree within gamma_{m + 8} R (m = ceil(n / 256)
//    terms per thread, 8 tree levels), and ulp(x) > 2^-53 x, so they agree within n + m + 9 ulps;
//  - the whole driver (its own norms): each share's norm is off by that relative amount, and both sides
//    round their own sums over T powers and d neighbours, so within n + m + 9 + 2 (T + d + 2) ulps.
// Graphs: a path, a star, a path with an isolated node, hypercube:dim=3, and G(300, 0.03). Label
// device-bodies: no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "common/for_each.hpp"
#include "common/gossip_loss_bodies.hpp"
#include "common/propagation_bodies.hpp"
#include "cpu/power_panels.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {
namespace {

namespace gl = kernels::gossip_loss;
namespace prop = kernels::propagation;
using kernels::GossipLossProblem;
using kernels::host_for_each_2d;

constexpr int kThreads = 256;  // the device's block width (cuda/base/launch.cuh), a power of two

struct Case {
  std::string name;
  Graph graph;
  CsrMatrix w;
};

Case make_case(std::string name, Graph g) {
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  return {std::move(name), std::move(g), std::move(w)};
}

/// The awkward small graphs and one bigger random one.
std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back(make_case("path:n=7", path_graph(7)));
  out.push_back(make_case("star:n=9", star_graph(9)));
  const std::vector<std::pair<node_t, node_t>> edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  out.push_back(make_case("path:n=5 + isolated node 5", graph_from_edges(6, edges)));
  out.push_back(make_case("hypercube:dim=3", hypercube_graph(3)));
  out.push_back(make_case("er:n=300,p=0.03", erdos_renyi_graph(300, 0.03, 17)));
  return out;
}

/// |a - b| in units of ulp(b) (the gap above |b|).
double ulps_apart(double a, double b) {
  if (a == b) return 0.0;
  const double m = std::abs(b);
  return std::abs(a - b) / (std::nextafter(m, INFINITY) - m);
}

/// "body vs CPU" with all 17 digits and the distance, for the failure messages (gtest shows 6 digits).
std::string versus(double body, double cpu) {
  char text[96];
  std::snprintf(text, sizeof text, "%.17g vs CPU %.17g, %.0f ulps apart", body, cpu, ulps_apart(body, cpu));
  return text;
}

int max_degree(const Graph& g) {
  int d = 0;
  for (node_t v = 0; v < g.n; ++v) d = std::max(d, static_cast<int>(g.degree(v)));
  return d;
}

// ---- the CUDA driver's order on the host ----

/// y = W x on a column-major n x cols block: the CPU's own sparse product per column (cuSPARSE SpMM's place).
void propagate(const CsrMatrix& w, const double* x, double* y, std::int64_t cols) {
  const std::int64_t n = w.n;
  for (std::int64_t j = 0; j < cols; ++j) kernels::propagate_sparse<1>(w, x + j * n, y + j * n);
}

/// gossip_loss_cuda's propagate_tile: identity columns of sources s .. s + cols - 1, then record(t - t_start,
/// X) for t = t_start .. t_start + T - 1, one product between powers.
template <class Record>
void propagate_tile(const GossipLossProblem& p, std::int64_t s, std::int64_t cols, std::vector<double>& a,
                    std::vector<double>& b, Record&& record) {
  const std::int64_t n = p.w.n, t_end = std::int64_t{p.t_start} + p.steps;
  double* x = a.data();
  double* y = b.data();
  host_for_each_2d(n, cols, prop::IdentityColumnsBody{x, n, s});
  for (std::int64_t t = 0; t < t_end; ++t) {
    if (t >= p.t_start) record(t - p.t_start, x);
    if (t + 1 < t_end) {
      propagate(p.w, x, y, cols);
      std::swap(x, y);
    }
  }
}

/// One block of column_sum_of_squares on the host: every thread's part, then the halving tree.
double column_norm(const double* column, std::int64_t n) {
  double partial[kThreads];
  for (int tid = 0; tid < kThreads; ++tid) partial[tid] = gl::column_square_part(column, n, tid, kThreads);
  return kernels::gossip::tree_sum(partial, kThreads);
}

/// Pass 1 in tiles of b1 sources: norms[k n + w] = r_{t_start + k}(w).
std::vector<double> body_norms(const GossipLossProblem& p, std::int64_t b1) {
  const std::int64_t n = p.w.n;
  std::vector<double> norms(static_cast<std::size_t>(p.steps * n));
  std::vector<double> a(static_cast<std::size_t>(n * b1)), b(a.size());
  for (std::int64_t s = 0; s < n; s += b1) {
    const std::int64_t cols = std::min(b1, n - s);
    propagate_tile(p, s, cols, a, b, [&](std::int64_t k, const double* x) {
      for (std::int64_t j = 0; j < cols; ++j) norms[k * n + s + j] = column_norm(x + j * n, n);
    });
  }
  return norms;
}

/// Pass 2 for sources first .. first + count - 1 in tiles of b2: the row-major loss rows, and the shares S of
/// the last tile (column-major n x cols).
std::vector<double> body_rows(const GossipLossProblem& p, const std::vector<double>& norms,
                              std::int64_t first, std::int64_t count, std::int64_t b2,
                              std::vector<double>* last_shares = nullptr) {
  const std::int64_t n = p.w.n;
  std::vector<double> rows(static_cast<std::size_t>(count * n));
  std::vector<double> a(static_cast<std::size_t>(n * b2)), b(a.size()), shares(a.size()), losses(a.size());
  for (std::int64_t s = first; s < first + count; s += b2) {
    const std::int64_t cols = std::min(b2, first + count - s);
    std::fill(shares.begin(), shares.end(), 0.0);
    propagate_tile(p, s, cols, a, b, [&](std::int64_t k, const double* x) {
      host_for_each_2d(n, cols, gl::AccumulateSharesBody{x, norms.data() + k * n, n, shares.data()});
    });
    host_for_each_2d(n, cols,
                     gl::NeighbourLossesBody{shares.data(), p.graph.offsets.data(), p.graph.adjacency.data(),
                                             n, s, p.scale, p.cap_ldp, losses.data()});
    std::copy(losses.begin(), losses.begin() + cols * n, rows.begin() + (s - first) * n);
    if (last_shares) last_shares->assign(shares.begin(), shares.begin() + cols * n);
  }
  return rows;
}

std::vector<double> cpu_norms(const GossipLossProblem& p) {
  std::vector<double> norms(static_cast<std::size_t>(p.steps) * p.w.n);
  kernels::gossip_row_norms_cpu(p, norms);
  return norms;
}

std::vector<double> cpu_rows(const GossipLossProblem& p, const std::vector<double>& norms, node_t first,
                             node_t count) {
  std::vector<double> rows(static_cast<std::size_t>(count) * p.w.n);
  kernels::gossip_loss_rows_cpu(p, norms, first, count, rows);
  return rows;
}

std::string describe(const Case& c, const GossipLossProblem& p) {
  return c.name + " t_start=" + std::to_string(p.t_start) + " T=" + std::to_string(p.steps) +
         " cap=" + std::to_string(p.cap_ldp);
}

// ---- propagation bodies (shared with the walk accountant) ----

TEST(PropagationBodies, IdentityColumnsAreTheUnitSources) {
  for (std::int64_t n : {1, 5, 300}) {
    for (std::int64_t first : {std::int64_t{0}, n / 2}) {
      const std::int64_t cols = std::min<std::int64_t>(7, n - first);
      std::vector<double> x(static_cast<std::size_t>(n * cols), -1.0);
      host_for_each_2d(n, cols, prop::IdentityColumnsBody{x.data(), n, first});
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t r = 0; r < n; ++r)
          ASSERT_EQ(x[r + j * n], r == first + j ? 1.0 : 0.0)
              << "n " << n << ", first " << first << ", (" << r << ", " << j << ")";
    }
  }
}

TEST(PropagationBodies, CsrToDenseIsTheCpuDenseW) {
  for (const Case& c : cases()) {
    const std::int64_t n = c.w.n;
    const std::vector<double> expected = to_dense(c.w);  // row-major
    // The device's 32-bit offsets (Propagator, walk_loss_cuda) and the host's 64-bit ones.
    const std::vector<std::int32_t> offsets32(c.w.offsets.begin(), c.w.offsets.end());
    std::vector<double> dense32(static_cast<std::size_t>(n * n), 0.0), dense64(dense32.size(), 0.0);
    kernels::host_for_each(
        n, prop::CsrToDenseBody<std::int32_t, node_t>{offsets32.data(), c.w.columns.data(), c.w.values.data(),
                                                      n, dense32.data()});
    kernels::host_for_each(n, prop::CsrToDenseBody<offset_t, node_t>{c.w.offsets.data(), c.w.columns.data(),
                                                                     c.w.values.data(), n, dense64.data()});
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t col = 0; col < n; ++col) {
        ASSERT_EQ(dense32[r + col * n], expected[r * n + col]) << c.name << " (" << r << ", " << col << ")";
        ASSERT_EQ(dense64[r + col * n], expected[r * n + col]) << c.name << " (" << r << ", " << col << ")";
      }
  }
}

// ---- the gossip accountant's bodies ----

TEST(GossipLossBodies, ColumnSumOfSquaresIsTheBlockTreeOfTheCpuNorms) {
  // Columns of every length up to 2000 (strided parts of 1 .. 8 terms): the block tree against the node-order
  // sum of rounded squares.
  std::vector<double> column(2000);
  for (std::size_t i = 0; i < column.size(); ++i)
    column[i] = std::sin(0.37 * double(i) + 0.1) / (1.0 + i % 13);
  for (std::int64_t n = 1; n <= 2000; n += n < 300 ? 1 : 17) {
    double cpu = 0.0;
    for (std::int64_t w = 0; w < n; ++w) cpu += column[w] * column[w];
    const std::int64_t m = (n + kThreads - 1) / kThreads;
    EXPECT_LE(ulps_apart(column_norm(column.data(), n), cpu), double(n + m + 9)) << "n " << n;
  }
  // r_t(w) of pass 1, in tiles of 1, 3 and all sources, against gossip_row_norms_cpu.
  for (const Case& c : cases()) {
    for (int t_start : {0, 1}) {
      const GossipLossProblem p{c.graph, c.w, t_start, 6, 0.7, true, false};
      const std::vector<double> cpu = cpu_norms(p);
      const std::int64_t n = c.w.n, m = (n + kThreads - 1) / kThreads;
      const std::vector<double> whole = body_norms(p, n);
      for (std::size_t i = 0; i < cpu.size(); ++i)
        ASSERT_LE(ulps_apart(whole[i], cpu[i]), double(n + m + 9))
            << describe(c, p) << ": r_" << t_start + i / n << "(" << i % n << ") " << whole[i] << " vs CPU "
            << cpu[i];
      for (std::int64_t b1 : {1, 3}) EXPECT_EQ(body_norms(p, b1), whole) << describe(c, p) << ", tile " << b1;
    }
  }
}

TEST(GossipLossBodies, AccumulateSharesIsTheCpuShareSum) {
  // With scale 1 and no cap, f(u, v) = 1 * (0 + s_u(w)) = s_u(w) exactly when v's only neighbour is w: the
  // CPU's share sums are visible at its degree-1 observers (the leaves of the star, the path's ends).
  int seen = 0;
  for (const Case& c : cases()) {
    const std::int64_t n = c.w.n;
    for (int t_start : {0, 1}) {
      const GossipLossProblem p{c.graph, c.w, t_start, 9, 1.0, false, false};
      const std::vector<double> norms = cpu_norms(p);
      const std::vector<double> cpu = cpu_rows(p, norms, 0, static_cast<node_t>(n));
      std::vector<double> shares;
      body_rows(p, norms, 0, n, n, &shares);  // one tile: the shares of every source
      for (node_t v = 0; v < n; ++v) {
        if (c.graph.degree(v) != 1) continue;
        const node_t w = c.graph.neighbors(v)[0];
        for (std::int64_t u = 0; u < n; ++u) {
          if (u == v) continue;
          ++seen;
          ASSERT_EQ(shares[w + u * n], cpu[u * n + v])
              << describe(c, p) << ": s_" << u << "(" << w << ") seen by leaf " << v << ": "
              << versus(shares[w + u * n], cpu[u * n + v]) << " (0 ulps asked)";
        }
      }
    }
  }
  EXPECT_GT(seen, 100);
}

TEST(GossipLossBodies, NeighbourLossesGiveTheCpuRows) {
  // Pass 2 from the CPU's norms: bit for bit, for every tile width, a range of sources, both windows and
  // caps.
  for (const Case& c : cases()) {
    const std::int64_t n = c.w.n;
    for (int t_start : {0, 1}) {
      for (bool cap : {true, false}) {
        const GossipLossProblem p{c.graph, c.w, t_start, 7, 0.35, cap, false};
        const std::vector<double> norms = cpu_norms(p);
        const std::vector<double> cpu = cpu_rows(p, norms, 0, static_cast<node_t>(n));
        ASSERT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << describe(c, p);
        for (std::int64_t b2 : {std::int64_t{1}, std::int64_t{3}, n}) {
          const std::vector<double> rows = body_rows(p, norms, 0, n, b2);
          for (std::size_t i = 0; i < cpu.size(); ++i)
            ASSERT_EQ(rows[i], cpu[i])
                << describe(c, p) << ", tile " << b2 << ": f(" << i / n << ", " << i % n << ") (0 ulps)";
        }
        const std::int64_t first = n / 3, count = std::min<std::int64_t>(5, n - first);
        const std::vector<double> part = body_rows(p, norms, first, count, 2);
        for (std::size_t i = 0; i < part.size(); ++i)
          ASSERT_EQ(part[i], cpu[first * n + i])
              << describe(c, p) << ", sources from " << first << ": " << versus(part[i], cpu[first * n + i]);
      }
    }
  }
}

TEST(GossipLossBodies, DriverOrderGivesTheCpuLossesWithinTheNormBound) {
  // Both passes on the host, the bodies' own norms: within n + m + 9 + 2 (T + d + 2) ulps of the CPU.
  for (const Case& c : cases()) {
    const std::int64_t n = c.w.n, m = (n + kThreads - 1) / kThreads;
    for (int t_start : {0, 1}) {
      const GossipLossProblem p{c.graph, c.w, t_start, 8, 1.3, t_start == 0, false};
      const std::vector<double> cpu = cpu_rows(p, cpu_norms(p), 0, static_cast<node_t>(n));
      const std::vector<double> rows = body_rows(p, body_norms(p, 4), 0, n, 5);
      const double bound = double(n + m + 9 + 2 * (p.steps + max_degree(c.graph) + 2));
      double worst = 0.0;
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        worst = std::max(worst, ulps_apart(rows[i], cpu[i]));
        ASSERT_LE(ulps_apart(rows[i], cpu[i]), bound)
            << describe(c, p) << ": f(" << i / n << ", " << i % n << ") " << rows[i] << " vs CPU " << cpu[i];
      }
      std::printf("%s, t_start %d: worst %.1f ulps (bound %.0f)\n", c.name.c_str(), t_start, worst, bound);
    }
  }
}

}  // namespace
}  // namespace netdp
