#include "study/study_output.hpp"

#include <fstream>
#include <sstream>

#include "netdp/core/error.hpp"
#include "netdp/core/version.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/study/study_results.hpp"
#include "netdp/study/unit_store.hpp"
#include "study/sha256.hpp"

namespace netdp::study {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string study_text_of(const fs::path& dir) {
  std::ifstream in(dir / "study.toml", std::ios::binary);
  if (!in) throw InvalidInput(dir.string() + " is not a study results directory (no study.toml)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void claim_study_dir(const fs::path& dir, const StudySpec& spec, bool update) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InvalidParameter("out", "out " + dir.string() + " exists and is not a directory");
  if (fs::exists(dir / "study.toml", ec)) {
    if (study_text_of(dir) == spec.text) return;
    if (!update)
      throw InvalidParameter(
          "out", "out " + dir.string() + " holds the results of another study (its study.toml differs from " +
                     spec.source +
                     "); choose another output directory, or update it (which keeps its unchanged units)");
    ResultsDir(dir).write_text("study.toml", spec.text);  // removes the old manifest: the study is unfinished
    return;
  }
  // A run killed while writing study.toml leaves only its temporary: that directory is still free.
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (!is_leftover_temporary(entry.path().filename().string()))
      throw InvalidParameter(
          "out", "out " + dir.string() + " is not empty and holds no study; choose another output directory");
  ResultsDir(dir).write_text("study.toml", spec.text);
}

GatheredUnits gather_units(const fs::path& dir, const StudyPlan& plan, std::vector<json> known) {
  GatheredUnits g;
  g.records = std::move(known);
  g.records.resize(plan.units.size());
  for (const auto& unit : plan.units) {
    if (!g.records[unit.index].is_null()) continue;
    auto seen = inspect_unit(dir, unit);
    if (seen.state == UnitState::finished)
      g.records[unit.index] = std::move(seen.record);
    else
      g.missing.push_back(unit.index);
  }
  return g;
}

std::string warnings_line(const StudyPlan& plan, const std::vector<json>& records) {
  std::size_t count = 0;
  std::string first;
  for (const auto& unit : plan.units) {
    const json w = records[unit.index].at("summary").value("warnings", json::array());
    if (!w.is_array() || w.empty()) continue;
    if (count++ == 0)
      first = unit.dir.generic_string() + ": " + (w[0].is_string() ? w[0].get<std::string>() : w[0].dump());
  }
  if (count == 0) return "";
  return std::to_string(count) + " unit(s) reported warnings in their summary.json, e.g. " + first;
}

void write_study_outputs(const fs::path& dir, const StudySpec& spec, const StudyPlan& plan,
                         const std::vector<json>& records, const json& facts) {
  ResultsDir out(dir);
  out.write_text("results.csv", results_csv(spec, plan, records));
  out.write_text("results_long.csv", results_long_csv(spec, plan, records));
  double unit_seconds = 0;
  for (const auto& r : records) unit_seconds += r.value("seconds", 0.0);
  json experiments = json::array();
  for (const auto& e : spec.experiments) {
    std::size_t points = 1;
    for (const auto& a : e.axes) points *= a.values.size();
    experiments.push_back(
        {{"name", e.name}, {"model", e.model}, {"points", points}, {"replicates", e.replicates}});
  }
  json manifest = {
      {"tool", "netdp run"},
      {"netdp_version", version()},
      {"git_commit", git_commit()},
      {"study",
       {{"file", spec.source}, {"name", spec.name}, {"sha256", sha256_hex(spec.text)}, {"seed", spec.seed}}},
      {"experiments", experiments},
      {"units", plan.units.size()},
      {"unit_seconds_total", unit_seconds},
      {"outputs", {"study.toml", "results.csv", "results_long.csv"}}};
  manifest.update(facts);
  out.commit_manifest(manifest);
}

}  // namespace netdp::study
