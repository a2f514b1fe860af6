// Driver of the exact gossip accountant (docs/math.md §6.9): the memory plan, the observers' bases on the
// CPU backend or the CUDA twin (kernels/gossip_view_kernels.hpp), then the loss and mu rows, by source, tile
// by tile.
#include "accounting/gossip_view.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "accounting/row_tiles.hpp"
#include "core/progress.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/core/error.hpp"

namespace netdp {

namespace {

/// Observers whose view can reach source u: the messages W^t e_w (t < t_start + steps) are supported within
/// t hops of w, a neighbour of v, so v farther than t_start + steps from u sees nothing of x_u.
std::vector<node_t> observers_reaching(const Graph& g, node_t u, int reach) {
  const std::vector<node_t> distance = bfs_distances(g, u);
  std::vector<node_t> observers;
  for (node_t v = 0; v < g.n; ++v)
    if (v != u && distance[v] >= 0 && distance[v] <= reach) observers.push_back(v);
  return observers;
}

/// The listed observers' entries (source u >= 0: one each; -1: a row of n each) and reports: the production
/// CPU engine, or the CUDA twin batch by batch on `cuda_device` (>= 0). done(k) after k observers. Returns
/// the device bytes the CUDA engine held (0 on the CPU).
std::int64_t observer_views(const kernels::GossipViewProblem& problem, std::span<const node_t> observers,
                            std::int64_t source, std::span<double> projections,
                            std::span<kernels::GossipViewObserver> reports, int cuda_device,
                            std::int64_t memory_limit, const std::function<bool(std::int64_t)>& done) {
  if (cuda_device < 0) {
    kernels::gossip_view_listed_cpu(problem, observers, source, projections, reports, done);
    return 0;
  }
  const std::int64_t count = static_cast<std::int64_t>(observers.size()), row = source >= 0 ? 1 : problem.n;
  const auto engine =
      kernels::gossip_view_cuda(problem, cuda_device, observers.data(), count, source, memory_limit);
  const kernels::CudaGossipViewRun plan = engine->plan();
  for (std::int64_t first = 0; first < count; first += plan.batch_observers) {
    const std::int64_t batch = std::min(plan.batch_observers, count - first);
    engine->run_batch(first, batch, projections.data() + first * row, reports.data() + first);
    if (!done(first + batch)) break;
  }
  return plan.device_bytes;
}

}  // namespace

kernels::GossipViewProblem gossip_view_problem(const Graph& g, const CsrMatrix& w, int t_start, int steps,
                                               bool knows_noise) {
  return {.n = g.n,
          .w_offsets = w.offsets.data(),
          .w_columns = w.columns.data(),
          .w_values = w.values.data(),
          .g_offsets = g.offsets.data(),
          .g_adjacency = g.adjacency.data(),
          .t_start = t_start,
          .steps = steps,
          .knows_noise = knows_noise};
}

void add_view_report(GossipLossRun& run, std::span<const kernels::GossipViewObserver> observers) {
  double total = run.view_rank_mean * double(run.view_observers);
  for (const auto& o : observers) {
    run.view_rank_min = run.view_observers == 0 ? o.rank : std::min<std::int64_t>(run.view_rank_min, o.rank);
    run.view_rank_max = std::max<std::int64_t>(run.view_rank_max, o.rank);
    total += o.rank;
    run.view_dropped += o.dropped;
    if (o.rank > 0)
      run.view_smallest_kept =
          run.view_smallest_kept == 0 ? o.smallest_kept : std::min(run.view_smallest_kept, o.smallest_kept);
    ++run.view_observers;
  }
  if (run.view_observers > 0) run.view_rank_mean = total / double(run.view_observers);
}

GossipLossRun gossip_loss_exact(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                LossRowSink& sink, const std::function<void(double)>& progress,
                                LossRowSink* mu_sink, int cuda_device) {
  const kernels::GossipViewProblem problem =
      gossip_view_problem(g, w, p.t_start, p.steps, p.observer_knows == ObserverKnowledge::input_and_noise);
  const std::int64_t n = g.n;
  const double ldp = gossip_ldp_loss(p), mu_scale = p.sensitivity / p.sigma;
  // Each thread's workspace for the largest of the observers it may get (their balls when they are used).
  // None on the host when the CUDA twin builds the bases (its engine plans the device's memory).
  auto workspace_for = [&](std::span<const node_t> observers) -> std::int64_t {
    if (cuda_device >= 0) return 0;
    return kernels::gossip_view_thread_bytes(problem, observers) * omp_get_max_threads();
  };

  GossipLossRun run;
  run.accounting = "exact";
  run.propagation = "krylov";
  run.passes = 1;
  run.view_floor = kernels::gossip_view_floor(problem);
  auto done = [&](std::int64_t k, std::int64_t of) {
    if (progress) progress(double(k) / double(of));
    return !stop_requested();
  };

  if (p.source) {
    const node_t u = *p.source;
    const std::vector<node_t> observers = observers_reaching(g, u, p.t_start + p.steps);
    const RowTilePlan plan = plan_row_tiles("gossip-loss", "the observers' view bases", n, 1,
                                            workspace_for(observers) + 16 * n, 16 * n, 1, p.memory_limit);
    std::vector<double> projection(observers.size());
    std::vector<kernels::GossipViewObserver> report(observers.size());
    std::vector<double> row(static_cast<std::size_t>(n), 0.0), mu(static_cast<std::size_t>(n), 0.0);
    const std::int64_t total = static_cast<std::int64_t>(observers.size());
    const std::int64_t device_bytes =
        observer_views(problem, observers, u, projection, report, cuda_device, p.memory_limit,
                       [&](std::int64_t k) { return done(k, std::max<std::int64_t>(1, total)); });
    throw_if_stopped();
    for (std::size_t i = 0; i < observers.size(); ++i) {
      row[observers[i]] = ldp * projection[i];
      mu[observers[i]] = mu_scale * std::sqrt(projection[i]);
    }
    add_view_report(run, report);
    sink.consume(u, 1, row);
    if (mu_sink) mu_sink->consume(u, 1, mu);
    run.tile_sources = 1;
    run.tiles = 1;
    run.memory_estimate = plan.memory_estimate + device_bytes;
  } else {
    std::vector<node_t> everyone(static_cast<std::size_t>(n));
    for (node_t v = 0; v < g.n; ++v) everyone[static_cast<std::size_t>(v)] = v;
    const RowTilePlan plan =
        plan_row_tiles("gossip-loss", "the n x n projections of the exact accountant", n, n,
                       workspace_for(everyone) + 8 * n * n, 16 * n, p.tile_sources, p.memory_limit);
    std::vector<double> projections(static_cast<std::size_t>(n * n));  // observer-major: [v * n + u]
    std::vector<kernels::GossipViewObserver> report(static_cast<std::size_t>(n));
    const std::int64_t device_bytes =
        observer_views(problem, everyone, -1, projections, report, cuda_device, p.memory_limit,
                       [&](std::int64_t k) { return done(k, n); });
    throw_if_stopped();
    add_view_report(run, report);
    std::vector<double> mu_rows(static_cast<std::size_t>(plan.tile * n));
    stream_row_tiles(0, g.n, plan.tile, g.n, sink, [&](node_t start, node_t rows, std::span<double> out) {
      for (node_t i = 0; i < rows; ++i)
        for (std::int64_t v = 0; v < n; ++v) {
          const double x = v == start + i ? 0.0 : projections[v * n + start + i];
          out[i * n + v] = ldp * x;
          mu_rows[i * n + v] = mu_scale * std::sqrt(x);
        }
      if (mu_sink) mu_sink->consume(start, rows, std::span<const double>(mu_rows.data(), rows * n));
    });
    run.tile_sources = plan.tile;
    run.tiles = plan.tiles;
    run.memory_estimate = plan.memory_estimate + device_bytes;
  }
  return run;
}

}  // namespace netdp
