#include "netdp/study/study_plan.hpp"

#include <algorithm>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "study/sha256.hpp"

namespace netdp::study {

using json = nlohmann::json;

std::uint64_t derive_seed(std::uint64_t study_seed, const std::string& experiment, const Arguments& point,
                          int replicate) {
  json canonical = json::array();
  for (const auto& [key, value] : point) canonical.push_back(json::array({key, value}));
  const std::string text = "netdp-study-seed-v1\n" + std::to_string(study_seed) + "\n" + experiment + "\n" +
                           canonical.dump() + "\n" + std::to_string(replicate);
  const auto digest = sha256(text);
  std::uint64_t seed = 0;
  for (int i = 0; i < 8; ++i) seed = (seed << 8) | digest[static_cast<std::size_t>(i)];
  return seed >> 11;
}

std::string argument_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return format_double(value.get<double>());
  if (value.is_array()) {
    std::string joined;
    for (const auto& item : value) joined.append(joined.empty() ? "" : ",").append(argument_text(item));
    return joined;
  }
  return value.dump();
}

json substitute(const json& value, std::uint64_t seed, int replicate) {
  if (value.is_array()) {
    json out = json::array();
    for (const auto& item : value) out.push_back(substitute(item, seed, replicate));
    return out;
  }
  if (!value.is_string()) return value;
  std::string s = value.get<std::string>();
  const auto replace = [&s](const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  };
  replace("{seed}", std::to_string(seed));
  replace("{replicate}", std::to_string(replicate));
  return s;
}

StudyPlan expand_study(const StudySpec& spec, const ModelCatalog& catalog,
                       const std::function<void(double)>& progress) {
  // Count first so that a huge grid is refused before anything is allocated.
  double total = 0;
  for (const auto& e : spec.experiments) {
    double points = 1;
    for (const auto& axis : e.axes) points *= double(axis.values.size());
    total += points * e.replicates;
  }
  if (total > double(spec.max_units))
    throw InvalidInput(spec.source + ":" + std::to_string(spec.line_max_units ? spec.line_max_units : 1) +
                       ": the study expands to " + std::to_string(static_cast<long long>(total)) +
                       " units, more than max_units = " + std::to_string(spec.max_units));
  StudyPlan plan;
  for (std::size_t ei = 0; ei < spec.experiments.size(); ++ei) {
    const auto& e = spec.experiments[ei];
    const bool takes_seed = [&] {
      const auto keys = catalog.parameters(e.model);
      return std::find(keys.begin(), keys.end(), "seed") != keys.end();
    }();
    std::size_t count = 1;
    for (const auto& axis : e.axes) count *= axis.values.size();
    const std::size_t width = std::max<std::size_t>(4, std::to_string(count - 1).size());
    for (std::size_t i = 0; i < count; ++i) {
      GridPoint point{ei, {}, {}};
      std::string digits = std::to_string(i);
      point.name.assign(1, 'p').append(width - digits.size(), '0').append(digits);
      for (const auto& p : e.params) point.parameters.emplace_back(p.key, p.value);
      // mixed radix, the last axis fastest
      std::size_t rest = i;
      std::vector<std::size_t> at(e.axes.size());
      for (std::size_t a = e.axes.size(); a-- > 0;) {
        at[a] = rest % e.axes[a].values.size();
        rest /= e.axes[a].values.size();
      }
      for (std::size_t a = 0; a < e.axes.size(); ++a) {
        const json& value = e.axes[a].values[at[a]];
        if (e.axes[a].cases())
          for (const auto& kv : value) point.parameters.emplace_back(kv[0].get<std::string>(), kv[1]);
        else
          point.parameters.emplace_back(e.axes[a].key, value);
      }
      const std::size_t point_index = plan.points.size();
      for (int r = 0; r < e.replicates; ++r) {
        WorkUnit u;
        u.index = plan.units.size();
        u.experiment = ei;
        u.point = point_index;
        u.replicate = r;
        u.seed = derive_seed(spec.seed, e.name, point.parameters, r);
        u.dir = std::filesystem::path(e.name) / point.name / ("rep-" + std::to_string(r));
        bool seeded = false;
        for (const auto& [key, value] : point.parameters) {
          if (key == "seed") {
            u.arguments.emplace_back(key, json(u.seed));
            seeded = true;
          } else {
            u.arguments.emplace_back(key, substitute(value, u.seed, r));
          }
        }
        if (takes_seed && !seeded) u.arguments.emplace_back("seed", json(u.seed));
        plan.units.push_back(std::move(u));
        if (progress && (plan.units.size() % 1024 == 0 || double(plan.units.size()) == total))
          progress(double(plan.units.size()) / total);
      }
      plan.points.push_back(std::move(point));
    }
  }
  return plan;
}

}  // namespace netdp::study
