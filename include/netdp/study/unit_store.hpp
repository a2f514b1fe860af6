#pragma once
// Checkpoints of a study (docs/study.md): a unit is finished when its directory holds unit.json, written
// atomically after the model's files, with the SHA-256 of each of them. A directory without a valid record,
// or whose files no longer match it (a torn write, a kill -9 mid-unit), is redone.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/study/study_plan.hpp"

namespace netdp::study {

enum class UnitState { missing, finished, torn };

struct UnitInspection {
  UnitState state = UnitState::missing;
  nlohmann::json record;  // unit.json when finished
  std::string reason;     // why a unit is torn
};

/// Looks at `study_dir`/unit.dir without changing anything.
UnitInspection inspect_unit(const std::filesystem::path& study_dir, const WorkUnit& unit);

/// Writes unit.json for a unit whose model has just written its files; returns the record.
nlohmann::json commit_unit(const std::filesystem::path& study_dir, const WorkUnit& unit,
                           const nlohmann::json& summary, double seconds);

/// Removes whatever a torn or unfinished unit left behind.
void clear_unit(const std::filesystem::path& study_dir, const WorkUnit& unit);

}  // namespace netdp::study
