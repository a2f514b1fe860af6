// The CPU twin of the fixed-W gossip simulator (sync, accelerated: docs/math.md §6.2, 2.4; interface:
// gossip_sim_kernels.hpp), running the CUDA twin's bodies (kernels/common/gossip_sim_bodies.hpp,
// gossip_spmm_bodies.hpp) in its own loop order. The batch's states form an n x (D runs) block stored as
// panels of kSparseLanes columns (n x 8 row-major: the node-major layout of the CUDA twin with 8 columns), so
// that one sparse row of W updates a cache line of every panel: NodeMajorStepBody::row<8> computes the 8
// entries of a row with W's row read once, each entry with the products and sums of the GPU's one-lane
// entry. Column c = b D + k is coordinate k of run first + b; a short last panel is padded with zero columns.
// Every column goes through the same arithmetic whatever its panel, lane, batch or thread, so results do not
// depend on them, and they are the emulated CUDA twin's bytes (tests/backend/test_gossip_sim_twins.cpp).
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gossip_sim_bodies.hpp"
#include "common/gossip_sim_layout.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "common/panel_lanes.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/ground/work_counter.hpp"

namespace netdp::kernels {

namespace {

constexpr int L = kSparseLanes;
constexpr std::int64_t kRowChunk =
    1024;  // rows per task when the panels are too few to keep the threads busy

/// The batch: up to three state buffers (x^{t-1}, x^t, x^{t+1}) of `panels` panels each, and the per-column
/// noisy averages and error sums (padded to whole panels).
struct Batch {
  std::int64_t columns = 0, panels = 0, padded = 0;
  std::vector<double> buffers[3];
  std::vector<double> noisy_average;        // per column
  std::vector<double> col_true, col_noisy;  // per recorded time and column: sum_v (x_v - ref)^2
};

std::size_t panel_size(std::int64_t n) {
  return static_cast<std::size_t>(n) * L;
}

/// x^0 of every run (NoisyStartBody, one run per thread, then the clip), moved into the panels of buffer 0
/// (ToNodeMajorBody, a column at a time), and each column's noisy average in node order.
void start_batch(const GossipSimProblem& p, bool clip_start, std::int64_t first, std::int64_t count,
                 Batch& b) {
  const std::int64_t n = p.w.n;
  const int dim = p.dim;
  const std::uint64_t noise_stream = gossip_subsequence(GossipStream::noise, 0, 0);
#pragma omp parallel
  {
    std::vector<double> start(static_cast<std::size_t>(n) * dim);  // column-major n x D
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t r = 0; r < count; ++r) {
      const gossip::NoisyStartBody noise{p.x.data(),   n,         dim,         p.sigma, p.seed,
                                         noise_stream, first + r, start.data()};
      noise.run(0);
      if (clip_start)
        for (std::int64_t i = 0; i < n * dim; ++i) gossip::ClipStartBody{start.data()}(i);
      for (int k = 0; k < dim; ++k) {
        const std::int64_t col = r * dim + k;
        double* lane = b.buffers[0].data() + static_cast<std::size_t>(col / L) * panel_size(n) + col % L;
        const double* column = start.data() + static_cast<std::size_t>(k) * n;
        const gossip::ToNodeMajorBody move{column, n, L, lane};
        for (std::int64_t v = 0; v < n; ++v) move(v);
        // The same node-order sum as the CUDA twin's over its node-major block, read here from the
        // contiguous column (a strided pass over the panel cost 10% of a short run).
        b.noisy_average[col] = gossip::NodeOrderAveragesBody{column, n, 1, nullptr}.column(column, 1);
      }
    }
  }
}

using StepBody = gossip::NodeMajorStepBody<offset_t, node_t>;

/// Rows [begin, end) of one panel step.
void step_rows(const StepBody& step, std::int64_t begin, std::int64_t end) {
  for (std::int64_t v = begin; v < end; ++v) step.row<L, L>(v, 0);
}

/// All T steps of one panel, its rows split over the threads when `parallel_rows` (called then from outside
/// any parallel region). After each recorded time the error sums of its columns, then `on_record(point, x)`.
template <typename OnRecord>
void run_panel(const GossipSimProblem& p, Batch& b, std::int64_t panel, bool parallel_rows,
               OnRecord&& on_record) {
  const std::int64_t n = p.w.n;
  const std::size_t at = static_cast<std::size_t>(panel) * panel_size(n);
  double* prev = b.buffers[2].empty() ? nullptr : b.buffers[2].data() + at;
  double* cur = b.buffers[0].data() + at;
  double* next = b.buffers[1].data() + at;
  const double one_minus_gamma = 1.0 - p.gamma;
  std::size_t point = 0;
  for (int t = 0; t <= p.steps; ++t) {
    if (t > 0) {
      // x^1 = W x^0; then x^t = gamma W x^{t-1} + (1 - gamma) x^{t-2} (docs/math.md §2.4) when accelerated.
      const double* before = p.accelerated && t >= 2 ? prev : nullptr;
      const StepBody step{{p.w.offsets.data(), p.w.columns.data(), p.w.values.data(), cur},
                          before,
                          p.gamma,
                          one_minus_gamma,
                          L,
                          next};
      if (parallel_rows) {
        const std::int64_t chunks = (n + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < chunks; ++k)
          step_rows(step, k * kRowChunk, std::min(n, (k + 1) * kRowChunk));
      } else {
        step_rows(step, 0, n);
      }
      if (p.accelerated) {
        std::swap(prev, cur);  // prev <- x^{t-1}
        std::swap(cur, next);  // cur <- x^t, next <- x^{t-2}, overwritten next step
      } else {
        std::swap(cur, next);
      }
    }
    if (point < p.times.size() && p.times[point] == t) {
      const gossip::NodeOrderErrorsBody errors{cur,
                                               n,
                                               L,
                                               p.dim,
                                               p.xbar.data(),
                                               b.noisy_average.data(),
                                               b.col_true.data() + point * b.padded,
                                               b.col_noisy.data() + point * b.padded};
      errors.columns<L>(cur, L, panel * L);
      on_record(point++, cur);
    }
  }
}

}  // namespace

void gossip_sim_cpu(const GossipSimProblem& p, bool clip_start, std::int64_t first, std::int64_t count,
                    const GossipSimCpuOutput& out, const std::function<bool(double)>& progress) {
  const std::int64_t n = p.w.n;
  const int dim = p.dim;
  const std::size_t points = p.times.size();
  Batch b;
  b.columns = count * dim;
  b.panels = (b.columns + L - 1) / L;
  b.padded = b.panels * L;
  for (int i = 0; i < (p.accelerated ? 3 : 2); ++i)
    b.buffers[i].assign(static_cast<std::size_t>(b.panels) * panel_size(n), 0.0);
  b.noisy_average.assign(static_cast<std::size_t>(b.padded), 0.0);
  b.col_true.assign(points * static_cast<std::size_t>(b.padded), 0.0);
  b.col_noisy.assign(b.col_true.size(), 0.0);
  start_batch(p, clip_start, first, count, b);
  std::copy_n(b.noisy_average.begin(), b.columns, out.noisy_average.begin());

  ground::WorkCounter panels_done(b.panels, progress);
  const bool states = !out.states.empty();
  // Many panels: one thread per panel, all T steps while it is in cache. Few (or the states wanted): panel
  // after panel, rows in parallel.
  if (b.panels >= omp_get_max_threads() && !states) {
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t panel = 0; panel < b.panels; ++panel) {
      if (panels_done.stopped()) continue;
      run_panel(p, b, panel, false, [](std::size_t, const double*) {});
      panels_done.finished_one();
    }
  } else {
    for (std::int64_t panel = 0; panel < b.panels; ++panel) {
      if (panels_done.stopped()) break;
      run_panel(p, b, panel, true, [&](std::size_t point, const double* x) {
        if (!states) return;
        for (std::int64_t col = panel * L; col < std::min<std::int64_t>(b.columns, (panel + 1) * L); ++col) {
          double* state = out.states.data() + (static_cast<std::size_t>(col / dim) * points + point) *
                                                  static_cast<std::size_t>(n) * dim;
          for (std::int64_t v = 0; v < n; ++v)
            state[static_cast<std::size_t>(v) * dim + col % dim] =
                x[static_cast<std::size_t>(v) * L + col % L];
        }
      });
      panels_done.finished_one();
    }
  }
  // e(t) of every run: its D column sums in coordinate order, over n (the CUDA twin's RunErrorsBody).
  for (std::size_t i = 0; i < points; ++i) {
    const gossip::RunErrorsBody fold{b.col_true.data() + i * b.padded,
                                     b.col_noisy.data() + i * b.padded,
                                     dim,
                                     n,
                                     static_cast<std::int64_t>(i),
                                     static_cast<std::int64_t>(points),
                                     out.truth.data(),
                                     out.noisy.data()};
    for (std::int64_t r = 0; r < count; ++r) fold(r);
  }
}

}  // namespace netdp::kernels
