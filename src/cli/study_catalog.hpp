#pragma once
// The study runner's models are the CLI's commands (docs/study.md "Models"): a study parameter is a command
// option without "--", so studies and command lines share one vocabulary, one parser and one set of checks.
#include "netdp/study/model_catalog.hpp"

namespace netdp::cli {

class CliModelCatalog : public study::ModelCatalog {
 public:
  CliModelCatalog();
  std::vector<std::string> models() const override { return models_; }
  bool has_model(const std::string& model) const override;
  std::vector<std::string> parameters(const std::string& model) const override;
  void check_parameter(const std::string& model, const std::string& key,
                       const nlohmann::json& value) const override;
  void check_unit(const std::string& model, const study::Arguments& arguments) const override;
  study::UnitEstimate estimate(const std::string& model, const study::Arguments& arguments) const override;
  nlohmann::json run(const std::string& model, const study::Arguments& arguments,
                     const study::UnitContext& context) const override;

 private:
  std::vector<std::string> models_;
};

/// Rough resources of one model invocation (study_estimates.cpp).
study::UnitEstimate estimate_model(const std::string& model, const study::Arguments& arguments);

}  // namespace netdp::cli
