// Driver of privacy over runs (docs/math.md §6.1, 6.3, 6.4, 6.8): checks, the memory plan, the accountant on
// each run's schedule in run order, then means, quantiles and the statistics by hop distance.
#include "netdp/simulation/gossip_sim_privacy.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "common/memory_plan.hpp"
#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "simulation/gossip_sim_privacy_internal.hpp"

namespace netdp {

namespace {

using namespace gossip_sim_detail;

namespace memory_plan = kernels::memory_plan;

/// Every run has the same schedule: nothing random in who talks to whom.
bool deterministic_schedule(GossipProtocol p) {
  return fixed_matrix(p) || p == GossipProtocol::sequence;
}

std::string gib(double bytes) {
  return format_double(std::round(bytes / double(1 << 30) * 1000) / 1000) + " GiB";
}

/// Bytes of one round: W (CSR, nnz entries) and its graph (2 m adjacency entries) on n nodes.
double round_bytes(double nnz, double adjacency, double n) {
  return 12 * nnz + 4 * adjacency + 16 * (n + 1);
}

/// Bytes of one run's schedule and its union graph (an estimate for the random ones: the ER edge count at
/// 6 standard deviations).
double schedule_bytes(const Graph& g, const CsrMatrix& w, const GossipSimParams& p) {
  const double n = g.n, steps = p.steps;
  switch (p.protocol) {
    case GossipProtocol::sync:
    case GossipProtocol::accelerated:
      return round_bytes(double(w.nnz()), double(g.adjacency.size()), n) * 2;
    case GossipProtocol::randomized:
      return 8 * steps + 24 * std::min(steps, n * n) + 16 * n;
    case GossipProtocol::er_per_round:
    case GossipProtocol::dropout_er: {
      const double edges = p.edge_probability * n * (n - 1) / 2;
      const double high = edges + 6 * std::sqrt(edges) + 16;
      return steps * (round_bytes(n + 2 * high, 2 * high, n) + 24 * high);
    }
    case GossipProtocol::dropout:
      return steps * (round_bytes(n + double(g.adjacency.size()), double(g.adjacency.size()), n) +
                      12 * double(g.adjacency.size()));
    case GossipProtocol::sequence: {
      double largest = 0;
      for (const auto& r : *p.sequence)
        largest = std::max(largest, round_bytes(double(r.w.nnz()), double(r.graph.adjacency.size()), n) +
                                        12 * double(r.graph.adjacency.size()));
      return steps * largest;
    }
  }
  return 0;
}

struct PrivacyPlan {
  bool identical = false, keep = false;
  std::int64_t computed_runs = 1, tile = 1;
  double accountant = 0, total = 0, budget = 0;
};

/// docs/design.md principle 5: the accountant's n x n products, the aggregates (sum, min, max, and the ER
/// bound sums per pair), the schedule of a run and, with quantiles, the R x rows x n kept values, before
/// allocating.
PrivacyPlan plan_privacy(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                         const GossipPrivacyParams& q, node_t rows) {
  PrivacyPlan plan;
  const double n = g.n, pairs = double(rows) * n, runs = double(p.runs);
  plan.identical = deterministic_schedule(p.protocol);
  plan.computed_runs = plan.identical ? 1 : p.runs;
  plan.keep = !q.quantiles.empty() && !plan.identical;
  plan.tile = memory_plan::output_tile(rows, g.n);  // the accountant's output tiles
  const bool randomized = p.protocol == GossipProtocol::randomized;
  plan.accountant = kernels::sequence_state_bytes(g.n, rows, !randomized) + 8 * double(plan.tile) * n;
  if (q.accounting == GossipAccounting::exact)  // the products, the projections and at least one basis
    plan.accountant = kernels::sequence_state_bytes(g.n, 0, !randomized) + 8 * double(rows) * n +
                      8 * double(plan.tile) * n + 8 * (3 * n * n + 2 * n);
  const double matrices = (p.protocol == GossipProtocol::er_per_round ? 4 : 3) * 8 * pairs;
  const double outputs = 8 * pairs * double(q.quantiles.size()) + 40 * double(plan.computed_runs);
  // Per run: T_v, the ER bounds, eps_bar sums and marks, the statistics' hop distances of one tile (twice:
  // the union graph now, the base graph at the end).
  const double per_run = 8 * 6 * n + 2 * 4 * double(plan.tile) * n + schedule_bytes(g, w, p);
  const double kept = plan.keep ? 8 * pairs * runs + 8 * runs * omp_get_max_threads() : 0;
  plan.budget = double(memory_plan::host_budget(available_memory_bytes(), q.memory_limit));
  const double without_kept = plan.accountant + matrices + outputs + per_run;
  plan.total = without_kept + kept;
  const std::string sizes = "n = " + std::to_string(g.n) + ", " + std::to_string(rows) +
                            " source rows, R = " + std::to_string(p.runs) +
                            ", T = " + std::to_string(p.steps);
  if (without_kept > plan.budget)
    throw InsufficientMemory("gossip-sim privacy: needs " + gib(without_kept) + " (" + sizes +
                             ": the accountant's n x n products " + gib(plan.accountant) +
                             ", per-pair aggregates " + gib(matrices) + ") but only " + gib(plan.budget) +
                             " is available; give one source (source U) or use a smaller graph");
  if (plan.total > plan.budget)
    throw InsufficientMemory(
        "gossip-sim privacy: quantiles keeps every run's losses, R x rows x n = " + gib(kept) + " (" + sizes +
        "), and with the rest (" + gib(without_kept) + ") that exceeds the " + gib(plan.budget) +
        " available; drop quantiles, use fewer runs or give one source (source U)");
  return plan;
}

PrivacyTotals make_totals(node_t n, node_t first, node_t rows, const GossipSimParams& p,
                          const PrivacyPlan& plan, bool er) {
  PrivacyTotals t;
  t.n = n;
  t.first = first;
  t.rows = rows;
  t.runs = plan.keep ? p.runs : 1;
  const std::size_t pairs = static_cast<std::size_t>(rows) * static_cast<std::size_t>(n);
  t.sum.assign(pairs, 0.0);
  t.min.assign(pairs, std::numeric_limits<double>::infinity());
  t.max.assign(pairs, -std::numeric_limits<double>::infinity());
  if (plan.keep) t.kept.assign(pairs * static_cast<std::size_t>(p.runs), 0.0);
  if (er) {
    t.er_sum.assign(pairs, 0.0);
    t.er.emplace();
  }
  return t;
}

/// Thm 6.6 per observer for one run: d_v = ceil(T_v / T'), T' = T - t_start (docs/gossip_sim.md).
ErRunBounds er_run_bounds(node_t n, const ErBoundComparison& e, std::span<const std::int64_t> communications,
                          const GossipLossParams& lp) {
  ErRunBounds b;
  b.neighbour =
      er_gossip_loss_bound(n, e.edge_probability, e.messages, 1, lp.alpha, lp.sigma, lp.sensitivity, true)
          .value;
  b.other.resize(static_cast<std::size_t>(n));
  for (node_t v = 0; v < n; ++v) {
    const std::int64_t degree = (communications[v] + e.messages - 1) / e.messages;
    b.other[v] = er_gossip_loss_bound(n, e.edge_probability, e.messages,
                                      static_cast<node_t>(std::min<std::int64_t>(degree, n - 1)), lp.alpha,
                                      lp.sigma, lp.sensitivity, false)
                     .value;
  }
  return b;
}

/// The view statistics of one more run (exact accounting; docs/math.md §6.9 "Numerics").
void merge_view(GossipLossRun& into, const GossipLossRun& run, std::int64_t index) {
  into.accounting = run.accounting;
  if (run.view_observers == 0) return;
  const bool first = into.view_observers == 0;
  into.view_rank_min = first ? run.view_rank_min : std::min(into.view_rank_min, run.view_rank_min);
  into.view_rank_max = std::max(into.view_rank_max, run.view_rank_max);
  into.view_rank_mean += (run.view_rank_mean - into.view_rank_mean) / double(index + 1);
  into.view_dropped += run.view_dropped;
  into.view_floor = std::max(into.view_floor, run.view_floor);
  if (run.view_smallest_kept > 0)
    into.view_smallest_kept = into.view_smallest_kept == 0
                                  ? run.view_smallest_kept
                                  : std::min(into.view_smallest_kept, run.view_smallest_kept);
  into.view_observers += run.view_observers;
}

void merge_buckets(std::vector<LossAggregate>& into, const std::vector<LossAggregate>& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t b = 0; b < from.size(); ++b) into[b].merge(from[b]);
}

/// By distance in the base graph from the per-pair mean (its bucket means are the means over pairs and
/// runs: every pair has every run), min and max, each streamed through LossStatistics.
std::vector<LossAggregate> base_distance_stats(const Graph& g, const GossipPrivacyResult& r,
                                               std::int64_t tile) {
  LossStatistics mean(g), min(g), max(g);
  const std::size_t n = static_cast<std::size_t>(r.n);
  for (node_t i = 0; i < r.rows; i += static_cast<node_t>(tile)) {
    const node_t count = static_cast<node_t>(std::min<std::int64_t>(tile, r.rows - i));
    const std::size_t at = static_cast<std::size_t>(i) * n, size = static_cast<std::size_t>(count) * n;
    mean.consume(r.first_source + i, count, std::span<const double>(r.mean).subspan(at, size));
    min.consume(r.first_source + i, count, std::span<const double>(r.min).subspan(at, size));
    max.consume(r.first_source + i, count, std::span<const double>(r.max).subspan(at, size));
  }
  auto buckets = mean.by_distance();
  const auto lows = min.by_distance(), highs = max.by_distance();
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    buckets[b].min = lows[b].min;
    buckets[b].max = highs[b].max;
  }
  return buckets;
}

/// Per pair: the levels' quantiles of its R kept values (each pair sorted on its own: thread-independent).
void compute_quantiles(const PrivacyTotals& t, GossipPrivacyResult& r) {
  const std::size_t runs = static_cast<std::size_t>(t.runs), pairs = t.kept.size() / runs;
  r.quantiles.assign(r.quantile_levels.size(), std::vector<double>(pairs));
#pragma omp parallel
  {
    std::vector<double> values(runs);
#pragma omp for schedule(static)
    for (std::int64_t pair = 0; pair < static_cast<std::int64_t>(pairs); ++pair) {
      const double* from = t.kept.data() + static_cast<std::size_t>(pair) * runs;
      std::copy(from, from + runs, values.begin());
      std::sort(values.begin(), values.end());
      for (std::size_t k = 0; k < r.quantile_levels.size(); ++k)
        r.quantiles[k][pair] = sorted_quantile(values, r.quantile_levels[k]);
    }
  }
}

}  // namespace

void validate(const GossipPrivacyParams& q, const GossipSimParams& p, node_t n) {
  if (!(p.sigma > 0.0))
    throw InvalidParameter(
        "sigma",
        "sigma > 0 is needed for privacy (without noise there is no privacy), got " + format_double(p.sigma));
  GossipLossParams lp = gossip_privacy_loss_params(q, p);
  lp.steps = std::max(1, p.steps);
  validate(lp, n);
  for (double level : q.quantiles)
    if (!(level >= 0.0 && level <= 1.0))
      throw InvalidParameter("quantiles",
                             "quantiles: every level must be in [0, 1], got " + format_double(level));
  if (q.memory_limit < 0) throw InvalidParameter("memory-limit", "memory-limit must be >= 0");
}

GossipLossParams gossip_privacy_loss_params(const GossipPrivacyParams& q, const GossipSimParams& p) {
  GossipLossParams lp;
  lp.accounting = q.accounting;  // exact (docs/math.md §6.9) or Theorem 6.1's sum
  lp.observer_knows = q.observer_knows;
  lp.alpha = q.alpha;
  lp.sigma = p.sigma;
  lp.sensitivity = q.sensitivity;
  lp.steps = p.steps;  // ignored by gossip_loss_sequence: T is the schedule's
  lp.t_start = q.t_start;
  lp.cap_ldp = q.cap_ldp;
  lp.source = q.source;
  lp.device = {DeviceKind::cpu, 0};
  return lp;
}

std::int64_t gossip_sim_privacy_memory(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                                       const GossipPrivacyParams& q) {
  validate(p, g.n);
  validate(q, p, g.n);
  return static_cast<std::int64_t>(plan_privacy(g, w, p, q, q.source ? 1 : g.n).total);
}

GossipPrivacyResult gossip_sim_privacy(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                                       const GossipPrivacyParams& q, const GossipSimProgress& progress,
                                       const GossipPrivacyVisitor& visit) {
  const auto started = std::chrono::steady_clock::now();
  validate(p, g.n);
  validate(q, p, g.n);
  const node_t n = g.n, first = q.source.value_or(0), rows = q.source ? 1 : n;
  const PrivacyPlan plan = plan_privacy(g, w, p, q, rows);
  GossipLossParams lp = gossip_privacy_loss_params(q, p);
  lp.memory_limit = std::max<std::int64_t>(1, std::int64_t(plan.budget - (plan.total - plan.accountant)));

  const bool time_varying = !fixed_matrix(p.protocol);
  const int messages = p.steps - q.t_start;
  const bool er = p.protocol == GossipProtocol::er_per_round && messages >= 1 && n >= 2;
  PrivacyTotals t = make_totals(n, first, rows, p, plan, er);
  if (er) {
    t.er->edge_probability = p.edge_probability;
    t.er->messages = messages;
    t.er->valid =
        er_gossip_loss_bound(n, p.edge_probability, messages, 0, lp.alpha, lp.sigma, lp.sensitivity, false)
            .valid;
  }

  GossipPrivacyResult r;
  const double bound_scale = gossip_ldp_loss(lp) / n;  // eq. 6.4: alpha Delta^2 T_v / (2 n sigma^2)
  for (std::int64_t run = 0; run < plan.computed_runs; ++run) {
    const GossipSchedule s = sample_gossip_schedule(g, w, p, run);
    const std::vector<std::int64_t> communications = gossip_communications(s, q.t_start);
    Graph union_graph;
    std::optional<LossStatistics> union_stats;
    if (time_varying || er) union_graph = schedule_union_graph(s, q.t_start);
    if (time_varying) union_stats.emplace(union_graph);
    std::optional<ErRunBounds> bounds;
    if (er) bounds = er_run_bounds(n, *t.er, communications, lp);
    PrivacyRunSink sink(t, run, plan.keep, &union_graph, bounds ? &*bounds : nullptr,
                        union_stats ? &*union_stats : nullptr, visit);
    const GossipLossRun info = gossip_loss_sequence(s, lp, sink);
    r.device = info.device;
    merge_view(r.view, info, run);
    t.per_run.push_back(sink.finish(communications, bound_scale));
    t.overall.merge(sink.pairs());
    if (union_stats) merge_buckets(t.by_union_distance, union_stats->by_distance());
    if (progress) progress(double(run + 1) / double(plan.computed_runs));
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
  }

  const double computed = double(plan.computed_runs);
  r.n = n;
  r.first_source = first;
  r.rows = rows;
  r.runs = p.runs;
  r.runs_identical = plan.identical;
  r.mean = std::move(t.sum);
  for (double& x : r.mean) x /= computed;
  r.min = std::move(t.min);
  r.max = std::move(t.max);
  r.quantile_levels = q.quantiles;
  if (plan.keep)
    compute_quantiles(t, r);
  else  // identical runs: every quantile is the one value
    r.quantiles.assign(q.quantiles.size(), r.mean);
  r.overall = t.overall;
  r.per_run = std::move(t.per_run);
  r.by_union_distance = std::move(t.by_union_distance);
  if (er) {
    r.er = t.er;
    r.er_bound_mean = std::move(t.er_sum);
    for (double& x : r.er_bound_mean) x /= computed;
  }
  if (g.num_edges() > 0) r.by_base_distance = base_distance_stats(g, r, plan.tile);
  r.memory_estimate = static_cast<std::int64_t>(plan.total);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace netdp
