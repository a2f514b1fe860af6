#pragma once
// Aggregation of a finished study (docs/study.md "results.csv"): the numeric leaves of every unit's summary,
// gathered over the replicates of each grid point into one tidy table.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/study/study_plan.hpp"

namespace netdp::study {

/// Execution facts (timings, threads, tiles, batches, memory estimates, seeds) depend on the machine and the
/// schedule, not on the study: they stay in the units' files but are not statistics.
bool is_execution_fact(const std::string& key);

/// Numeric leaves as dotted paths, e.g. "network_loss.mean", "by_distance[distance=3].mean"; lists of
/// records are labelled by their distance, t or n field, other lists by position. Booleans, strings and
/// nulls are skipped.
std::vector<std::pair<std::string, double>> flatten_summary(const nlohmann::json& summary);

/// Linear interpolation between order statistics (numpy's default); `sorted` must be sorted and non-empty.
double quantile(const std::vector<double>& sorted, double level);

/// results.csv for the whole plan; records[i] is unit i's unit.json.
std::string results_csv(const StudySpec& spec, const StudyPlan& plan,
                        const std::vector<nlohmann::json>& records);

}  // namespace netdp::study
