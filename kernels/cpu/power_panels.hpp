#pragma once
// Panels of source columns for the CPU backends: W^t e_u for several sources u at once.
//
// A panel holds W^t e_u for L sources as an n x L row-major block, so one sparse row of W updates all lanes
// with contiguous loads and the panel stays in cache for every power. The panel width never depends on the
// tile, and a short last panel is padded with copies of a real source, so every source column goes through
// identical arithmetic: results do not depend on tiling (docs/design.md principle 5).
#include <cblas.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "common/csr_product.hpp"
#include "common/panel_lanes.hpp"
#include "netdp/ground/serial_blas.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

/// y = W x on a panel, W sparse (CSR).
template <int L>
void propagate_sparse(CsrView w, const double* x, double* y) {
  for (node_t i = 0; i < w.n; ++i)
    csr_row_product<L>(w.offsets.data(), w.columns.data(), w.values.data(), i, x, L, y);
}

/// y = W x on a panel, W dense (row-major n x n).
template <int L>
void propagate_dense(node_t n, const double* w_dense, const double* x, double* y) {
  use_single_threaded_blas();  // the panels run in parallel; each GEMM on one thread
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, L, n, 1.0, w_dense, n, x, L, 0.0, y, L);
}

/// The sources of a panel: lane j computes W^t e_{source[j]}; lanes past `valid` repeat the last real source.
template <int L>
std::array<node_t, L> panel_sources(node_t first, node_t valid) {
  std::array<node_t, L> source{};
  for (int j = 0; j < L; ++j) source[j] = first + std::min<node_t>(j, valid - 1);
  return source;
}

/// A panel's powers one at a time: start() sets x = W^0 e_{source[j]} in lane j, next() makes x the next
/// power (y is scratch). w_dense (row-major n x n) selects GEMM, nullptr the sparse product.
template <int L>
struct PanelPowers {
  CsrView w;
  const double* w_dense;
  std::vector<double>& x;
  std::vector<double>& y;

  void start(const std::array<node_t, L>& source) {
    std::fill(x.begin(), x.end(), 0.0);
    for (int j = 0; j < L; ++j) x[static_cast<std::size_t>(source[j]) * L + j] = 1.0;
  }
  void next() {
    if (w_dense)
      propagate_dense<L>(w.n, w_dense, x.data(), y.data());
    else
      propagate_sparse<L>(w, x.data(), y.data());
    x.swap(y);
  }
};

/// Computes x = W^t e_{source[j]} in lane j for t = 0 .. t_end - 1 and calls visit(t, x) after each power.
template <int L, typename Visit>
void walk_powers(CsrView w, int t_end, const double* w_dense, const std::array<node_t, L>& source,
                 std::vector<double>& x, std::vector<double>& y, Visit&& visit) {
  PanelPowers<L> powers{w, w_dense, x, y};
  powers.start(source);
  for (int t = 0; t < t_end; ++t) {
    if (t > 0) powers.next();
    visit(t, x);
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

}  // namespace netdp::kernels
