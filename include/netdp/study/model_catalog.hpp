#pragma once
// What the study runner needs from the models (docs/study.md "Models"): the runner knows no model by name.
// The catalog of netdp is the model registry (netdp/jobs/model.hpp), called in-process: registry_catalog().
// Tests may supply their own.
#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace netdp::study {

/// A model's parameters in file order: parameter name -> TOML value (bool, number, string, list).
using Arguments = std::vector<std::pair<std::string, nlohmann::json>>;

/// Rough resources of one unit, for --dry-run and the study's budgets (0 = unknown).
struct UnitEstimate {
  double bytes = 0;
  double seconds = 0;
};

/// Where and how one unit runs; none of it may change the unit's results.
struct UnitContext {
  std::filesystem::path out_dir;
  std::string device = "auto";  // the model's device when it has one and the study does not set it
  int threads = 0;              // the model's threads likewise (0 = all)
};

class ModelCatalog {
 public:
  virtual ~ModelCatalog() = default;
  virtual std::vector<std::string> models() const = 0;
  virtual bool has_model(const std::string& model) const = 0;
  /// Parameter names, in the order of the model's help.
  virtual std::vector<std::string> parameters(const std::string& model) const = 0;
  /// True when `key` names a parameter of the model: one of parameters() or an older spelling of one
  /// (docs/design_models.md "Renaming a parameter").
  virtual bool accepts(const std::string& model, const std::string& key) const {
    const auto known = parameters(model);
    return std::find(known.begin(), known.end(), key) != known.end();
  }
  /// Throws InvalidInput (without location) when the model does not accept `value` for `key`.
  virtual void check_parameter(const std::string& model, const std::string& key,
                               const nlohmann::json& value) const = 0;
  /// Parses a whole unit without running it (required options, combinations); throws InvalidInput.
  virtual void check_unit(const std::string& model, const Arguments& arguments) const = 0;
  virtual UnitEstimate estimate(const std::string& model, const Arguments& arguments) const = 0;
  /// Runs the unit: the model writes its files, summary.json among them, into context.out_dir and returns
  /// the summary.
  virtual nlohmann::json run(const std::string& model, const Arguments& arguments,
                             const UnitContext& context) const = 0;
};

/// The models of the registry that write summary.json (jobs::Model::study_model), called in-process: values
/// converted and checked by the registry, run() returning the summary directly.
const ModelCatalog& registry_catalog();

}  // namespace netdp::study
