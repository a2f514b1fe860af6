#pragma once
// A study file (docs/study.md): TOML with one [study] table and [[experiment]] tables, each a model with
// fixed parameters and grid axes. Everything is validated here, before anything runs; errors name the file
// and line.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/study/model_catalog.hpp"

namespace netdp::study {

struct ParameterSpec {
  std::string key;
  nlohmann::json value;
  int line = 0;
};

/// One grid axis: every value of the parameter, ranges already expanded. The axis `cases` binds several
/// parameters at once: each value is a list of [key, value] pairs (file order).
struct AxisSpec {
  std::string key;
  std::vector<nlohmann::json> values;
  int line = 0;
  bool cases() const { return key == "cases"; }
};

struct ExperimentSpec {
  std::string name, model;
  int replicates = 1;
  int line = 0;
  std::vector<ParameterSpec> params;  // file order
  std::vector<AxisSpec> axes;         // file order: the first axis varies slowest
};

struct StudySpec {
  std::string source;  // file name used in messages
  std::string text;    // the file's content (copied into the results directory, hashed in the manifest)
  std::string name;
  std::uint64_t seed = 0;
  std::vector<double> quantiles;  // over replicates, in results.csv
  double memory_limit_gib = 0;    // 0 = no limit
  double time_budget_hours = 0;   // 0 = no budget
  std::int64_t max_units = 1000000;
  int line_memory_limit = 0, line_time_budget = 0, line_max_units = 0;
  std::vector<ExperimentSpec> experiments;
};

/// Parses and validates; throws InvalidInput "SOURCE:LINE: message".
StudySpec parse_study(const std::string& text, const std::string& source, const ModelCatalog& catalog);
StudySpec read_study_file(const std::filesystem::path& path, const ModelCatalog& catalog);

}  // namespace netdp::study
