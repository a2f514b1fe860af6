#pragma once
// Pieces of the privacy-over-runs driver (gossip_sim_privacy*.cpp); not a public interface.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"
#include "netdp/simulation/gossip_sim_privacy.hpp"
#include "netdp/simulation/gossip_sim_stop.hpp"

namespace netdp::gossip_sim_detail {

/// What the runs add up to, per ordered pair (rows x n, row i = source first + i) and overall.
struct PrivacyTotals {
  node_t n = 0, first = 0, rows = 0;
  std::int64_t runs = 0;              // R: the stride of `kept`
  std::vector<double> sum, min, max;  // per pair, over the computed runs
  std::vector<double> kept;           // pair-major: kept[pair * R + run] (quantiles only)
  std::vector<double> er_sum;         // per pair: the sum of the Thm 6.6 bounds (er-per-round only)
  LossAggregate overall;
  std::vector<LossAggregate> by_union_distance;
  std::optional<ErBoundComparison> er;
  std::vector<GossipPrivacyRun> per_run;
};

/// Thm 6.6 for one run: the bound towards each observer v for a neighbour and for anyone else.
struct ErRunBounds {
  double neighbour = 0;
  std::vector<double> other;  // per v
};

/// Receives one run's loss rows from the accountant and folds them into the totals: per pair, per run
/// (u != v), per observer (eps_bar_v), the ER comparison, the union-graph statistics and the visitor. Rows
/// are folded one after the other in source order, so every sum has a fixed order.
class PrivacyRunSink : public LossRowSink {
 public:
  PrivacyRunSink(PrivacyTotals& totals, std::int64_t run, bool keep, const Graph* union_graph,
                 const ErRunBounds* er, LossStatistics* union_stats, const GossipPrivacyVisitor& visit);
  void consume(node_t first_source, node_t count, std::span<const double> rows) override;
  /// The run's summary numbers; `communications` are T_v, `bound_scale` = alpha Delta^2 / (2 n sigma^2).
  GossipPrivacyRun finish(std::span<const std::int64_t> communications, double bound_scale) const;
  const LossAggregate& pairs() const { return run_; }

 private:
  PrivacyTotals& t_;
  std::int64_t run_index_;
  bool keep_;
  const Graph* union_graph_;
  const ErRunBounds* er_;
  LossStatistics* union_stats_;
  const GossipPrivacyVisitor& visit_;
  LossAggregate run_;
  std::vector<double> observer_;  // sum_{u != v} f(u, v) per v
  std::vector<char> neighbour_;   // marks of the current source's union neighbours
  std::int64_t rows_received_ = 0;
};

/// Adds privacy_mean/min/max.npy, the quantile and ER-bound matrices, privacy_runs.csv and the by-distance
/// tables (docs/gossip_sim.md) to the run's typed result; returns summary.json's "privacy" object.
nlohmann::json add_privacy_outputs(RunResult& result, const GossipSimParams& p, const GossipPrivacyParams& q,
                                   const GossipPrivacyResult& r);

/// Adds privacy_stop.csv (docs/gossip_sim.md "Stopping at an accuracy rule") to the run's typed result;
/// returns summary.json's "stop" object.
nlohmann::json add_stop_outputs(RunResult& result, const GossipStopResult& r);

}  // namespace netdp::gossip_sim_detail
