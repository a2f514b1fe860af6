// Driver of the gossip accountant (docs/math.md §6.1-6.2): validation, device and propagation choice, memory
// plan, then the backend's two passes (kernels/gossip_loss_kernels.hpp) tile by tile into the sink: the tile
// loops are here for both backends.
#include "netdp/accounting/gossip_loss.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "accounting/checks.hpp"
#include "accounting/gossip_view.hpp"
#include "accounting/row_tiles.hpp"
#include "core/progress.hpp"
#include "gossip_loss_kernels.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

std::string to_string(ObserverKnowledge k) {
  return k == ObserverKnowledge::input ? "input" : "input-and-noise";
}

ObserverKnowledge parse_observer_knowledge(const std::string& text) {
  return text == "input" ? ObserverKnowledge::input : ObserverKnowledge::input_and_noise;
}

double gossip_ldp_loss(const GossipLossParams& p) {
  return p.alpha * p.sensitivity * p.sensitivity / (2.0 * p.sigma * p.sigma);
}

void validate(const GossipLossParams& p, node_t n) {
  using accounting_checks::bad;
  accounting_checks::check_order_and_noise(p.alpha, p.sigma);
  if (!(p.sensitivity > 0.0) || !std::isfinite(p.sensitivity))
    bad("sensitivity", "sensitivity must be > 0, got " + format_double(p.sensitivity));
  if (p.steps < 1) bad("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (p.t_start != 0 && p.t_start != 1)
    bad("t-start", "t-start must be 0 or 1, got " + std::to_string(p.t_start));
  accounting_checks::check_rows(p.source, n, p.tile_sources, p.memory_limit);
}

namespace {

bool use_dense(const GossipLossParams& p, const CsrMatrix& w) {
  if (p.propagation == Propagation::automatic) return w.density() > 0.25;  // docs/design.md principle 4
  return p.propagation == Propagation::dense;
}

/// CPU, two passes: the norms (T x n) and the per-thread panels are fixed; each source row of a tile is n
/// doubles.
GossipLossRun run_cpu_two_passes(const kernels::GossipLossProblem& problem, const GossipLossParams& p,
                                 node_t first, node_t count, LossRowSink& sink,
                                 const std::function<void(double)>& progress) {
  const std::int64_t n = problem.w.n;
  const std::int64_t fixed =
      std::int64_t(p.steps) * n * 8 + kernels::gossip_cpu_workspace_bytes(problem, omp_get_max_threads());
  const RowTilePlan plan = plan_row_tiles("gossip-loss", "the row norms and the propagation panels", n, count,
                                          fixed, n * 8, p.tile_sources, p.memory_limit);
  std::vector<double> norms(static_cast<std::size_t>(p.steps) * n);
  kernels::gossip_row_norms_cpu(problem, norms, keep_going(progress));
  throw_if_stopped();
  stream_row_tiles(first, count, plan.tile, problem.w.n, sink,
                   [&](node_t start, node_t rows, std::span<double> out) {
                     kernels::gossip_loss_rows_cpu(problem, norms, start, rows, out);
                   });
  GossipLossRun run;
  run.tile_sources = plan.tile;
  run.tiles = plan.tiles;
  run.memory_estimate = plan.memory_estimate;
  return run;
}

/// CPU, one pass (docs/gossip_loss.md "One pass for long horizons"): the panels of every node and the
/// requested sources' shares are fixed; tiles are whole panels, so that a tile's rows come from whole panels.
GossipLossRun run_cpu_one_pass(const kernels::GossipLossProblem& problem, const GossipLossParams& p,
                               node_t first, node_t count, LossRowSink& sink,
                               const std::function<void(double)>& progress) {
  const std::int64_t n = problem.w.n;
  const RowTilePlan plan = plan_row_tiles("gossip-loss", "the panels and shares of the one pass", n, count,
                                          kernels::gossip_one_pass_bytes(problem, first, count), n * 8,
                                          p.tile_sources, p.memory_limit);
  const kernels::GossipShares shares =
      kernels::gossip_shares_one_pass_cpu(problem, first, count, keep_going(progress));
  throw_if_stopped();
  const std::int64_t lanes = shares.lanes, tile = std::max(lanes, plan.tile / lanes * lanes);
  stream_row_tiles(first, count, tile, problem.w.n, sink,
                   [&](node_t start, node_t rows, std::span<double> out) {
                     kernels::gossip_loss_rows_from_shares_cpu(problem, shares, start, rows, out);
                   });
  GossipLossRun run;
  run.tile_sources = tile;
  run.tiles = (count + tile - 1) / tile;
  run.memory_estimate = kernels::gossip_one_pass_bytes(problem, first, count) + tile * n * 8;
  run.passes = 1;
  return run;
}

/// The CPU method that holds less: two passes keep the T x n norms, one pass every node's panel (about 3 n^2
/// doubles for all sources) and propagates each column once. Both give the same bits; the choice does not
/// depend on the thread count.
GossipLossRun run_cpu(const kernels::GossipLossProblem& problem, const GossipLossParams& p, node_t first,
                      node_t count, LossRowSink& sink, const std::function<void(double)>& progress) {
  if (kernels::gossip_one_pass_bytes(problem, first, count) < std::int64_t(p.steps) * problem.w.n * 8)
    return run_cpu_one_pass(problem, p, first, count, sink, progress);
  return run_cpu_two_passes(problem, p, first, count, sink, progress);
}

/// CUDA: the engine holds the device state of one tile (kernels/gossip_loss_kernels.hpp); the two passes run
/// here tile by tile, progress weighted by sources (pass 1 covers all n, pass 2 the requested ones).
GossipLossRun run_cuda(const kernels::GossipLossProblem& problem, const GossipLossParams& p, int device,
                       node_t first, node_t count, LossRowSink& sink,
                       const std::function<void(double)>& progress) {
  const auto engine =
      kernels::gossip_loss_cuda(problem, device, first, count, p.tile_sources, p.memory_limit, sink);
  GossipLossRun run;
  if (!engine) return run;
  const kernels::CudaGossipLossRun plan = engine->plan();
  const std::int64_t n = problem.w.n, work = n + count;
  auto report = [&](std::int64_t done) {
    if (progress) progress(double(done) / double(work));
  };
  for_each_row_tile(0, n, plan.norms_tile, [&](node_t s, node_t cols) {
    throw_if_stopped();
    engine->add_norms(s, cols);
    report(s + cols);
  });
  for_each_row_tile(first, count, plan.tile_sources, [&](node_t s, node_t cols) {
    throw_if_stopped();
    engine->loss_rows(s, cols);
    report(n + s + cols - first);
  });
  engine->finish();
  run.tile_sources = plan.tile_sources;
  run.tiles = plan.tiles;
  run.memory_estimate = plan.device_bytes;
  return run;
}

}  // namespace

GossipLossRun gossip_loss(const Graph& g, const CsrMatrix& w, const GossipLossParams& p, LossRowSink& sink,
                          const std::function<void(double)>& progress, LossRowSink* mu_sink) {
  const auto started = std::chrono::steady_clock::now();
  validate(p, g.n);
  if (w.n != g.n)
    throw InvalidInput("gossip-loss: W is " + std::to_string(w.n) + " x " + std::to_string(w.n) +
                       " but the graph has " + std::to_string(g.n) + " nodes");
  validate_gossip_matrix(w, g);  // both accountants use W^t e_w as row w of W^t: W symmetric

  if (p.accounting == GossipAccounting::exact) {
    // The production CPU engine, or its CUDA twin where a device is asked for or auto finds one
    // (docs/cuda_backend.md "The exact gossip accountant: twins"). One source under auto stays on the CPU:
    // its engine restricts each observer to its ball, the twins build dense n-vectors.
    ResolvedDevice device = resolve_device(p.device);
    if (p.device.kind == DeviceKind::automatic && p.source && device.kind == DeviceKind::cuda) {
      device = resolve_device(DeviceSpec{DeviceKind::cpu});
      device.note = "auto: one source of the exact accountant runs on the CPU (observers' balls)";
    }
    GossipLossRun run = gossip_loss_exact(g, w, p, sink, progress, mu_sink,
                                          device.kind == DeviceKind::cuda ? device.index : -1);
    run.device = device.name;
    run.device_note = device.note;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return run;
  }
  const ResolvedDevice device = resolve_device(p.device);
  const kernels::GossipLossProblem problem{
      g, w, p.t_start, p.steps, gossip_ldp_loss(p), p.cap_ldp, use_dense(p, w)};
  const node_t first = p.source.value_or(0);
  const node_t count = p.source ? 1 : g.n;

  GossipLossRun run = device.kind == DeviceKind::cuda
                          ? run_cuda(problem, p, device.index, first, count, sink, progress)
                          : run_cpu(problem, p, first, count, sink, progress);
  run.device = device.name;
  run.device_note = device.note;
  run.propagation = problem.dense ? "dense" : "sparse";
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return run;
}

std::vector<double> gossip_loss_matrix(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                       GossipLossRun* run) {
  return collect_loss_matrix(g.n, run, [&](LossRowSink& sink) { return gossip_loss(g, w, p, sink); });
}

}  // namespace netdp
