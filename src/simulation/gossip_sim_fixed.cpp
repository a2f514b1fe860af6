// Sync and accelerated gossip with one W for the whole batch (docs/math.md §6.2, 2.4): the batch's states
// form an n x (D runs) block, stored as panels of kSparseLanes columns (n x 8 row-major, as
// cpu/power_panels.hpp) so that one sparse row of W updates a cache line of every panel. Column c = b D + k
// is coordinate k of run first + b; a short last panel is padded with zero columns. Every column goes through
// the same arithmetic whatever its panel, lane, batch or thread, so results do not depend on them.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "common/csr_product.hpp"
#include "common/panel_lanes.hpp"
#include "core/progress.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp::gossip_sim_detail {

namespace {

constexpr int L = kernels::kSparseLanes;
constexpr node_t kRowChunk = 1024;  // rows per task when the panels are too few to keep the threads busy

/// Rows [begin, end) of one panel step: y = W x (sync, or the first accelerated step), or the Chebyshev
/// recursion y = gamma W x + (1 - gamma) prev (docs/math.md §2.4), W x by kernels::csr_row_product.
void step_rows(const CsrMatrix& w, const double* x, const double* prev, double gamma, double* y, node_t begin,
               node_t end) {
  for (node_t i = begin; i < end; ++i) {
    kernels::csr_row_product<L>(w.offsets.data(), w.columns.data(), w.values.data(), i, x, L, y);
    if (!prev) continue;
    double* yr = y + static_cast<std::size_t>(i) * L;
    const double* pr = prev + static_cast<std::size_t>(i) * L;
    for (int j = 0; j < L; ++j) yr[j] = gamma * yr[j] + (1.0 - gamma) * pr[j];
  }
}

/// The batch: up to three state buffers (x^{t-1}, x^t, x^{t+1}) of `panels` panels each.
struct Batch {
  std::int64_t first = 0, count = 0, columns = 0, panels = 0;
  std::vector<double> buffers[3];
  std::vector<double> ref_true, ref_noisy;  // per column: xbar_k and the run's noisy average
  std::vector<double> col_true, col_noisy;  // per recorded time and column: sum_v (x_v - ref)^2
};

std::size_t panel_size(node_t n) {
  return static_cast<std::size_t>(n) * L;
}

/// x^0 of every run, scattered into the panels of buffer 0; the references of every column.
void start_batch(const SimContext& c, Batch& b) {
  const node_t n = c.g.n;
  const int dim = c.p.dim;
#pragma omp parallel
  {
    std::vector<double> state(static_cast<std::size_t>(n) * dim), average(dim);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t r = 0; r < b.count; ++r) {
      noisy_start(c, b.first + r, state, average);
      for (int k = 0; k < dim; ++k) {
        const std::int64_t col = r * dim + k;
        double* panel = b.buffers[0].data() + static_cast<std::size_t>(col / L) * panel_size(n);
        for (node_t v = 0; v < n; ++v)
          panel[static_cast<std::size_t>(v) * L + col % L] = state[static_cast<std::size_t>(v) * dim + k];
        b.ref_true[col] = c.xbar[k];
        b.ref_noisy[col] = average[k];
      }
    }
  }
}

/// Column sums of squared differences of one panel at recorded time `point`.
void record_panel(const SimContext& c, Batch& b, std::int64_t panel, const double* x, std::size_t point) {
  std::array<double, L> sum_true{}, sum_noisy{}, ref_true{}, ref_noisy{};
  const std::int64_t col0 = panel * L, valid = std::min<std::int64_t>(L, b.columns - col0);
  for (int j = 0; j < valid; ++j) {
    ref_true[j] = b.ref_true[col0 + j];
    ref_noisy[j] = b.ref_noisy[col0 + j];
  }
  for (node_t v = 0; v < c.g.n; ++v)
    for (int j = 0; j < L; ++j) {
      const double value = x[static_cast<std::size_t>(v) * L + j];
      const double dt = value - ref_true[j], dn = value - ref_noisy[j];
      sum_true[j] += dt * dt;
      sum_noisy[j] += dn * dn;
    }
  for (int j = 0; j < valid; ++j) {
    b.col_true[point * b.columns + col0 + j] = sum_true[j];
    b.col_noisy[point * b.columns + col0 + j] = sum_noisy[j];
  }
}

/// All T steps of one panel, its rows split over the threads when `parallel_rows` (called then from outside
/// any parallel region). `on_record(point, x)` runs after each recorded time.
template <typename OnRecord>
void run_panel(const SimContext& c, Batch& b, std::int64_t panel, bool parallel_rows, OnRecord&& on_record) {
  const node_t n = c.g.n;
  const std::size_t at = static_cast<std::size_t>(panel) * panel_size(n);
  double* prev = b.buffers[2].empty() ? nullptr : b.buffers[2].data() + at;
  double* cur = b.buffers[0].data() + at;
  double* next = b.buffers[1].data() + at;
  const bool chebyshev = c.p.protocol == GossipProtocol::accelerated;
  std::size_t point = 0;
  for (int t = 0; t <= c.p.steps; ++t) {
    if (t > 0) {
      const double* before = chebyshev && t >= 2 ? prev : nullptr;  // x^1 = W x^0
      if (parallel_rows) {
        const node_t chunks = (n + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for schedule(static)
        for (node_t k = 0; k < chunks; ++k)
          step_rows(c.w, cur, before, c.gamma, next, k * kRowChunk, std::min<node_t>(n, (k + 1) * kRowChunk));
      } else {
        step_rows(c.w, cur, before, c.gamma, next, 0, n);
      }
      if (chebyshev) {
        std::swap(prev, cur);  // prev <- x^{t-1}
        std::swap(cur, next);  // cur <- x^t, next <- x^{t-2}, overwritten next step
      } else {
        std::swap(cur, next);
      }
    }
    if (point < c.times.size() && c.times[point] == t) on_record(point++, cur);
  }
}

}  // namespace

void simulate_fixed(const SimContext& c, std::int64_t first, std::int64_t count, BatchErrors& out,
                    const StateVisitor* visit, WorkMeter& meter) {
  const node_t n = c.g.n;
  const int dim = c.p.dim;
  const std::size_t points = c.times.size();
  Batch b;
  b.first = first;
  b.count = count;
  b.columns = count * dim;
  b.panels = (b.columns + L - 1) / L;
  const int buffers = c.p.protocol == GossipProtocol::accelerated ? 3 : 2;
  for (int i = 0; i < buffers; ++i)
    b.buffers[i].assign(static_cast<std::size_t>(b.panels) * panel_size(n), 0.0);
  b.ref_true.assign(static_cast<std::size_t>(b.columns), 0.0);
  b.ref_noisy.assign(static_cast<std::size_t>(b.columns), 0.0);
  b.col_true.assign(points * static_cast<std::size_t>(b.columns), 0.0);
  b.col_noisy.assign(b.col_true.size(), 0.0);
  start_batch(c, b);

  const double runs_per_panel = double(L) / dim;
  // Many panels: one thread per panel, all T steps while it is in cache. Few (or a visitor that wants whole
  // runs): panel after panel, rows in parallel.
  if (b.panels >= omp_get_max_threads() && !visit) {
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t panel = 0; panel < b.panels; ++panel) {
      if (stop_requested()) continue;  // a watched run was asked to stop (core/progress.hpp)
      run_panel(c, b, panel, false,
                [&](std::size_t point, const double* x) { record_panel(c, b, panel, x, point); });
      meter.add(runs_per_panel * c.p.steps);
    }
  } else {
    // A visitor gets whole runs (count is 1 then): gather the run's D columns per recorded time.
    std::vector<std::vector<double>> states(visit ? points : 0, std::vector<double>(std::size_t(n) * dim));
    for (std::int64_t panel = 0; panel < b.panels; ++panel) {
      throw_if_stopped();
      run_panel(c, b, panel, true, [&](std::size_t point, const double* x) {
        record_panel(c, b, panel, x, point);
        if (!visit) return;
        for (std::int64_t col = panel * L; col < std::min<std::int64_t>(b.columns, (panel + 1) * L); ++col)
          for (node_t v = 0; v < n; ++v)
            states[point][static_cast<std::size_t>(v) * dim + col] =
                x[static_cast<std::size_t>(v) * L + col % L];
      });
      meter.add(runs_per_panel * c.p.steps);
    }
    for (std::size_t i = 0; i < states.size(); ++i) (*visit)(first, i, states[i]);
  }
  throw_if_stopped();  // skipped panels hold no result

  out.truth.assign(static_cast<std::size_t>(count) * points, 0.0);
  out.noisy.assign(out.truth.size(), 0.0);
  for (std::int64_t r = 0; r < count; ++r)
    for (std::size_t i = 0; i < points; ++i) {
      double sum_true = 0, sum_noisy = 0;
      for (int k = 0; k < dim; ++k) {
        sum_true += b.col_true[i * b.columns + r * dim + k];
        sum_noisy += b.col_noisy[i * b.columns + r * dim + k];
      }
      out.truth[r * points + i] = sum_true / n;
      out.noisy[r * points + i] = sum_noisy / n;
    }
}

}  // namespace netdp::gossip_sim_detail
