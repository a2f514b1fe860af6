// CPU backend of the gossip accountant (docs/math.md §6.2): the two passes described in
// gossip_loss_kernels.hpp.
//
// Powers W^t e_u are computed on panels of sources (cpu/power_panels.hpp), so tiled and untiled runs agree
// bit for bit.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <cblas.h>

#include "common/csr_host.hpp"
#include "common/gossip_loss_bodies.hpp"
#include "common/gossip_loss_math.hpp"
#include "common/rounding.hpp"
#include "cpu/power_panels.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/ground/work_counter.hpp"

namespace netdp::kernels {
namespace {

/// r[u] = r_t(u) = ||W^t e_u||^2 for the panel's real sources, from their columns xt, in the one order of
/// the CUDA twin (gossip_loss::chunk_square_sums over chunks of kNormChunk nodes, then the chunks in order;
/// common/gossip_loss_bodies.hpp, docs/cuda_backend.md "Gossip-loss: the norms' one order").
template <int L>
void own_norms(node_t n, const double* xt, const std::array<node_t, L>& source, node_t valid, double* r) {
  std::array<double, L> acc{}, chunk{};
  for (std::int64_t w0 = 0; w0 < n; w0 += gossip_loss::kNormChunk) {
    gossip_loss::chunk_square_sums<L>(xt, L, w0, std::min<std::int64_t>(n, w0 + gossip_loss::kNormChunk),
                                      chunk.data());
    for (int j = 0; j < L; ++j) acc[j] = rn_add(acc[j], chunk[j]);
  }
  for (int j = 0; j < valid; ++j) r[source[j]] = acc[j];
}

/// s_u(w) += (W^t)_{w,u}^2 / r_t(w) for the panel's lanes (r: the norms of power t).
template <int L>
void add_shares(node_t n, const double* xt, const double* r, double* s) {
  for (node_t w = 0; w < n; ++w)
    for (int j = 0; j < L; ++j) {
      std::size_t at = static_cast<std::size_t>(w) * L + j;
      s[at] += message_share(xt[at], r[w]);
    }
}

/// Loss rows j < valid of a panel from its shares: f(u, v) = scale * sum_{w in N(v)} s_u(w), row j at
/// rows + j * n.
template <int L>
void rows_from_shares(const GossipLossProblem& p, const double* s, const std::array<node_t, L>& source,
                      node_t valid, double* rows) {
  const node_t n = p.w.n;
  for (node_t v = 0; v < n; ++v) {
    std::array<double, L> acc{};
    for (node_t w : p.graph.neighbors(v))
      for (int j = 0; j < L; ++j) acc[j] += s[static_cast<std::size_t>(w) * L + j];
    for (int j = 0; j < valid; ++j)
      rows[static_cast<std::size_t>(j) * n + v] = pair_loss(acc[j], p.scale, p.cap_ldp, v == source[j]);
  }
}

/// r_t(u) = ||W^t e_u||^2 for the panel's sources (own_norms: the one order).
template <int L>
void panel_row_norms(const GossipLossProblem& p, const double* w_dense, node_t first, node_t valid,
                     std::span<double> norms) {
  const node_t n = p.w.n;
  std::vector<double> x(static_cast<std::size_t>(n) * L), y(x.size());
  auto source = panel_sources<L>(first, valid);
  walk_powers<L>(p.w, p.t_start + p.steps, w_dense, source, x, y, [&](int t, const std::vector<double>& xt) {
    if (t < p.t_start) return;
    const int k = t - p.t_start;
    own_norms<L>(n, xt.data(), source, valid, norms.data() + static_cast<std::size_t>(k) * n);
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
    add_shares<L>(n, xt.data(), norms.data() + static_cast<std::size_t>(t - p.t_start) * n, s.data());
  });
  rows_from_shares<L>(p, s.data(), source, valid, rows);
}

}  // namespace

void gossip_row_norms_cpu(const GossipLossProblem& p, std::span<double> norms,
                          const std::function<bool(double)>& progress) {
  const node_t n = p.w.n;
  const int lanes = p.dense ? kDenseLanes : kSparseLanes;
  ground::WorkCounter panels_done((n + lanes - 1) / lanes, progress);
  if (p.dense) {
    auto dense = to_dense(p.w);
    for_each_panel<kDenseLanes>(0, n, false, [&](node_t start, node_t valid) {
      if (panels_done.stopped()) return;
      panel_row_norms<kDenseLanes>(p, dense.data(), start, valid, norms);
      panels_done.finished_one();
    });
  } else {
    for_each_panel<kSparseLanes>(0, n, true, [&](node_t start, node_t valid) {
      if (panels_done.stopped()) return;
      panel_row_norms<kSparseLanes>(p, nullptr, start, valid, norms);
      panels_done.finished_one();
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

namespace {

/// A panel of the one pass: its sources and its two power buffers.
template <int L>
struct OnePassPanel {
  std::array<node_t, L> source;
  node_t valid;
  std::vector<double> x, y;
};

template <int L>
void add_panels(std::vector<OnePassPanel<L>>& panels, node_t n, node_t first, node_t count) {
  for (node_t start = first; start < first + count; start += L) {
    const node_t valid = std::min<node_t>(L, first + count - start);
    panels.push_back({panel_sources<L>(start, valid), valid, std::vector<double>(std::size_t(n) * L),
                      std::vector<double>(std::size_t(n) * L)});
  }
}

template <int L>
GossipShares one_pass(const GossipLossProblem& p, const double* w_dense, node_t first, node_t count,
                      const std::function<bool(double)>& progress) {
  const node_t n = p.w.n;
  const std::size_t block = std::size_t(n) * L;
  // Every node's panel gives its own r_t(u); the requested sources are those panels when they are all n.
  std::vector<OnePassPanel<L>> panels;
  add_panels<L>(panels, n, 0, n);
  const std::size_t norm_panels = panels.size();
  const bool own = first != 0 || count != n;
  if (own) add_panels<L>(panels, n, first, count);
  const std::size_t loss_begin = own ? norm_panels : 0;
  GossipShares out{L, first, count, std::vector<double>((panels.size() - loss_begin) * block, 0.0)};
  std::vector<double> r(static_cast<std::size_t>(n));
  const int t_end = p.t_start + p.steps;
  // Power t of panel b, then its sources' r_t(u) (norm panels), or its shares (after every panel's norms).
  const auto power = [&](std::size_t b, int t) {
    OnePassPanel<L>& panel = panels[b];
    PanelPowers<L> powers{p.w, w_dense, panel.x, panel.y};
    if (t == 0)
      powers.start(panel.source);
    else
      powers.next();
    if (t >= p.t_start && b < norm_panels)
      own_norms<L>(n, panel.x.data(), panel.source, panel.valid, r.data());
  };
  const auto shares = [&](std::size_t b) {
    add_shares<L>(n, panels[b].x.data(), r.data(), out.shares.data() + (b - loss_begin) * block);
  };
  const auto report = [&](int t) {  // false: stop (the driver's answer, every power)
    return !progress || progress(double(t + 1) / t_end);
  };
  if (w_dense || panels.size() < 4) {  // one thread: the dense panels run one at a time, as in two passes
    for (int t = 0; t < t_end; ++t) {
      for (std::size_t b = 0; b < panels.size(); ++b) power(b, t);
      if (t >= p.t_start)
        for (std::size_t b = loss_begin; b < panels.size(); ++b) shares(b);
      if (!report(t)) break;
    }
    return out;
  }
  bool going = true;
  // One parallel region for all the powers: a barrier per phase, not a region per power.
#pragma omp parallel
  for (int t = 0; t < t_end && going; ++t) {
#pragma omp for schedule(static)
    for (std::size_t b = 0; b < panels.size(); ++b) power(b, t);
    if (t >= p.t_start) {
#pragma omp for schedule(static)
      for (std::size_t b = loss_begin; b < panels.size(); ++b) shares(b);
    }
#pragma omp single
    going = report(t);
  }
  return out;
}

template <int L>
void rows_of_panels(const GossipLossProblem& p, const GossipShares& s, node_t start, node_t rows,
                    double* out) {
  const node_t n = p.w.n;
  const std::size_t block = std::size_t(n) * L;
  for (node_t at = start; at < start + rows; at += L) {
    const node_t valid = std::min<node_t>(L, s.first + s.count - at);
    const std::size_t b = static_cast<std::size_t>((at - s.first) / L);
    rows_from_shares<L>(p, s.shares.data() + b * block, panel_sources<L>(at, valid), valid,
                        out + static_cast<std::size_t>(at - start) * n);
  }
}

}  // namespace

std::int64_t gossip_one_pass_bytes(const GossipLossProblem& p, node_t first, node_t count) {
  const std::int64_t n = p.w.n, lanes = p.dense ? kDenseLanes : kSparseLanes;
  auto panels = [&](std::int64_t sources) { return (sources + lanes - 1) / lanes; };
  const std::int64_t blocks = 2 * panels(n) + (first != 0 || count != n ? 3 : 1) * panels(count);
  return blocks * n * lanes * 8 + n * 8 + (p.dense ? n * n * 8 : 0);
}

GossipShares gossip_shares_one_pass_cpu(const GossipLossProblem& p, node_t first, node_t count,
                                        const std::function<bool(double)>& progress) {
  if (!p.dense) return one_pass<kSparseLanes>(p, nullptr, first, count, progress);
  const auto dense = to_dense(p.w);
  return one_pass<kDenseLanes>(p, dense.data(), first, count, progress);
}

void gossip_loss_rows_from_shares_cpu(const GossipLossProblem& p, const GossipShares& shares, node_t start,
                                      node_t rows, std::span<double> out) {
  if (shares.lanes == kDenseLanes)
    rows_of_panels<kDenseLanes>(p, shares, start, rows, out.data());
  else
    rows_of_panels<kSparseLanes>(p, shares, start, rows, out.data());
}

}  // namespace netdp::kernels
