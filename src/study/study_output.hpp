#pragma once
// The study-level files of a results directory (docs/study.md "Outputs"): study.toml (the study as run),
// results.csv and manifest.json, written last.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/study/study_plan.hpp"

namespace netdp::study {

/// Creates `dir` and copies the study text into it, or checks that the study already there is the same one
/// (InvalidInput otherwise: a results directory holds one study). With `update`, a changed study replaces the
/// old text; units whose record no longer matches their plan entry are then redone, the others kept.
void claim_study_dir(const std::filesystem::path& dir, const StudySpec& spec, bool update = false);

/// The study text a results directory was made for; InvalidInput when it has none.
std::string study_text_of(const std::filesystem::path& dir);

/// unit.json of every unit, or the indices of those not finished. Units with a record in `known` (verified or
/// committed by this process) are taken as they are; the others are inspected, checksums included.
struct GatheredUnits {
  std::vector<nlohmann::json> records;
  std::vector<std::size_t> missing;
};
GatheredUnits gather_units(const std::filesystem::path& dir, const StudyPlan& plan,
                           std::vector<nlohmann::json> known = {});

/// One line about the units whose summary.json lists warnings (count and the first), empty when none: the
/// models stay quiet in a study, and this is where their warnings surface.
std::string warnings_line(const StudyPlan& plan, const std::vector<nlohmann::json>& records);

/// Writes results.csv and then manifest.json (`facts` are merged into the manifest).
void write_study_outputs(const std::filesystem::path& dir, const StudySpec& spec, const StudyPlan& plan,
                         const std::vector<nlohmann::json>& records, const nlohmann::json& facts);

}  // namespace netdp::study
