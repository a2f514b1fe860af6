// libFuzzer target (docs/reliability.md §5): the study loader (src/study/study_file.cpp, TOML via toml++) and
// the grid expansion (src/study/study_plan.cpp) on arbitrary text. A study may be refused (InvalidInput),
// never crash. The models are a small stand-in catalog, so that the target needs no model code: the loader
// only asks a catalog for names and value checks. Built by scripts/fuzz.sh.
#include <cstdint>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/study/study_plan.hpp"

namespace {

using netdp::study::Arguments;

class StandInCatalog : public netdp::study::ModelCatalog {
 public:
  std::vector<std::string> models() const override { return {"m", "n"}; }
  bool has_model(const std::string& model) const override { return model == "m" || model == "n"; }
  std::vector<std::string> parameters(const std::string&) const override {
    return {"graph", "steps", "sigma", "seed", "quantiles", "device"};
  }
  void check_parameter(const std::string&, const std::string& key,
                       const nlohmann::json& value) const override {
    if (key == "steps" && !value.is_number_integer()) throw netdp::InvalidInput("steps must be an integer");
  }
  void check_unit(const std::string&, const Arguments&) const override {}
  netdp::study::UnitEstimate estimate(const std::string&, const Arguments&) const override { return {}; }
  nlohmann::json run(const std::string&, const Arguments&, const netdp::study::UnitContext&) const override {
    return nlohmann::json::object();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const StandInCatalog catalog;
  try {
    auto spec = netdp::study::parse_study(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml",
                                          catalog);
    spec.max_units = std::min<std::int64_t>(spec.max_units, 10000);  // the expansion's own limit, kept small
    (void)netdp::study::expand_study(spec, catalog);
  } catch (const netdp::InvalidInput&) {
  }
  return 0;
}
