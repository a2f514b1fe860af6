// The learning models' shared parameters (convex_model_job_parts.hpp).
#include "jobs/convex_model_job_parts.hpp"

#include <cmath>

#include "jobs/model_parts.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

std::vector<Parameter> learning_data_parameters(const LearningDataHelp& help) {
  using namespace declare;
  return {text("data", "CSV file: rows of features then a label (+-1 for logistic); default: synthetic data"),
          integer("synthetic-rows", "synthetic rows before the split")
              .fallback(help.synthetic_rows)
              .range(at_least(2)),
          integer("synthetic-dim", "synthetic features").fallback("8").range(at_least(1)),
          real("test-fraction", "fraction of the rows held out for " + help.test_measure)
              .fallback("0.2")
              .range(between(0, 0.99)),
          flag("no-intercept", "do not append the constant feature 1"),
          natural("data-seed", help.data_seed).fallback("0"),
          real("synthetic-separation",
               "synthetic logistic labels: y = +1 with probability sigmoid(S x'theta/|theta|); 0 = "
               "sigmoid(x'theta) "
               "(docs/walk_sgd.md \"Data\")")
              .fallback("0")
              .range(at_least(0))};
}

// mf-sgd reads its rows by name until it is bound (the other models bind learning_data_parameters(bind)).

void check_learning_data(const LearningDataSpec& s, Objective objective) {
  // synthetic_data draws an int count of rows (load_learning_split checks the same at the run).
  if (s.csv.empty() && s.synthetic_rows >= (std::int64_t{1} << 31))
    throw InvalidParameter("synthetic-rows",
                           "synthetic-rows must be in [2, 2^31), got " + std::to_string(s.synthetic_rows));
  if (!s.csv.empty()) (void)read_csv_data(s.csv, objective, 1);
}

double learning_data_bytes(const LearningDataSpec& s) {
  return s.csv.empty() ? 8.0 * double(s.synthetic_rows) * (double(s.synthetic_dim) + 2) : 0.0;
}

json learning_data_json(const LearningDataSpec& s) {
  const bool synthetic = s.csv.empty();
  return {{"data", s.csv},
          {"synthetic_rows", synthetic ? json(s.synthetic_rows) : json(nullptr)},
          {"synthetic_dim", synthetic ? json(s.synthetic_dim) : json(nullptr)},
          {"synthetic_separation", synthetic ? json(s.synthetic_separation) : json(nullptr)},
          {"test_fraction", s.test_fraction},
          {"intercept", s.intercept},
          {"data_seed", s.seed}};
}

json learning_split_json(const LearningSplit& s) {
  return {{"examples_per_user", s.train.size(0)},
          {"dim", s.train.dim},
          {"train_rows", s.train.examples()},
          {"test_rows", s.test.examples()},
          {"dropped_rows", s.dropped}};
}

json final_statistics_json(const RunStatistics& s) {
  return {{"mean", finite_or_null(s.mean.back())},
          {"std", finite_or_null(s.std.back())},
          {"min", finite_or_null(s.min.back())},
          {"max", finite_or_null(s.max.back())}};
}

std::vector<CsvColumn> statistics_columns(const std::vector<std::string>& curves) {
  std::vector<CsvColumn> columns{{"step", CsvType::int64}};
  for (const auto& curve : curves)
    for (const char* statistic : {"mean", "std", "min", "max"})
      columns.push_back({curve + "_" + statistic, CsvType::float64});
  return columns;
}

void append_statistics(std::vector<CsvCell>& row, const RunStatistics& s, std::size_t e) {
  row.insert(row.end(), {s.mean[e], s.std[e], s.min[e], s.max[e]});
}

std::vector<CsvColumn> learning_curve_columns(const std::vector<std::string>& extra) {
  std::vector<CsvColumn> columns = statistics_columns({"objective", "accuracy"});
  for (const auto& name : extra) columns.push_back({name, CsvType::float64});
  return columns;
}

std::vector<CsvCell> learning_curve_cells(std::int64_t step, const RunStatistics& objective,
                                          const RunStatistics& accuracy, std::size_t e) {
  std::vector<CsvCell> cells{step};
  append_statistics(cells, objective, e);
  append_statistics(cells, accuracy, e);
  return cells;
}

std::string final_learning_report(const json& summary, const RunContext& context) {
  const json& f = summary["final"];
  return format_line("final objective %.6g, accuracy %.4g, %.3f s -> %s\n",
                     f["objective"]["mean"].get<double>(),
                     f["accuracy"]["mean"].is_null() ? NAN : f["accuracy"]["mean"].get<double>(),
                     summary["seconds_runs"].get<double>(), context.out_dir.string().c_str());
}

std::vector<Parameter> mean_loss_parameters() {
  using namespace declare;
  return {real("target-mean-loss",
               "calibrate sigma so that the mean Renyi loss equals this (docs/math.md §5.8, §6.1); 0 = off")
              .fallback("0")
              .range(at_least(0)),
          real("alpha", "Renyi order of the mean loss").fallback("2").range(above(1)),
          choice("target-statistic",
                 "max-observer: max_v (1/n) sum_u eps_{u->v} | all-pairs: mean over ordered pairs",
                 {"max-observer", "all-pairs"})
              .fallback("max-observer"),
          real("sensitivity", "Delta of the mean-loss calibration (0 = 2 L, L the clip norm)")
              .fallback("0")
              .range(at_least(0))};
}

double mean_loss_sensitivity(const MeanLossTarget& t, double clip) {
  return t.sensitivity > 0 ? t.sensitivity : 2 * clip;
}

std::string to_string(TargetStatistic s) {
  return s == TargetStatistic::all_pairs ? "all-pairs" : "max-observer";
}

}  // namespace netdp::jobs
