// `netdp merge` (docs/study.md "Shards"): copies the finished units of shard directories into one results
// directory and gathers it; the result equals that of a single run.
#include <cstdio>

#include "netdp/core/error.hpp"
#include "netdp/study/study_runner.hpp"
#include "netdp/study/unit_store.hpp"
#include "study/study_output.hpp"

namespace netdp::study {

using json = nlohmann::json;
namespace fs = std::filesystem;

int merge_studies(const std::vector<fs::path>& inputs, const fs::path& out, const ModelCatalog& catalog,
                  const json& invocation) {
  if (inputs.empty()) throw InvalidInput("merge: give at least one shard directory");
  const std::string text = study_text_of(inputs.front());
  for (const auto& dir : inputs)
    if (study_text_of(dir) != text)
      throw InvalidInput("merge: " + dir.string() + " holds another study than " + inputs.front().string());
  const StudySpec spec = parse_study(text, (inputs.front() / "study.toml").string(), catalog);
  const StudyPlan plan = expand_study(spec, catalog);
  claim_study_dir(out, spec);
  std::error_code ec;
  std::size_t copied = 0;
  for (const auto& unit : plan.units) {
    if (inspect_unit(out, unit).state == UnitState::finished) continue;
    for (const auto& dir : inputs) {
      if (fs::equivalent(dir, out, ec)) continue;
      if (inspect_unit(dir, unit).state != UnitState::finished) continue;
      clear_unit(out, unit);
      fs::create_directories((out / unit.dir).parent_path());
      fs::copy(dir / unit.dir, out / unit.dir, fs::copy_options::recursive);
      ++copied;
      break;
    }
  }
  const GatheredUnits gathered = gather_units(out, plan);
  if (!gathered.missing.empty()) {
    std::fprintf(stderr, "netdp merge: %zu of %zu unit(s) are finished in none of the inputs, e.g. %s\n",
                 gathered.missing.size(), plan.units.size(),
                 plan.units[gathered.missing.front()].dir.generic_string().c_str());
    return 1;
  }
  json sources = json::array();
  for (const auto& dir : inputs) sources.push_back(dir.string());
  write_study_outputs(out, spec, plan, gathered.records,
                      {{"merged_from", sources}, {"units_copied", copied}, {"invocation", invocation}});
  if (const std::string w = warnings_line(plan, gathered.records); !w.empty())
    std::fprintf(stderr, "netdp merge: %s\n", w.c_str());
  std::printf("netdp merge: %zu unit(s) (%zu copied) -> %s/results.csv\n", plan.units.size(), copied,
              out.string().c_str());
  return 0;
}

}  // namespace netdp::study
