// The per-observer fold of a finished run, shared by both backends, and the host side of the CUDA
// accounting (docs/walk_sim.md "CUDA (accounted walks)").
#include <omp.h>

#include <algorithm>

#include "core/progress.hpp"
#include "netdp/dp/composition.hpp"
#include "simulation/walk_sim_run.hpp"

namespace netdp::walk_detail {

void start_accounting(const Context& ctx, RunStats& out) {
  out.observer.assign(static_cast<std::size_t>(ctx.model.n), 0.0);
  out.node_local.assign(static_cast<std::size_t>(ctx.model.n), 0.0);
  out.by_distance.assign(ctx.distance_rows, LossStats{});
}

void account_observer(const Context& ctx, RunStats& out, node_t v, double k, double shared,
                      const kernels::walk::PairLosses& pairs, const DistantPair& distant) {
  const double others = ctx.model.n - 1;
  const bool far = distant.distance > 0;
  const double shared_weight = others - pairs.count - (far ? 1.0 : 0.0);
  const LossStats corrected{pairs.count, pairs.sum, pairs.compensation, pairs.min, pairs.max};
  out.network.add(shared, shared_weight);
  out.network.merge(corrected);
  if (far) out.network.add(distant.loss, 1);
  if (ctx.distance_rows > 0) {
    // The boundary participants of a cycle are neighbours of v in the walk: hop distance 1.
    out.by_distance[1].merge(corrected);
    if (far) out.by_distance[static_cast<std::size_t>(distant.distance)].add(distant.loss, 1);
    if (ctx.distances == nullptr) {
      out.by_distance[1].add(shared, shared_weight);
    } else {
      const offset_t begin = ctx.distances->offsets[v], end = ctx.distances->offsets[v + 1];
      for (offset_t d = 1; begin + d < end; ++d) {
        const double w = double(ctx.distances->counts[begin + d]) - (d == 1 ? pairs.count : 0.0) -
                         (far && d == distant.distance ? 1.0 : 0.0);
        out.by_distance[d].add(shared, w);
      }
    }
  }
  out.observer[v] =
      (shared * shared_weight + (pairs.sum + pairs.compensation) + (far ? distant.loss : 0.0)) / others;
  const double ldp = dp::advanced_composition(ctx.p.eps0, ctx.p.delta, k, ctx.p.delta).epsilon;
  out.node_local[v] = ldp;
  out.local.add(ldp, others);
}

kernels::WalkTables walk_tables(const WalkModel& m) {
  return {m.kind, m.n, m.offsets, m.targets, m.thresholds};
}

kernels::WalkRunSpec run_spec(const WalkSimParams& p) {
  return {p.seed,       p.steps, p.runs, p.batch_runs, p.start.kind != StartKind::node,
          p.start.node, p.eps0,  p.delta};
}

std::span<const node_t> batch_starts(const Context& ctx, std::int64_t first, std::int64_t count,
                                     std::vector<node_t>& starts) {
  starts.clear();
  if (ctx.p.start.kind == StartKind::node) return {};
  for (std::int64_t k = 0; k < count; ++k) starts.push_back(walk_start(ctx.model, ctx.p, first + k));
  return starts;
}

kernels::WalkSimCudaRun plain_cuda_runs(const Context& ctx, int device, kernels::WalkVisitTallies& tallies,
                                        const WalkSimProgress& progress) {
  const WalkSimParams& p = ctx.p;
  const kernels::WalkTables tables = walk_tables(ctx.model);
  const auto engine =
      kernels::walk_sim_cuda(tables, run_spec(p), device, ctx.time_cap, ctx.visit_cap, ctx.nv);
  kernels::WalkSimCudaRun run = engine->plan();
  std::vector<node_t> starts;
  for (std::int64_t first = 0; first < p.runs; first += run.batch_runs) {
    const std::int64_t count = std::min(run.batch_runs, p.runs - first);
    engine->run_batch(first, count, batch_starts(ctx, first, count, starts), tallies);
    ++run.batches;
    if (progress) progress(double(first + count) / double(p.runs));
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
  }
  engine->finish(tallies);
  return run;
}

kernels::WalkSimCudaRun stepping_cuda_runs(const Context& ctx, int device, kernels::WalkVisitTallies& tallies,
                                           const WalkSimProgress& progress) {
  const WalkSimParams& p = ctx.p;
  const kernels::WalkTables tables = walk_tables(ctx.model);
  const auto engine = kernels::walk_steps_cuda(tables, run_spec(p), device, true);
  kernels::WalkSimCudaRun run = engine->plan();
  std::vector<node_t> starts;
  for (std::int64_t first = 0; first < p.runs; first += run.batch_runs) {
    const std::int64_t count = std::min(run.batch_runs, p.runs - first);
    (void)engine->run_batch(first, count,
                            batch_starts(ctx, first, count, starts));  // per-walk summaries unused
    ++run.batches;
    if (progress) progress(double(first + count) / double(p.runs));
    throw_if_stopped();
  }
  tallies.visits = engine->visits();
  return run;
}

std::vector<kernels::walk::CycleTerms> cycle_terms(const Context& ctx,
                                                   std::span<const std::int64_t> lengths) {
  std::vector<kernels::walk::CycleTerms> terms(lengths.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < lengths.size(); ++i)
    terms[i] = {ctx.eps->at(lengths[i]).zero, ctx.eps->terms(lengths[i], 1), ctx.eps->terms(lengths[i], 2)};
  return terms;
}

kernels::walk::CycleTerms CycleTermsBeyond::terms(std::int64_t m) const {
  return {eps->at(m).zero, eps->terms(m, 1), eps->terms(m, 2)};
}

void accounting_inputs(const Context& ctx, AccountingInputs& out) {
  const WalkSimParams& p = ctx.p;
  kernels::WalkAccountingInputs& in = out.in;
  // The CPU's per-cycle values: every length up front for the Gaussian mechanism, else those each batch
  // needs.
  in.table_lengths = std::min<std::int64_t>(p.steps - 1, kDeviceCycleTable);
  in.gaussian = p.mechanism == WalkMechanism::gaussian;
  if (in.gaussian) {
    std::vector<std::int64_t> every(static_cast<std::size_t>(in.table_lengths));
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = static_cast<std::int64_t>(i) + 1;
    out.gaussian_table = cycle_terms(ctx, every);
    in.table = out.gaussian_table;
  }
  in.known = p.view == WalkView::known;
  in.eps0 = p.eps0;
  in.delta = p.delta;
  in.utility = ctx.utility;
  in.sigma_loc = ctx.sigma_loc;
  in.values = ctx.values;
  in.log_base = kLogBase;
  // The CPU twin only (the CUDA twin is not given these: walk_sim keeps such runs on the CPU).
  in.reference = p.bookkeeping == WalkBookkeeping::reference;
  if (in.reference && in.known && ctx.distances != nullptr) {
    // The reference bookkeeping's initial receiver, node 0, need not be a neighbour of v.
    out.node0_far.assign(static_cast<std::size_t>(ctx.model.n), 0);
    for (node_t v = 0; v < ctx.model.n; ++v) out.node0_far[v] = ctx.distances->from_node0[v] > 1 ? 1 : 0;
    in.node0_far = out.node0_far;
  }
  if (!in.gaussian && p.steps - 1 > in.table_lengths) {
    out.beyond.eps = ctx.eps;
    in.beyond = &out.beyond;
  }
}

void fold_accounted_batch(const Context& ctx, const kernels::WalkAccountedBatch& b,
                          std::vector<RunStats>& stats) {
  const node_t n = ctx.model.n;
  stats.assign(static_cast<std::size_t>(b.count), RunStats{});
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t k = 0; k < b.count; ++k) {
    RunStats& s = stats[static_cast<std::size_t>(k)];
    start_accounting(ctx, s);
    for (node_t v = 0; v < n; ++v) {
      const auto i = static_cast<std::size_t>(k * n + v);
      DistantPair distant;
      if (!b.node0.empty() && b.node0[i] >= 0) distant = {ctx.distances->from_node0[v], b.node0[i]};
      account_observer(ctx, s, v, double(b.cycles[i]), b.shared[i], b.pairs[i], distant);
    }
    if (ctx.utility) {
      const auto r = static_cast<std::size_t>(k);
      s.utility.truth = b.truth[r];
      s.utility.noises = b.noises[r];
      s.noise = b.noise[r];
      s.utility.estimate = s.utility.truth + s.noise;
    }
  }
}

kernels::WalkSimCudaRun accounted_cuda_runs(const Context& ctx, int device,
                                            kernels::WalkVisitTallies& tallies, kernels::WalkSketchBins& bins,
                                            const std::function<void(RunStats&)>& merge,
                                            const WalkSimProgress& progress) {
  const WalkSimParams& p = ctx.p;
  AccountingInputs inputs;
  accounting_inputs(ctx, inputs);
  const kernels::WalkTables tables = walk_tables(ctx.model);
  const auto engine = kernels::walk_sim_accounted_cuda(tables, run_spec(p), device, ctx.time_cap,
                                                       ctx.visit_cap, ctx.nv, inputs.in);
  const kernels::WalkSimCudaRun plan = engine->plan();
  std::vector<RunStats> stats;
  std::vector<node_t> starts;
  for (std::int64_t first = 0; first < p.runs; first += plan.batch_runs) {
    const std::int64_t count = std::min(plan.batch_runs, p.runs - first);
    const std::span<const node_t> batch = batch_starts(ctx, first, count, starts);
    const std::vector<std::int64_t> missing = engine->missing_cycle_lengths(first, count, batch);
    if (!missing.empty()) engine->set_cycle_terms(missing, cycle_terms(ctx, missing));
    fold_accounted_batch(ctx, engine->run_batch(first, count, batch, tallies), stats);
    for (RunStats& s : stats) merge(s);  // run order
    if (progress) progress(double(first + count) / double(p.runs));
    throw_if_stopped();
  }
  engine->finish(tallies, bins);
  return engine->plan();  // batches counted by the engine
}

}  // namespace netdp::walk_detail
