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

/// One numeric leaf of a summary, named two ways: `path` is results.csv's statistic
/// ("by_distance[distance=3].mean"), `statistic` the same path without the record labels
/// ("by_distance.mean"), whose labels are listed in `labels` ({"distance", 3}) for results_long.csv's
/// columns. Positional labels
/// ("[0]") stay in both names.
struct SummaryLeaf {
  std::string path, statistic;
  std::vector<std::pair<std::string, double>> labels;
  double value = 0;
};
std::vector<SummaryLeaf> summary_leaves(const nlohmann::json& summary);

/// Linear interpolation between order statistics (numpy's default); `sorted` must be sorted and non-empty.
double quantile(const std::vector<double>& sorted, double level);

/// results.csv for the whole plan; records[i] is unit i's unit.json. Float cells always read as floats
/// (float_cell), parameters that are TOML floats included.
std::string results_csv(const StudySpec& spec, const StudyPlan& plan,
                        const std::vector<nlohmann::json>& records);

/// results_long.csv (docs/study.md "Outputs"): results.csv with the record labels of each statistic as
/// columns of their own (`distance`, `t`, `n`; `statistic_<field>` when a parameter has that name), so a
/// curve is one pivot of the table and not a parse of statistic names.
std::string results_long_csv(const StudySpec& spec, const StudyPlan& plan,
                             const std::vector<nlohmann::json>& records);

/// format_double, with ".0" appended when that text reads as an integer ("1" -> "1.0"): the study's float
/// cells, so that readers that guess types from the text (pandas) see a float column even when every value is
/// whole.
std::string float_cell(double x);

/// A CSV cell: quoted when it holds a comma, a quote or a newline.
std::string csv_cell(const std::string& text);

/// A parameter's value as a CSV cell: argument_text, but a TOML float always reads as a float ("2.0").
std::string parameter_cell(const nlohmann::json& value);

/// The parameter columns of the plan: the union over its points, in order of first appearance.
std::vector<std::string> parameter_columns(const StudyPlan& plan);

/// "experiment,point,model" and the point's parameter cells (empty where it has none), for `columns`.
std::string point_cells(const StudySpec& spec, const GridPoint& point,
                        const std::vector<std::string>& columns);

/// ",replicates,mean,stderr,min,max,q..." over one statistic's values (stderr empty for one value).
std::string aggregate_cells(std::vector<double> values, const std::vector<double>& quantiles);

}  // namespace netdp::study
