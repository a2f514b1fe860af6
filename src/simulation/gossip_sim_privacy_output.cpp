// The privacy files of `netdp gossip-sim --privacy` and summary.json's "privacy" object (formats:
// docs/gossip_sim.md, "Privacy over runs").
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/io/run_result.hpp"
#include "simulation/gossip_sim_privacy_internal.hpp"

namespace netdp::gossip_sim_detail {

using json = nlohmann::json;

namespace {

void add_matrix(RunResult& result, const std::string& name, const GossipPrivacyResult& r,
                const std::vector<double>& values) {
  result.matrix(name, r.rows, r.n, values);
}

/// `name`: distance,pairs_per_run,mean,min,max; the unreachable pairs last as "inf"; `runs` divides the
/// counts. Returns summary.json's rows.
json add_distance_table(RunResult& result, const std::string& name, const std::vector<LossAggregate>& buckets,
                        double runs) {
  CsvTable& csv = result.table(name, {{"distance", CsvType::int64},
                                      {"pairs_per_run", CsvType::float64},
                                      {"mean", CsvType::float64},
                                      {"min", CsvType::float64},
                                      {"max", CsvType::float64}});
  json rows = json::array();
  for (std::size_t b = 1; b <= buckets.size(); ++b) {
    const auto& a = buckets[b % buckets.size()];
    if (a.count == 0) continue;
    const bool unreachable = b == buckets.size();
    const double pairs = double(a.count) / runs;
    csv.row({unreachable ? CsvCell(std::numeric_limits<double>::infinity()) : CsvCell(b - 1), pairs, a.mean(),
             a.min, a.max});
    rows.push_back({{"distance", unreachable ? json("inf") : json(b - 1)},
                    {"pairs_per_run", pairs},
                    {"mean", a.mean()},
                    {"min", a.min},
                    {"max", a.max}});
  }
  return rows;
}

/// mean / min / max over the computed runs of one per-run number (null when it is undefined).
json over_runs(const std::vector<GossipPrivacyRun>& runs,
               const std::function<double(const GossipPrivacyRun&)>& f) {
  LossAggregate a;
  for (const auto& run : runs)
    if (std::isfinite(f(run))) a.add(f(run));
  if (a.count == 0) return {{"mean", nullptr}, {"min", nullptr}, {"max", nullptr}};
  return {{"mean", a.mean()}, {"min", a.min}, {"max", a.max}};
}

void add_runs(RunResult& result, const std::vector<GossipPrivacyRun>& runs) {
  CsvTable& csv = result.table("privacy_runs.csv", {{"run", CsvType::int64},
                                                    {"mean_loss", CsvType::float64},
                                                    {"max_loss", CsvType::float64},
                                                    {"mean_eps_bar", CsvType::float64},
                                                    {"max_eps_bar", CsvType::float64},
                                                    {"eps_bar_bound", CsvType::float64}});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    csv.row({i, r.mean_loss, r.max_loss, r.mean_eps_bar, r.max_eps_bar, r.eps_bar_bound});
  }
}

json er_case(const LossAggregate& loss, const LossAggregate& bound, std::int64_t samples) {
  return {{"samples", loss.count},
          {"fraction", samples ? double(loss.count) / double(samples) : 0.0},
          {"mean_loss", loss.count ? json(loss.mean()) : json(nullptr)},
          {"max_loss", loss.count ? json(loss.max) : json(nullptr)},
          {"mean_bound", bound.count ? json(bound.mean()) : json(nullptr)}};
}

json er_json(const ErBoundComparison& e) {
  LossAggregate bound = e.neighbour_bound;
  bound.merge(e.other_bound);
  const std::int64_t samples = bound.count;
  return {{"rule",
           "Thm 6.6 per run: alpha Delta^2/(2 sigma^2) if {u, v} is an edge of some counted round, else "
           "(alpha Delta^2/sigma^2) T' d_v/(n - d_v), d_v = ceil(T_v / T'), T' = T - t_start"},
          {"edge_probability", e.edge_probability},
          {"messages", e.messages},
          {"valid", e.valid},
          {"samples", samples},
          {"mean_bound", samples ? json(bound.mean()) : json(nullptr)},
          {"exceeded", e.exceeded},
          {"neighbour", er_case(e.neighbour_loss, e.neighbour_bound, samples)},
          {"non_neighbour", er_case(e.other_loss, e.other_bound, samples)}};
}

}  // namespace

json add_privacy_outputs(RunResult& result, const GossipSimParams& p, const GossipPrivacyParams& q,
                         const GossipPrivacyResult& r) {
  add_matrix(result, "privacy_mean.npy", r, r.mean);
  add_matrix(result, "privacy_min.npy", r, r.min);
  add_matrix(result, "privacy_max.npy", r, r.max);
  json levels = json::array();
  for (std::size_t k = 0; k < r.quantile_levels.size(); ++k) {
    const std::string name = "privacy_quantile_" + format_double(r.quantile_levels[k]) + ".npy";
    add_matrix(result, name, r, r.quantiles[k]);
    levels.push_back({{"level", r.quantile_levels[k]}, {"file", name}});
  }
  add_runs(result, r.per_run);

  const double computed = double(r.per_run.size());
  const GossipLossParams lp = gossip_privacy_loss_params(q, p);
  json s = {
      {"accountant",
       q.accounting == GossipAccounting::exact
           ? "exact Gaussian view on each run's schedule (gossip_loss_sequence), docs/math.md §6.9"
           : "Theorem 6.1 on each run's schedule (gossip_loss_sequence), docs/math.md §6.1"},
      {"accounting", q.accounting == GossipAccounting::exact ? "exact" : "theorem"},
      {"alpha", q.alpha},
      {"sensitivity", q.sensitivity},
      {"sigma", p.sigma},
      {"t_start", q.t_start},
      {"messages", p.steps - q.t_start},
      {"cap", q.cap_ldp ? "ldp" : "none"},
      {"ldp_level", gossip_ldp_loss(lp)},
      {"source", q.source ? json(*q.source) : json(nullptr)},
      {"rows", r.rows},
      {"runs", r.runs},
      {"computed_runs", r.per_run.size()},
      {"runs_identical", r.runs_identical},
      {"pairs", computed > 0 ? double(r.overall.count) / computed : 0.0},
      {"mean", r.overall.count ? json(r.overall.mean()) : json(nullptr)},
      {"min", r.overall.count ? json(r.overall.min) : json(nullptr)},
      {"max", r.overall.count ? json(r.overall.max) : json(nullptr)},
      {"quantiles", levels},
      {"per_run",
       {{"mean_loss", over_runs(r.per_run, [](const GossipPrivacyRun& x) { return x.mean_loss; })},
        {"max_loss", over_runs(r.per_run, [](const GossipPrivacyRun& x) { return x.max_loss; })},
        {"mean_eps_bar", over_runs(r.per_run, [](const GossipPrivacyRun& x) { return x.mean_eps_bar; })},
        {"max_eps_bar", over_runs(r.per_run, [](const GossipPrivacyRun& x) { return x.max_eps_bar; })},
        {"eps_bar_bound", over_runs(r.per_run, [](const GossipPrivacyRun& x) { return x.eps_bar_bound; })}}},
      {"device", r.device},
      {"memory_estimate_bytes", r.memory_estimate},
      {"seconds", r.seconds},
  };
  if (q.accounting == GossipAccounting::exact) {
    s["observer_knows"] = to_string(q.observer_knows);
    s["view"] = {{"observers", r.view.view_observers},
                 {"rank_min", r.view.view_rank_min},
                 {"rank_mean", r.view.view_rank_mean},
                 {"rank_max", r.view.view_rank_max},
                 {"dropped", r.view.view_dropped},
                 {"floor", r.view.view_floor},
                 {"smallest_kept", r.view.view_smallest_kept}};
  }
  json warnings = json::array();
  if (q.accounting == GossipAccounting::theorem) warnings.push_back(gossip_theorem_warning());
  if (r.er) warnings.push_back(built_on_theorem_warning("the Erdos-Renyi bound (Theorem 6.6, er_bound)"));
  if (!warnings.empty()) s["warnings"] = warnings;
  if (!r.by_base_distance.empty()) {
    s["by_distance"] = add_distance_table(result, "privacy_by_distance.csv", r.by_base_distance, 1.0);
  }
  if (!r.by_union_distance.empty()) {
    s["by_union_distance"] =
        add_distance_table(result, "privacy_by_union_distance.csv", r.by_union_distance, computed);
  }
  if (r.er) {
    add_matrix(result, "privacy_er_bound_mean.npy", r, r.er_bound_mean);
    s["er_bound"] = er_json(*r.er);
  }
  return s;
}

}  // namespace netdp::gossip_sim_detail
