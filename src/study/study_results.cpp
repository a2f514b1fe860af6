#include "netdp/study/study_results.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "netdp/core/format.hpp"

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

void flatten(const json& value, const std::string& path, std::vector<std::pair<std::string, double>>& out) {
  if (value.is_number()) {
    out.emplace_back(path, value.get<double>());
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      if (!is_execution_fact(key)) flatten(item, path.empty() ? key : path + "." + key, out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const json& item = value[i];
      std::string label = std::to_string(i), skip;
      if (item.is_object())
        for (const char* field : {"distance", "t", "n"})
          if (item.contains(field) && item[field].is_number()) {
            label = std::string(field) + "=" + item[field].dump();
            skip = field;
            break;
          }
      const std::string at = path + "[" + label + "]";
      if (item.is_object() && !skip.empty()) {
        json rest = item;
        rest.erase(skip);
        flatten(rest, at, out);
      } else {
        flatten(item, at, out);
      }
    }
  }
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::vector<std::pair<std::string, double>> flatten_summary(const json& summary) {
  std::vector<std::pair<std::string, double>> out;
  flatten(summary, "", out);
  return out;
}

double quantile(const std::vector<double>& sorted, double level) {
  const double h = level * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - double(lo)) * (sorted[lo + 1] - sorted[lo]);
}

std::string results_csv(const StudySpec& spec, const StudyPlan& plan, const std::vector<json>& records) {
  std::vector<std::string> columns;  // parameter columns, in order of first appearance
  for (const auto& point : plan.points)
    for (const auto& [key, value] : point.parameters)
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
  std::ostringstream csv;
  csv << "experiment,point,model";
  for (const auto& c : columns) csv << ',' << csv_cell(c);
  csv << ",statistic,replicates,mean,stderr,min,max";
  for (double q : spec.quantiles) csv << ",q" << format_double(q);
  csv << '\n';
  std::vector<std::vector<std::size_t>> units_of(plan.points.size());
  for (const auto& u : plan.units) units_of[u.point].push_back(u.index);
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    const auto& point = plan.points[p];
    const auto& experiment = spec.experiments[point.experiment];
    std::string prefix = csv_cell(experiment.name) + ',' + point.name + ',' + csv_cell(experiment.model);
    for (const auto& c : columns) {
      auto it = std::find_if(point.parameters.begin(), point.parameters.end(),
                             [&](auto& kv) { return kv.first == c; });
      prefix += ',' + (it == point.parameters.end() ? std::string() : csv_cell(argument_text(it->second)));
    }
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> values;
    for (std::size_t unit : units_of[p])
      for (const auto& [name, x] : flatten_summary(records[unit].at("summary"))) {
        auto [it, fresh] = values.try_emplace(name);
        if (fresh) order.push_back(name);
        it->second.push_back(x);
      }
    for (const auto& name : order) {
      std::vector<double> v = values[name];
      const double k = double(v.size());
      double sum = 0;
      for (double x : v) sum += x;
      const double mean = sum / k;
      std::string stderr_text;
      if (v.size() >= 2) {
        double ss = 0;
        for (double x : v) ss += (x - mean) * (x - mean);
        stderr_text = format_double(std::sqrt(ss / (k - 1)) / std::sqrt(k));
      }
      std::sort(v.begin(), v.end());
      csv << prefix << ',' << csv_cell(name) << ',' << v.size() << ',' << format_double(mean) << ','
          << stderr_text << ',' << format_double(v.front()) << ',' << format_double(v.back());
      for (double q : spec.quantiles) csv << ',' << format_double(quantile(v, q));
      csv << '\n';
    }
  }
  return csv.str();
}

}  // namespace netdp::study
