#pragma once
// The output side shared by every pairwise-loss model (gossip-loss, walk-loss, ...): rows stream into
// loss.npy, the statistics and the progress reporter; finish() adds loss.npy, by_distance.csv and
// per_observer.csv to the run's typed result and returns the statistics as JSON for summary.json.
// Formats: docs/outputs.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/accounting/loss_statistics.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/loss_rows.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp {

class LossReport {
 public:
  /// `rows` = n for all pairs, fewer for a subset of sources (per_observer.csv is then not written);
  /// without `write_matrix` the rows feed the statistics only (no loss.npy: large sweeps). loss.npy holds
  /// `diagonal` at (u, u) (docs/math.md §12 item 60); the statistics always leave u = v out.
  LossReport(const Graph& g, const ResultsDir& out, std::int64_t rows, const std::string& label,
             bool progress, bool write_matrix = true, double diagonal = 0.0);
  ~LossReport();
  LossRowSink& sink();
  /// Commits loss.npy, adds it and the tables to `run`; returns {"pairs", "mean_loss", "min_loss",
  /// "max_loss", "by_distance", and "max_mean_observer_loss" for all pairs}.
  nlohmann::json finish(RunResult& run);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Aggregates by hop distance (index d + 1 = distance d, index 0 = unreachable) as by_distance rows
/// {distance, pairs, mean, min, max}, unreachable pairs last as distance "inf" (docs/outputs.md).
nlohmann::json distance_rows(const std::vector<LossAggregate>& buckets);

/// by_distance.csv (docs/outputs.md) as the table `name`: the columns `distance,pairs,mean,min,max`, then one
/// line per row of distance_rows.
CsvTable by_distance_table(const std::string& name, const nlohmann::json& rows);

/// The provenance fields every manifest starts with: version, git commit, command, UTC time, command line.
nlohmann::json manifest_header(const std::string& command, const nlohmann::json& invocation);

}  // namespace netdp
