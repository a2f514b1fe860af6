// The study runner's models are the registry's (docs/study.md "Models"): a study parameter is a registry
// parameter, converted, checked, estimated and run in-process by the same code as a command line's.
#include <algorithm>

#include "netdp/core/error.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/study/model_catalog.hpp"

namespace netdp::study {

using json = nlohmann::json;

namespace {

const jobs::Model& study_model(const std::string& name) {
  const jobs::Model* model = jobs::find_model(name);
  if (!model || !model->study_model) throw InvalidInput("unknown model '" + name + "'");
  return *model;
}

/// A grid point's or a unit's error about one parameter, spelled as the study file's key ("steps must be >=
/// 1, got 0"); as InvalidInput, so that the command line does not turn the name into an option.
[[noreturn]] void rethrow_as_key(const InvalidParameter& e) {
  throw InvalidInput(e.what());
}

class RegistryCatalog : public ModelCatalog {
 public:
  std::vector<std::string> models() const override {
    std::vector<std::string> names;
    for (const auto& m : jobs::models())
      if (m.study_model) names.push_back(m.name);
    return names;
  }

  bool has_model(const std::string& name) const override {
    const jobs::Model* model = jobs::find_model(name);
    return model && model->study_model;
  }

  std::vector<std::string> parameters(const std::string& name) const override {
    std::vector<std::string> keys;
    for (const auto& p : study_model(name).parameters) keys.push_back(p.name);
    return keys;
  }

  bool accepts(const std::string& name, const std::string& key) const override {
    return study_model(name).find(key) != nullptr;
  }

  void check_parameter(const std::string& name, const std::string& key, const json& value) const override {
    const jobs::Parameter* p = study_model(name).find(key);
    if (!p) throw InvalidInput("unknown parameter '" + key + "' of model '" + name + "'");
    try {
      (void)jobs::Values::convert(*p, value);
    } catch (const InvalidParameter& e) {
      throw InvalidInput("'" + key + "' = " + value.dump() + ": " + e.detail());
    }
  }

  void check_unit(const std::string& name, const Arguments& arguments) const override {
    const jobs::Model& model = study_model(name);
    try {
      model.check(jobs::Values::from_json(model, arguments));
    } catch (const InvalidParameter& e) {
      rethrow_as_key(e);
    }
  }

  UnitEstimate estimate(const std::string& name, const Arguments& arguments) const override {
    const jobs::Model& model = study_model(name);
    try {
      const jobs::Estimate e = model.estimate(jobs::Values::from_json(model, arguments));
      return {e.bytes, e.seconds};
    } catch (const InvalidParameter& e) {
      rethrow_as_key(e);
    }
  }

  json run(const std::string& name, const Arguments& arguments, const UnitContext& unit) const override {
    const jobs::Model& model = study_model(name);
    jobs::RunContext context;
    context.out_dir = unit.out_dir;
    context.device = unit.device;
    context.threads = unit.threads;
    context.quiet = true;  // units run quiet; their warnings are in summary.json
    json given = json::array();
    for (const auto& [key, value] : arguments) given.push_back(json::array({key, value}));
    context.invocation = {{"runner", "netdp run"},
                          {"model", name},
                          {"arguments", given},
                          {"device", unit.device},
                          {"threads", unit.threads}};
    json summary;
    try {
      summary = model.run(jobs::Values::from_json(model, arguments), context);
    } catch (const InvalidParameter& e) {
      rethrow_as_key(e);
    }
    // As summary.json holds it (JSON has no nan or inf: null), so that a unit's statistics do not depend on
    // whether they come from this run or from its files.
    return json::parse(summary.dump());
  }
};

}  // namespace

const ModelCatalog& registry_catalog() {
  static const RegistryCatalog catalog;
  return catalog;
}

}  // namespace netdp::study
