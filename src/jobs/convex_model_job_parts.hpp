#pragma once
// The registry parameters the learning models share (walk-sgd, muffliato-sgd): where the rows come from
// (convex_models.hpp LearningDataSpec) and the target of the mean-loss calibration (docs/math.md §5.8, §6.1).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/binding.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/io/csv_table.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/jobs/walk_loss_job.hpp"  // TargetStatistic
#include "netdp/simulation/convex_models.hpp"
#include "netdp/simulation/walk_sgd.hpp"  // RunStatistics

namespace netdp::jobs {

/// What a model's rows parameters say of its own: the default number of synthetic rows, what the held-out
/// rows measure and the help of data-seed.
struct LearningDataHelp {
  std::string synthetic_rows = "20640";
  std::string test_measure = "the test accuracy";
  std::string data_seed = "Philox seed of the synthetic data and the split (the same data for every seed)";
};
/// data, synthetic-rows, synthetic-dim, test-fraction, no-intercept, data-seed, synthetic-separation: the
/// rows of a learning run (the declarations; learning_data_parameters(bind) binds them to job.data).
std::vector<Parameter> learning_data_parameters(const LearningDataHelp& help = {});
/// The same parameters bound to the job's LearningDataSpec `data`.
template <class Job>
std::vector<Parameter> learning_data_parameters(Binding<Job>& bind, const LearningDataHelp& help = {}) {
  std::vector<Parameter> list = learning_data_parameters(help);
  list[0] = bind(list[0], [](Job& j, const std::string& path) { j.data.csv = path; });
  // an int at conversion (synthetic_data draws an int count of rows): beyond 2^31 - 1 refused, never wrapped
  list[1] = bind(list[1], [](Job& j, int rows) { j.data.synthetic_rows = rows; });
  list[2] = bind(list[2], &Job::data, &LearningDataSpec::synthetic_dim);
  list[3] = bind(list[3], &Job::data, &LearningDataSpec::test_fraction);
  list[4] = bind(list[4], [](Job& j, bool no_intercept) { j.data.intercept = !no_intercept; });
  list[5] = bind(list[5], &Job::data, &LearningDataSpec::seed);
  list[6] = bind(list[6], &Job::data, &LearningDataSpec::synthetic_separation);
  return list;
}
/// Reads a data CSV whole and checks it (shape, finiteness, labels; file:line), for the check phase: the
/// rows that load_learning_split would read. Nothing for synthetic data.
void check_learning_data(const LearningDataSpec& s, Objective objective);
/// Bytes the rows of `s` take once read (8 per value, train and test, the intercept column included): the
/// Estimate::required_bytes of the learning models, so a synthetic-rows beyond the memory is refused before
/// the data is drawn. 0 for a CSV file (its size is the file's).
double learning_data_bytes(const LearningDataSpec& s);
/// The spec for manifest.json.
nlohmann::json learning_data_json(const LearningDataSpec& s);
/// The sizes of a split for summary.json: examples_per_user, dim, train_rows, test_rows, dropped_rows.
nlohmann::json learning_split_json(const LearningSplit& s);

/// No non-finite number in an output (docs/reliability.md §1): every value of a curve, at its step, must be
/// finite; else NonFiniteValue (exit 1) naming the quantity, the step and what to change, before anything is
/// written.
template <class Step>
void require_finite_curve(const std::vector<Step>& step, const std::vector<double>& values,
                          const std::string& quantity, const std::string& remedy) {
  for (std::size_t e = 0; e < values.size() && e < step.size(); ++e)
    require_finite(values[e], quantity + " at step " + std::to_string(step[e]), remedy);
}

/// The last point of a statistics curve: {mean, std, min, max}.
nlohmann::json final_statistics_json(const RunStatistics& s);
/// curves.csv's columns of statistics curves: step, then for each curve NAME_mean, _std, _min and _max.
std::vector<CsvColumn> statistics_columns(const std::vector<std::string>& curves);
/// Appends a curve's four statistics at point e.
void append_statistics(std::vector<CsvCell>& row, const RunStatistics& s, std::size_t e);
/// The columns every learning model's curves.csv starts with: step, then mean, std, min and max of the
/// objective and of the accuracy; then `extra`, float64 each.
std::vector<CsvColumn> learning_curve_columns(const std::vector<std::string>& extra);
/// The cells of those first columns at point e of the curves.
std::vector<CsvCell> learning_curve_cells(std::int64_t step, const RunStatistics& objective,
                                          const RunStatistics& accuracy, std::size_t e);
/// curves.csv of those columns and one of the model's own, `last_name` (walk-sgd's max_contributions_mean,
/// muffliato-sgd's consensus_mean).
template <class Step>
CsvTable learning_curves_table(const std::vector<Step>& step, const RunStatistics& objective,
                               const RunStatistics& accuracy, const std::string& last_name,
                               const std::vector<double>& last) {
  CsvTable csv("curves.csv", learning_curve_columns({last_name}));
  for (std::size_t e = 0; e < step.size(); ++e) {
    auto row = learning_curve_cells(step[e], objective, accuracy, e);
    row.push_back(last[e]);
    csv.row(row);
  }
  return csv;
}

/// The end of a learning model's report line: "final objective O, accuracy A, S s -> OUT\n" from the summary
/// (accuracy nan when the objective has none).
std::string final_learning_report(const nlohmann::json& summary, const RunContext& context);

/// The target of a mean-loss calibration: eps_bar > 0 at Renyi order alpha, for the statistic (the worst
/// observer's mean, or the mean over all ordered pairs), the noise N(0, Delta^2 multiplier^2) with
/// Delta = sensitivity (0: 2 L, L the clip norm).
struct MeanLossTarget {
  double target = 0;  // 0: no mean-loss calibration
  double alpha = 2;
  TargetStatistic statistic = TargetStatistic::max_observer;
  double sensitivity = 0;
};
/// target-mean-loss, alpha, target-statistic, sensitivity, bound to the fields target, alpha, statistic and
/// sensitivity of `fields(job)` (a struct like MeanLossTarget).
std::vector<Parameter> mean_loss_parameters();
template <class Job, class Fields>
std::vector<Parameter> mean_loss_parameters(Binding<Job>& bind, Fields fields) {
  std::vector<Parameter> list = mean_loss_parameters();
  list[0] = bind(list[0], [fields](Job& j, double target) { fields(j).target = target; });
  list[1] = bind(list[1], [fields](Job& j, double alpha) { fields(j).alpha = alpha; });
  list[2] = bind(list[2], [fields](Job& j, const std::string& statistic) {
    fields(j).statistic =
        statistic == "all-pairs" ? TargetStatistic::all_pairs : TargetStatistic::max_observer;
  });
  list[3] = bind(list[3], [fields](Job& j, double sensitivity) { fields(j).sensitivity = sensitivity; });
  return list;
}
/// Delta: the given sensitivity, else 2 L.
double mean_loss_sensitivity(const MeanLossTarget& t, double clip);
std::string to_string(TargetStatistic s);

}  // namespace netdp::jobs
