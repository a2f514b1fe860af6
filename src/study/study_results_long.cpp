// results_long.csv (docs/study.md "Outputs"): the rows of results.csv with the record labels of each
// statistic (by_distance[distance=3].mean) moved into columns of their own (statistic by_distance.mean,
// distance 3).
#include <algorithm>
#include <map>
#include <sstream>

#include "netdp/core/format.hpp"
#include "netdp/study/study_results.hpp"

namespace netdp::study {

using json = nlohmann::json;

namespace {

// One statistic of one grid point: its leaf (names, labels) and the values over the replicates.
struct Gathered {
  SummaryLeaf leaf;
  std::vector<double> values;
};

// The statistics of one point in order of first appearance, keyed by results.csv's name (unique per leaf).
std::vector<Gathered> gather_point(const std::vector<std::size_t>& units, const std::vector<json>& records) {
  std::vector<Gathered> rows;
  std::map<std::string, std::size_t> row_of;
  for (std::size_t unit : units)
    for (auto& leaf : summary_leaves(records[unit].at("summary"))) {
      auto [it, fresh] = row_of.try_emplace(leaf.path, rows.size());
      if (fresh) rows.push_back({leaf, {}});
      rows[it->second].values.push_back(leaf.value);
    }
  return rows;
}

}  // namespace

std::string results_long_csv(const StudySpec& spec, const StudyPlan& plan, const std::vector<json>& records) {
  const std::vector<std::string> parameters = parameter_columns(plan);
  std::vector<std::vector<std::size_t>> units_of(plan.points.size());
  for (const auto& u : plan.units) units_of[u.point].push_back(u.index);
  std::vector<std::vector<Gathered>> points;
  std::vector<std::string> fields;  // label fields in order of first appearance
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    points.push_back(gather_point(units_of[p], records));
    for (const auto& row : points.back())
      for (const auto& [field, value] : row.leaf.labels)
        if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
  }
  std::ostringstream csv;
  csv << "experiment,point,model";
  for (const auto& c : parameters) csv << ',' << csv_cell(c);
  csv << ",statistic";
  for (const auto& field : fields)  // a bound's parameter n and its records' n are two columns
    csv << ','
        << (std::find(parameters.begin(), parameters.end(), field) == parameters.end() ? "" : "statistic_")
        << field;
  csv << ",replicates,mean,stderr,min,max";
  for (double q : spec.quantiles) csv << ",q" << format_double(q);
  csv << '\n';
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    const std::string prefix = point_cells(spec, plan.points[p], parameters);
    for (const auto& row : points[p]) {
      csv << prefix << ',' << csv_cell(row.leaf.statistic);
      for (const auto& field : fields) {
        auto it = std::find_if(row.leaf.labels.begin(), row.leaf.labels.end(),
                               [&](auto& l) { return l.first == field; });
        // Labels are record fields such as distance 3: written as the summary wrote them, integers as
        // integers.
        csv << ',' << (it == row.leaf.labels.end() ? std::string() : format_double(it->second));
      }
      csv << aggregate_cells(row.values, spec.quantiles) << '\n';
    }
  }
  return csv.str();
}

}  // namespace netdp::study
