// CPU backend of the gossip accountant (MATH_SPEC 6.2): the two passes described in gossip_loss_kernels.hpp.
//
// Sources are processed in panels of a fixed number of lanes (columns). A panel holds W^t e_u for its sources
// as an n x lanes row-major block, so one sparse row of W updates all lanes with contiguous loads. The panel
// width never depends on the tile, and a short last panel is padded with copies of a real source, so every
// source column goes through identical arithmetic: tiled and untiled runs agree bit for bit.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <cblas.h>

#include "common/gossip_loss_math.hpp"
#include "gossip_loss_kernels.hpp"

namespace netdp::kernels {
namespace {

constexpr int kSparseLanes = 8;  // one 64-byte cache line of doubles per row of the panel
constexpr int kDenseLanes = 64;  // wide enough for GEMM to run near peak

/// y = W x on a panel, W sparse (CSR).
template <int L>
void propagate_sparse(const CsrMatrix& w, const double* x, double* y) {
  const offset_t* offsets = w.offsets.data();
  const node_t* columns = w.columns.data();
  const double* values = w.values.data();
  for (node_t i = 0; i < w.n; ++i) {
    std::array<double, L> acc{};
    for (offset_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      const double a = values[k];
      const double* xr = x + static_cast<std::size_t>(columns[k]) * L;
      for (int j = 0; j < L; ++j) acc[j] += a * xr[j];
    }
    std::copy(acc.begin(), acc.end(), y + static_cast<std::size_t>(i) * L);
  }
}

/// y = W x on a panel, W dense (row-major n x n).
template <int L>
void propagate_dense(node_t n, const double* w_dense, const double* x, double* y) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, L, n, 1.0, w_dense, n, x, L, 0.0, y, L);
}

/// The sources of a panel: lane j computes W^t e_{source[j]}; lanes past `valid` repeat the last real source.
template <int L>
std::array<node_t, L> panel_sources(node_t first, node_t valid) {
  std::array<node_t, L> source{};
  for (int j = 0; j < L; ++j) source[j] = first + std::min<node_t>(j, valid - 1);
  return source;
}

/// Runs W^t e_u for t = 0 .. t_start + steps - 1 on one panel and calls visit(k, x) for t = t_start + k.
template <int L, typename Visit>
void walk_powers(const GossipLossProblem& p, const double* w_dense, const std::array<node_t, L>& source,
                 std::vector<double>& x, std::vector<double>& y, Visit&& visit) {
  const node_t n = p.w.n;
  std::fill(x.begin(), x.end(), 0.0);
  for (int j = 0; j < L; ++j) x[static_cast<std::size_t>(source[j]) * L + j] = 1.0;
  for (int t = 0; t < p.t_start + p.steps; ++t) {
    if (t > 0) {
      if (w_dense)
        propagate_dense<L>(n, w_dense, x.data(), y.data());
      else
        propagate_sparse<L>(p.w, x.data(), y.data());
      x.swap(y);
    }
    if (t >= p.t_start) visit(t - p.t_start, x);
  }
}

/// r_t(u) = ||W^t e_u||^2 for the panel's sources, summed over w in increasing order.
template <int L>
void panel_row_norms(const GossipLossProblem& p, const double* w_dense, node_t first, node_t valid,
                     std::span<double> norms) {
  const node_t n = p.w.n;
  std::vector<double> x(static_cast<std::size_t>(n) * L), y(x.size());
  auto source = panel_sources<L>(first, valid);
  walk_powers<L>(p, w_dense, source, x, y, [&](int k, const std::vector<double>& xt) {
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
  walk_powers<L>(p, w_dense, source, x, y, [&](int k, const std::vector<double>& xt) {
    const double* r = norms.data() + static_cast<std::size_t>(k) * n;
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

/// Calls work(panel_first, panel_valid) for the panels covering [first, first + count): in parallel over
/// panels for the sparse path, serially (GEMM is threaded itself) for the dense one.
template <int L, typename Work>
void for_each_panel(node_t first, node_t count, bool parallel, Work&& work) {
  const node_t panels = (count + L - 1) / L;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (node_t b = 0; b < panels; ++b) {
    node_t start = first + b * L;
    work(start, std::min<node_t>(L, first + count - start));
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
