#include "netdp/study/study_results.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "netdp/core/format.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp::study {

using json = nlohmann::json;

bool is_execution_fact(const std::string& key) {
  static const char* exact[] = {"threads",    "tiles",           "tile_sources", "batches",
                                "batch_runs", "walks_in_flight", "passes",       "seed"};
  for (const char* e : exact)
    if (key == e) return true;
  return key.starts_with("seconds") || key.ends_with("_seconds") || key.ends_with("per_second") ||
         key.starts_with("memory_estimate");
}

namespace {

// Walks the summary; `leaf` carries the names and labels of the path so far.
void flatten(const json& value, const SummaryLeaf& at, std::vector<SummaryLeaf>& out) {
  const auto joined = [](const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  };
  if (value.is_number()) {
    out.push_back(at);
    out.back().value = value.get<double>();
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      if (!is_execution_fact(key)) {
        SummaryLeaf next = at;
        next.path = joined(at.path, key);
        next.statistic = joined(at.statistic, key);
        flatten(item, next, out);
      }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const json& item = value[i];
      std::string skip;
      if (item.is_object())
        for (const char* field : {"distance", "t", "n"})
          if (item.contains(field) && item[field].is_number()) {
            skip = field;
            break;
          }
      SummaryLeaf next = at;
      const bool labelled =
          std::none_of(at.labels.begin(), at.labels.end(), [&](const auto& l) { return l.first == skip; });
      if (skip.empty()) {  // a list of numbers, or records without a label: by position in both names
        next.path += "[" + std::to_string(i) + "]";
        next.statistic += "[" + std::to_string(i) + "]";
        flatten(item, next, out);
        continue;
      }
      const std::string label = "[" + skip + "=" + item[skip].dump() + "]";
      next.path += label;
      if (labelled)
        next.labels.emplace_back(skip, item[skip].get<double>());
      else  // the same field twice on one path (nested lists): the inner one stays in the name
        next.statistic += label;
      json rest = item;
      rest.erase(skip);
      flatten(rest, next, out);
    }
  }
}

}  // namespace

// The model tables' spelling (io/csv_table.hpp): one CSV for the study and the models.
std::string float_cell(double x) {
  return csv_double(x);
}

std::string csv_cell(const std::string& text) {
  return csv_text(text);
}

std::string parameter_cell(const json& value) {
  return csv_cell(value.is_number_float() ? float_cell(value.get<double>()) : argument_text(value));
}

std::vector<SummaryLeaf> summary_leaves(const json& summary) {
  std::vector<SummaryLeaf> out;
  flatten(summary, SummaryLeaf{}, out);
  return out;
}

std::vector<std::pair<std::string, double>> flatten_summary(const json& summary) {
  std::vector<std::pair<std::string, double>> out;
  for (auto& leaf : summary_leaves(summary)) out.emplace_back(std::move(leaf.path), leaf.value);
  return out;
}

double quantile(const std::vector<double>& sorted, double level) {
  const double h = level * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - double(lo)) * (sorted[lo + 1] - sorted[lo]);
}

std::vector<std::string> parameter_columns(const StudyPlan& plan) {
  std::vector<std::string> columns;
  for (const auto& point : plan.points)
    for (const auto& [key, value] : point.parameters)
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
  return columns;
}

std::string point_cells(const StudySpec& spec, const GridPoint& point,
                        const std::vector<std::string>& columns) {
  const auto& experiment = spec.experiments[point.experiment];
  std::string cells = csv_cell(experiment.name) + ',' + point.name + ',' + csv_cell(experiment.model);
  for (const auto& c : columns) {
    auto it = std::find_if(point.parameters.begin(), point.parameters.end(),
                           [&](auto& kv) { return kv.first == c; });
    cells += ',' + (it == point.parameters.end() ? std::string() : parameter_cell(it->second));
  }
  return cells;
}

std::string aggregate_cells(std::vector<double> v, const std::vector<double>& quantiles) {
  const double k = double(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / k;
  std::string stderr_text;
  if (v.size() >= 2) {
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    stderr_text = float_cell(std::sqrt(ss / (k - 1)) / std::sqrt(k));
  }
  std::sort(v.begin(), v.end());
  std::string cells = ',' + std::to_string(v.size()) + ',' + float_cell(mean) + ',' + stderr_text + ',' +
                      float_cell(v.front()) + ',' + float_cell(v.back());
  for (double q : quantiles) cells += ',' + float_cell(quantile(v, q));
  return cells;
}

std::string results_csv(const StudySpec& spec, const StudyPlan& plan, const std::vector<json>& records) {
  const std::vector<std::string> columns = parameter_columns(plan);
  std::ostringstream csv;
  csv << "experiment,point,model";
  for (const auto& c : columns) csv << ',' << csv_cell(c);
  csv << ",statistic,replicates,mean,stderr,min,max";
  for (double q : spec.quantiles) csv << ",q" << format_double(q);
  csv << '\n';
  std::vector<std::vector<std::size_t>> units_of(plan.points.size());
  for (const auto& u : plan.units) units_of[u.point].push_back(u.index);
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    const std::string prefix = point_cells(spec, plan.points[p], columns);
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> values;
    for (std::size_t unit : units_of[p])
      for (const auto& [name, x] : flatten_summary(records[unit].at("summary"))) {
        auto [it, fresh] = values.try_emplace(name);
        if (fresh) order.push_back(name);
        it->second.push_back(x);
      }
    for (const auto& name : order)
      csv << prefix << ',' << csv_cell(name) << aggregate_cells(values[name], spec.quantiles) << '\n';
  }
  return csv.str();
}

}  // namespace netdp::study
