// The gossip accountant's twins byte for byte (docs/cuda_backend.md "Gossip-loss twins"): the CPU twin
// (kernels/cpu/gossip_loss_cpu.cpp: two passes, and the one-pass method) and the CUDA twin
// (kernels/cuda/gossip_loss_cuda.cu) built for the emulated device run the same bodies of kernels/common (the
// CSR-order product, the norms' one order, the shares, the neighbour sums), so for the same problem their
// loss rows, collected through a LossRowSink, must be equal to the last bit (memcmp): complete, ring, path,
// star, hypercube and Erdos-Renyi graphs (n above, below and not a multiple of the 256-node norm chunk, the
// 8-lane CPU panels and the 32-source tiles), Metropolis and max-degree W, forced tiles of 1, 3 and 7 sources
// and the automatic 32, both t_start, several T, cap on and off, all sources and a range. The dense path
// propagates by a vendor GEMM on either twin (OpenBLAS, cuBLAS; "Gossip-loss twins"), so it is held to
// 1e-13 relative here and to 1e-10 by the CUDA suites. Built only against the emulated device
// (tests/CMakeLists.txt, labels device-bodies and twins).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gossip_loss_kernels.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"
#include "support/twins_compare.hpp"
#include "support/twins_graphs.hpp"

namespace netdp {
namespace {

using testing::CollectingSink;
using testing::expect_same_bytes;

using kernels::GossipLossProblem;

/// The CPU twin, two passes: all n sources' norms, then rows first .. first + count - 1.
std::vector<double> cpu_rows(const GossipLossProblem& p, node_t first, node_t count) {
  std::vector<double> norms(static_cast<std::size_t>(p.steps) * p.w.n);
  kernels::gossip_row_norms_cpu(p, norms);
  std::vector<double> rows(static_cast<std::size_t>(count) * p.w.n);
  kernels::gossip_loss_rows_cpu(p, norms, first, count, rows);
  return rows;
}

/// The CPU twin's one-pass method (docs/gossip_loss.md "One pass for long horizons").
std::vector<double> cpu_one_pass_rows(const GossipLossProblem& p, node_t first, node_t count) {
  const kernels::GossipShares shares = kernels::gossip_shares_one_pass_cpu(p, first, count, {});
  std::vector<double> rows(static_cast<std::size_t>(count) * p.w.n);
  kernels::gossip_loss_rows_from_shares_cpu(p, shares, first, count, rows);
  return rows;
}

/// The CUDA twin on the emulated device, in the driver's order (src/accounting/gossip_loss.cpp): pass 1 over
/// all n sources in tiles of plan().norms_tile, then pass 2 over the requested ones, rows through the sink.
std::vector<double> cuda_rows(const GossipLossProblem& p, node_t first, node_t count, std::int64_t tile) {
  const node_t n = p.w.n;
  CollectingSink sink(n, first, count);
  auto engine = kernels::gossip_loss_cuda(p, 0, first, count, tile, 0, sink);
  const kernels::CudaGossipLossRun plan = engine->plan();
  if (tile > 0) {
    EXPECT_EQ(plan.tile_sources, std::min<std::int64_t>(tile, count));
  }
  for (node_t s = 0; s < n; s += static_cast<node_t>(plan.norms_tile))
    engine->add_norms(s, static_cast<node_t>(std::min<std::int64_t>(plan.norms_tile, n - s)));
  for (node_t s = first; s < first + count; s += static_cast<node_t>(plan.tile_sources))
    engine->loss_rows(s, static_cast<node_t>(std::min<std::int64_t>(plan.tile_sources, first + count - s)));
  engine->finish();
  EXPECT_EQ(sink.next(), first + count);
  return sink.rows();
}

using Case = testing::TwinGraph;

std::vector<Case> cases() {
  // er 601: 3 norm chunks, the last of 89 nodes.
  return testing::twin_graphs(
      {.complete = 40, .hypercube_dim = 6, .er_max_degree = {120, 0.06}, .er = {601, 0.012}});
}

std::string describe(const Case& c, const GossipLossProblem& p, std::int64_t tile) {
  return c.name + " t_start " + std::to_string(p.t_start) + " T " + std::to_string(p.steps) + " cap " +
         std::to_string(p.cap_ldp) + " scale " + std::to_string(p.scale) + " tile " + std::to_string(tile);
}

TEST(GossipLossTwins, SparseRowsAreTheSameBytes) {
  int compared = 0;
  for (const Case& c : cases()) {
    const node_t n = c.g.n;
    const bool big = n > 200;
    for (int t_start : {0, 1}) {
      for (int steps : big ? std::vector<int>{6} : std::vector<int>{1, 5, 13}) {
        for (bool cap : {true, false}) {
          const double scale = cap ? 0.7 : 1.9;
          const GossipLossProblem p{c.g, c.w, t_start, steps, scale, cap, false};
          const std::vector<double> cpu = cpu_rows(p, 0, n);
          ASSERT_GT(*std::max_element(cpu.begin(), cpu.end()), 0.0) << c.name;
          for (std::int64_t tile :
               big ? std::vector<std::int64_t>{0, 7} : std::vector<std::int64_t>{0, 1, 3, 7}) {
            expect_same_bytes(cpu, cuda_rows(p, 0, n, tile), describe(c, p, tile),
                              static_cast<std::size_t>(n));
            ++compared;
          }
          // A range of sources that starts inside a CPU panel and a CUDA tile.
          const node_t first = n / 3 + 1, count = std::min<node_t>(11, n - first);
          const std::vector<double> part(cpu.begin() + static_cast<std::ptrdiff_t>(first) * n,
                                         cpu.begin() + static_cast<std::ptrdiff_t>(first + count) * n);
          expect_same_bytes(part, cpu_rows(p, first, count), describe(c, p, 0) + " CPU range",
                            static_cast<std::size_t>(n));
          expect_same_bytes(part, cuda_rows(p, first, count, 3), describe(c, p, 3) + " range",
                            static_cast<std::size_t>(n));
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 6 * 2 * 3 * 2 * 5 + 1 * 2 * 1 * 2 * 3);
}

TEST(GossipLossTwins, OnePassRowsAreTheSameBytes) {
  // The CPU's one-pass method holds r_t for the current t only and sums the same chunks: the same bits.
  for (const Case& c : cases()) {
    const node_t n = c.g.n;
    const GossipLossProblem p{c.g, c.w, 1, n > 200 ? 5 : 11, 1.1, false, false};
    const std::vector<double> cuda = cuda_rows(p, 0, n, 0);
    expect_same_bytes(cpu_one_pass_rows(p, 0, n), cuda, describe(c, p, 0) + " one pass",
                      static_cast<std::size_t>(n));
    const node_t first = n / 2, count = std::min<node_t>(9, n - first);
    expect_same_bytes(cpu_one_pass_rows(p, first, count), cuda_rows(p, first, count, 0),
                      describe(c, p, 0) + " one pass range", static_cast<std::size_t>(n));
  }
}

TEST(GossipLossTwins, DensePathIsTheVendorGemmWithinRounding) {
  // Dense W: GEMM on either twin (the one vendor function, "Gossip-loss twins"); the rest is the same bodies.
  for (const Case& c : cases()) {
    if (c.g.n > 200) continue;
    const node_t n = c.g.n;
    const GossipLossProblem p{c.g, c.w, 0, 6, 0.9, false, true};
    const std::vector<double> cpu = cpu_rows(p, 0, n);
    for (std::int64_t tile : {0, 5}) {
      const std::vector<double> cuda = cuda_rows(p, 0, n, tile);
      ASSERT_EQ(cpu.size(), cuda.size());
      for (std::size_t i = 0; i < cpu.size(); ++i)
        ASSERT_LE(std::abs(cuda[i] - cpu[i]), 1e-13 * std::abs(cpu[i]))
            << describe(c, p, tile) << " dense: row " << i / n << " observer " << i % n;
    }
  }
}

TEST(GossipLossTwins, LibraryMatricesAreTheSameBytesOnEitherDevice) {
  // gossip_loss_matrix (theorem accounting) through either device: the driver, the sink and the writers'
  // input.
  GossipLossParams p;
  p.accounting = GossipAccounting::theorem;
  p.steps = 9;
  p.sigma = 1.3;
  p.propagation = Propagation::sparse;
  for (const Case& c : cases()) {
    if (c.g.n > 200) continue;
    testing::expect_same_matrix_on_either_device(
        c, p,
        [](const Graph& g, const CsrMatrix& w, const GossipLossParams& q) {
          GossipLossRun run;  // with the run's report
          return gossip_loss_matrix(g, w, q, &run);
        },
        c.name + " library");
  }
}

}  // namespace
}  // namespace netdp
