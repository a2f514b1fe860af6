// CPU backend of the gossip accountant (docs/math.md §6.2): the two passes described in gossip_loss_kernels.hpp.
//
// Powers W^t e_u are computed on panels of sources (cpu/power_panels.hpp), so tiled and untiled runs agree
// bit for bit.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <cblas.h>

#include "common/gossip_loss_math.hpp"
#include "cpu/power_panels.hpp"
#include "gossip_loss_kernels.hpp"

namespace netdp::kernels {
namespace {

/// r_t(u) = ||W^t e_u||^2 for the panel's sources, summed over w in increasing order.
template <int L>
void panel_row_norms(const GossipLossProblem& p, const double* w_dense, node_t first, node_t valid,
                     std::span<double> norms) {
  const node_t n = p.w.n;
  std::vector<double> x(static_cast<std::size_t>(n) * L), y(x.size());
  auto source = panel_sources<L>(first, valid);
  walk_powers<L>(p.w, p.t_start + p.steps, w_dense, source, x, y, [&](int t, const std::vector<double>& xt) {
    if (t < p.t_start) return;
    const int k = t - p.t_start;
    std::array<double, L> acc{};
    for (node_t w = 0; w < n; ++w)
      for (int j = 0; j < L; ++j)
        acc[j] += xt[static_cast<std::size_t>(w) * L + j] * xt[static_cast<std::size_t>(w) * L + j];
    for (int j = 0; j < valid; ++j) norms[static_cast<std::size_t>(k) * n + source[j]] = acc[j];
  });
}

/// Loss rows of the panel's sources: s_u(w) = sum_t share, then f(u, v) = scale * sum_{w in N(v)} s_u(w).
template <int L>
void panel_loss_rows(const GossipLossProblem& p, const double* w_dense, std::span<const double> norms,
                     node_t first, node_t valid, double* rows) {
  const node_t n = p.w.n;
  std::vector<double> x(static_cast<std::size_t>(n) * L), y(x.size()), s(x.size(), 0.0);
  auto source = panel_sources<L>(first, valid);
  walk_powers<L>(p.w, p.t_start + p.steps, w_dense, source, x, y, [&](int t, const std::vector<double>& xt) {
    if (t < p.t_start) return;
    const double* r = norms.data() + static_cast<std::size_t>(t - p.t_start) * n;
    for (node_t w = 0; w < n; ++w)
      for (int j = 0; j < L; ++j) {
        std::size_t at = static_cast<std::size_t>(w) * L + j;
        s[at] += message_share(xt[at], r[w]);
      }
  });
  for (node_t v = 0; v < n; ++v) {
    std::array<double, L> acc{};
    for (node_t w : p.graph.neighbors(v))
      for (int j = 0; j < L; ++j) acc[j] += s[static_cast<std::size_t>(w) * L + j];
    for (int j = 0; j < valid; ++j)
      rows[static_cast<std::size_t>(j) * n + v] = pair_loss(acc[j], p.scale, p.cap_ldp, v == source[j]);
  }
}

}  // namespace

void gossip_row_norms_cpu(const GossipLossProblem& p, std::span<double> norms) {
  const node_t n = p.w.n;
  if (p.dense) {
    auto dense = to_dense(p.w);
    for_each_panel<kDenseLanes>(0, n, false, [&](node_t start, node_t valid) {
      panel_row_norms<kDenseLanes>(p, dense.data(), start, valid, norms);
    });
  } else {
    for_each_panel<kSparseLanes>(0, n, true, [&](node_t start, node_t valid) {
      panel_row_norms<kSparseLanes>(p, nullptr, start, valid, norms);
    });
  }
}

void gossip_loss_rows_cpu(const GossipLossProblem& p, std::span<const double> norms, node_t first,
                          node_t count, std::span<double> rows) {
  const node_t n = p.w.n;
  auto row_of = [&](node_t start) { return rows.data() + static_cast<std::size_t>(start - first) * n; };
  if (p.dense) {
    auto dense = to_dense(p.w);
    for_each_panel<kDenseLanes>(first, count, false, [&](node_t start, node_t valid) {
      panel_loss_rows<kDenseLanes>(p, dense.data(), norms, start, valid, row_of(start));
    });
  } else {
    for_each_panel<kSparseLanes>(first, count, true, [&](node_t start, node_t valid) {
      panel_loss_rows<kSparseLanes>(p, nullptr, norms, start, valid, row_of(start));
    });
  }
}

std::int64_t gossip_cpu_workspace_bytes(const GossipLossProblem& p, int threads) {
  const std::int64_t n = p.w.n;
  if (p.dense) return n * n * 8 + 3 * n * kDenseLanes * 8;
  return std::int64_t(threads) * 3 * n * kSparseLanes * 8;
}

}  // namespace netdp::kernels
