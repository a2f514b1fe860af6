// The CUDA gossip accountant's single-source bodies (kernels/common/gossip_loss_bodies.hpp, node-major, with
// the warp-per-row product, the identity rows and the column sum of common/gossip_spmm_bodies.hpp, shared
// with the walk accountant, and the dense copy of common/propagation_bodies.hpp) run on the host, through the
// source the GPU compiles, in the order kernels/cuda/gossip_loss_cuda.cu launches them (host_for_each_row,
// host_row_sums: the device's lanes and halving tree). Compared with the CPU backend
// (kernels::gossip_row_norms_cpu, gossip_loss_rows_cpu):
//  - pass 2 (SharesStepBody, NeighbourLossesBody) from the CPU's norms: 0 ulps, the same operations in the
//    same order (powers summed in CSR order, shares summed over t, neighbours in the graph's sorted order
//    from 0, pair_loss), whatever the tile;
//  - pass 1 (PowerRowsBody, ChunkSquaresBody, ColumnNormsBody): r_t(u) = ||W^t e_u||^2 in the one order both
//    twins use (chunks of kNormChunk nodes in node order, then the chunks in order): 0 ulps, whatever the
//    tile;
//  - the whole driver (its own norms): 0 ulps.
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
#include "common/gossip_spmm_bodies.hpp"
#include "common/propagation_bodies.hpp"
#include "cpu/power_panels.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

namespace gl = kernels::gossip_loss;
namespace prop = kernels::propagation;
using kernels::GossipLossProblem;
using testing::GraphCase;

std::vector<GraphCase> cases() {
  return testing::bodies_graph_cases(
      testing::graph_case("er:n=300,p=0.03", erdos_renyi_graph(300, 0.03, 17)));
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

// ---- the CUDA driver's order on the host ----

using PowerRows = gl::PowerRowsBody<offset_t, node_t>;
using Shares = gl::SharesStepBody<offset_t, node_t>;

/// The CUDA engine's propagate_tile (gossip_loss_cuda.cu): identity rows of sources s .. s + cols - 1
/// (node-major n x cols), then record(t - t_start, x, y) for t = t_start .. t_start + T - 1, which makes the
/// power from x into y and records it (y = nullptr at t = 0: x is the power); a plain product below t_start.
template <class Record>
void propagate_tile(const GossipLossProblem& p, std::int64_t s, std::int64_t cols, std::vector<double>& a,
                    std::vector<double>& b, Record&& record) {
  const std::int64_t n = p.w.n, t_end = std::int64_t{p.t_start} + p.steps;
  double* x = a.data();
  double* y = b.data();
  kernels::host_for_each_row(n, cols, kernels::spmm::IdentityRowsBody{x, cols, s});
  if (p.t_start == 0) record(0, x, nullptr);
  for (std::int64_t t = 1; t < t_end; ++t) {
    if (t >= p.t_start) {
      record(t - p.t_start, x, y);
    } else {
      kernels::host_for_each_row(
          n, cols,
          kernels::gossip::NodeMajorStepBody<offset_t, node_t>{
              p.w.offsets.data(), p.w.columns.data(), p.w.values.data(), x, nullptr, 0.0, 0.0, cols, y});
    }
    std::swap(x, y);
  }
}

/// Pass 1 in tiles of b1 sources, the engine's add_norms: norms[k n + u] = r_{t_start + k}(u).
std::vector<double> body_norms(const GossipLossProblem& p, std::int64_t b1) {
  const std::int64_t n = p.w.n, chunks = gl::norm_chunks(n);
  std::vector<double> norms(static_cast<std::size_t>(p.steps * n), 0.0);
  std::vector<double> a(static_cast<std::size_t>(n * b1)), b(a.size());
  for (std::int64_t s = 0; s < n; s += b1) {
    const std::int64_t cols = std::min(b1, n - s);
    propagate_tile(p, s, cols, a, b, [&](std::int64_t k, const double* x, double* y) {
      if (y)
        kernels::host_for_each_row(
            n, cols, PowerRows{{{p.w.offsets.data(), p.w.columns.data(), p.w.values.data(), x}, cols, y}});
      const double* power = y ? y : x;
      double* partial = power == a.data() ? b.data() : a.data();
      kernels::host_for_each(chunks * cols, gl::ChunkSquaresBody{power, n, cols, partial});
      kernels::host_for_each(cols, gl::ColumnNormsBody{partial, chunks, cols, s, norms.data() + k * n});
    });
  }
  return norms;
}

/// Pass 2 for sources first .. first + count - 1 in tiles of b2: the row-major loss rows, and the shares S of
/// the last tile (node-major n x cols).
std::vector<double> body_rows(const GossipLossProblem& p, const std::vector<double>& norms,
                              std::int64_t first, std::int64_t count, std::int64_t b2,
                              std::vector<double>* last_shares = nullptr) {
  const std::int64_t n = p.w.n;
  std::vector<double> rows(static_cast<std::size_t>(count * n));
  std::vector<double> a(static_cast<std::size_t>(n * b2)), b(a.size()), shares(a.size()), losses(a.size());
  for (std::int64_t s = first; s < first + count; s += b2) {
    const std::int64_t cols = std::min(b2, first + count - s);
    std::fill(shares.begin(), shares.end(), 0.0);
    propagate_tile(p, s, cols, a, b, [&](std::int64_t k, const double* x, double* y) {
      kernels::host_for_each_row(n, cols,
                                 Shares{p.w.offsets.data(), p.w.columns.data(), p.w.values.data(), x, cols, y,
                                        norms.data() + k * n, shares.data()});
    });
    kernels::host_for_each_row(
        n, cols,
        gl::NeighbourLossesBody{shares.data(), p.graph.offsets.data(), p.graph.adjacency.data(), n, cols, s,
                                p.scale, p.cap_ldp, losses.data()});
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

std::string describe(const GraphCase& c, const GossipLossProblem& p) {
  return c.name + " t_start=" + std::to_string(p.t_start) + " T=" + std::to_string(p.steps) +
         " cap=" + std::to_string(p.cap_ldp);
}

// ---- propagation bodies (shared with the walk accountant) ----

TEST(PropagationBodies, IdentityRowsAreTheUnitSources) {
  // Node-major n x cols: X[w cols + j] = 1 exactly where w = first + j, every entry written.
  for (std::int64_t n : {1, 5, 300}) {
    for (std::int64_t first : {std::int64_t{0}, n / 2}) {
      const std::int64_t cols = std::min<std::int64_t>(7, n - first);
      std::vector<double> x(static_cast<std::size_t>(n * cols), -1.0);
      kernels::host_for_each_row(n, cols, kernels::spmm::IdentityRowsBody{x.data(), cols, first});
      for (std::int64_t w = 0; w < n; ++w)
        for (std::int64_t j = 0; j < cols; ++j)
          ASSERT_EQ(x[w * cols + j], w == first + j ? 1.0 : 0.0)
              << "n " << n << ", first " << first << ", (" << w << ", " << j << ")";
    }
  }
}

TEST(PropagationBodies, ColumnSumIsIndexOrderFromZero) {
  // Column 1 of a node-major 4 x 3 block is 1, 1e16, 1, -1e16 (columns 0 and 2 are decoys). Added from the
  // top, each sum rounded once: 1 + 1e16 rounds to 1e16 (a tie, to the even significand), + 1 likewise, then
  // - 1e16 gives 0. From the bottom it gives 1, and the halving tree (x0 + x2) + (x1 + x3) gives 2.
  const std::vector<double> x = {9, 1.0, 9, 9, 1e16, 9, 9, 1.0, 9, 9, -1e16, 9};
  EXPECT_EQ(kernels::spmm::column_sum(x.data() + 1, 4, 3), 0.0);
  EXPECT_EQ(kernels::spmm::column_sum(x.data() + 1, 2, 3), 1e16);  // the first two only
  EXPECT_EQ(kernels::spmm::column_sum(x.data(), 4, 3), 36.0);
  EXPECT_EQ(kernels::spmm::column_sum(x.data(), 0, 3), 0.0);
}

TEST(PropagationBodies, CsrToDenseIsTheCpuDenseW) {
  for (const GraphCase& c : cases()) {
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

TEST(GossipLossBodies, RowSumsAreTheLanesAndTheHalvingTree) {
  // One row of 45 columns: lanes_per_row = 32, lane l sums columns l and l + 32 (l < 13), then the tree.
  struct Part {
    const double* v;
    double* out;
    double part(std::int64_t, std::int64_t j) const { return v[j]; }
    void done(std::int64_t, double sum) const { *out = sum; }
  };
  std::vector<double> v(45);
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = (j % 3 == 0 ? 1e16 : 1.0) * (j % 2 ? -1.0 : 1.0) + j;
  double lanes[32] = {};
  for (std::size_t j = 0; j < v.size(); ++j) lanes[j % 32] += v[j];
  for (int stride = 16; stride > 0; stride /= 2)  // ((l0 + l16) + (l8 + l24)) + ..., written out
    for (int l = 0; l < stride; ++l) lanes[l] += lanes[l + stride];
  double got = 0.0;
  kernels::host_row_sums(1, 45, Part{v.data(), &got});
  EXPECT_EQ(got, lanes[0]);
}

TEST(GossipLossBodies, NormsAreTheCpuNormsBitForBit) {
  // r_t(u) of pass 1, in tiles of 1, 3, 32 and all sources, against gossip_row_norms_cpu: the one order.
  for (const GraphCase& c : cases()) {
    for (int t_start : {0, 1, 3}) {
      const GossipLossProblem p{c.graph, c.w, t_start, 6, 0.7, true, false};
      const std::vector<double> cpu = cpu_norms(p);
      const std::int64_t n = c.w.n;
      for (std::int64_t b1 : {std::int64_t{1}, std::int64_t{3}, std::int64_t{32}, n}) {
        const std::vector<double> body = body_norms(p, b1);
        for (std::size_t i = 0; i < cpu.size(); ++i)
          ASSERT_EQ(body[i], cpu[i]) << describe(c, p) << ", tile " << b1 << ": r_" << t_start + i / n << "("
                                     << i % n << ") " << versus(body[i], cpu[i]) << " (0 ulps asked)";
      }
    }
  }
}

TEST(GossipLossBodies, NormChunksAreNodeOrderThenChunkOrder) {
  // One column of 600 entries (3 chunks: 256, 256, 88) whose squares do not add associatively: the chunk
  // sums are node-order sums and the fold adds them in chunk order, written out here.
  const std::int64_t n = 600;
  std::vector<double> x(n);
  for (std::int64_t w = 0; w < n; ++w) x[w] = w == 0 ? 1e8 : 1.0;  // 1e16 + 1 = 1e16: node order loses the 1s
  double expected = 0.0;
  for (std::int64_t c0 = 0; c0 < n; c0 += 256) {
    double chunk = 0.0;
    for (std::int64_t w = c0; w < std::min(n, c0 + 256); ++w) chunk += x[w] * x[w];
    expected += chunk;
  }
  double plain = 0.0;
  for (double v : x) plain += v * v;
  ASSERT_EQ(plain, 1e16);
  ASSERT_EQ(expected, 1e16 + 256 + 88);  // chunks 1 and 2 summed apart: the chunks matter here
  ASSERT_EQ(gl::norm_chunks(n), 3);
  std::vector<double> partial(3), norm(1);
  kernels::host_for_each(3, gl::ChunkSquaresBody{x.data(), n, 1, partial.data()});
  gl::ColumnNormsBody{partial.data(), 3, 1, 0, norm.data()}(0);
  EXPECT_EQ(norm[0], expected);
}

TEST(GossipLossBodies, FusedSharesAreTheCpuShareSum) {
  // With scale 1 and no cap, f(u, v) = 1 * (0 + s_u(w)) = s_u(w) exactly when v's only neighbour is w: the
  // CPU's share sums are visible at its degree-1 observers (the leaves of the star, the path's ends).
  int seen = 0;
  for (const GraphCase& c : cases()) {
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
          ASSERT_EQ(shares[w * n + u], cpu[u * n + v])
              << describe(c, p) << ": s_" << u << "(" << w << ") seen by leaf " << v << ": "
              << versus(shares[w * n + u], cpu[u * n + v]) << " (0 ulps asked)";
        }
      }
    }
  }
  EXPECT_GT(seen, 100);
}

TEST(GossipLossBodies, NeighbourLossesGiveTheCpuRows) {
  // Pass 2 from the CPU's norms: bit for bit, for every tile width, a range of sources, both windows and
  // caps.
  for (const GraphCase& c : cases()) {
    const std::int64_t n = c.w.n;
    for (int t_start : {0, 1}) {
      for (bool cap : {true, false}) {
        const GossipLossProblem p{c.graph, c.w, t_start, 7, 0.35, cap, false};
        const std::vector<double> norms = cpu_norms(p);
        const std::vector<double> cpu = cpu_rows(p, norms, 0, static_cast<node_t>(n));
        ASSERT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << describe(c, p);
        for (std::int64_t b2 : {std::int64_t{1}, std::int64_t{3}, std::int64_t{32}, n}) {
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

TEST(GossipLossBodies, DriverOrderGivesTheCpuLossesBitForBit) {
  // Both passes on the host in the CUDA driver's order, the bodies' own norms: the CPU's bits.
  for (const GraphCase& c : cases()) {
    const std::int64_t n = c.w.n;
    for (int t_start : {0, 1}) {
      const GossipLossProblem p{c.graph, c.w, t_start, 8, 1.3, t_start == 0, false};
      const std::vector<double> cpu = cpu_rows(p, cpu_norms(p), 0, static_cast<node_t>(n));
      const std::vector<double> rows = body_rows(p, body_norms(p, 4), 0, n, 5);
      for (std::size_t i = 0; i < cpu.size(); ++i)
        ASSERT_EQ(rows[i], cpu[i]) << describe(c, p) << ": f(" << i / n << ", " << i % n << ") "
                                   << versus(rows[i], cpu[i]);
    }
  }
}

}  // namespace
}  // namespace netdp
