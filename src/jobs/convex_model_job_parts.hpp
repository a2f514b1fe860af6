#pragma once
// The registry parameters the learning models share (walk-sgd, muffliato-sgd): where the rows come from
// (convex_models.hpp LearningDataSpec) and the target of the mean-loss calibration (docs/math.md §5.8, §6.1).
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/core/format.hpp"
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
/// data, synthetic-rows, synthetic-dim, test-fraction, no-intercept, data-seed: the rows that
/// learning_data_spec reads.
std::vector<Parameter> learning_data_parameters(const LearningDataHelp& help = {});
LearningDataSpec learning_data_spec(const Values& v);
/// The spec for manifest.json.
nlohmann::json learning_data_json(const LearningDataSpec& s);
/// The sizes of a split for summary.json: examples_per_user, dim, train_rows, test_rows, dropped_rows.
nlohmann::json learning_split_json(const LearningSplit& s);

/// The last point of a statistics curve: {mean, std, min, max}.
nlohmann::json final_statistics_json(const RunStatistics& s);
/// The four columns of one point of a statistics curve, each preceded by a comma (curves.csv).
std::string statistics_cells(const RunStatistics& s, std::size_t point);

/// The columns every learning model's curves.csv starts with: step, then mean, std, min and max of the
/// objective and of the accuracy (no newline).
std::string learning_curves_header();
/// curves.csv of those columns and one of the model's own, `last_name` (walk-sgd's max_contributions_mean,
/// muffliato-sgd's consensus_mean).
template <class Step>
std::string learning_curves_csv(const std::vector<Step>& step, const RunStatistics& objective,
                                const RunStatistics& accuracy, const std::string& last_name,
                                const std::vector<double>& last) {
  std::ostringstream csv;
  csv << learning_curves_header() << ',' << last_name << '\n';
  for (std::size_t e = 0; e < step.size(); ++e)
    csv << step[e] << statistics_cells(objective, e) << statistics_cells(accuracy, e) << ','
        << format_double(last[e]) << '\n';
  return csv.str();
}

/// The end of a learning model's report line: "final objective O, accuracy A, S s -> OUT\n" from the summary
/// (accuracy nan when the objective has none).
std::string final_learning_report(const nlohmann::json& summary, const RunContext& context);

/// What the learning models' estimates start from: runs, steps, synthetic rows and features (the intercept
/// included).
struct LearningRunSize {
  double runs = 0, steps = 0, rows = 0, dim = 0;
};
LearningRunSize learning_run_size(const Values& v);

/// The target of a mean-loss calibration: eps_bar > 0 at Renyi order alpha, for the statistic (the worst
/// observer's mean, or the mean over all ordered pairs), the noise N(0, Delta^2 multiplier^2) with
/// Delta = sensitivity (0: 2 L, L the clip norm).
struct MeanLossTarget {
  double target = 0;  // 0: no mean-loss calibration
  double alpha = 2;
  TargetStatistic statistic = TargetStatistic::max_observer;
  double sensitivity = 0;
};
/// target-mean-loss, alpha, target-statistic, sensitivity.
std::vector<Parameter> mean_loss_parameters();
MeanLossTarget mean_loss_target(const Values& v);
/// Delta: the given sensitivity, else 2 L.
double mean_loss_sensitivity(const MeanLossTarget& t, double clip);
std::string to_string(TargetStatistic s);

}  // namespace netdp::jobs
