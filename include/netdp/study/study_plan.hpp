#pragma once
// A study expanded into work units (docs/study.md): grid points in a fixed order, one unit per replicate,
// each with a seed derived from the study seed, the experiment, the point's parameters and the replicate.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "netdp/study/study_file.hpp"

namespace netdp::study {

struct GridPoint {
  std::size_t experiment = 0;
  std::string name;      // "p0003": the point's directory under its experiment
  Arguments parameters;  // fixed parameters, then one value per axis (file order)
};

struct WorkUnit {
  std::size_t index = 0;  // position in the plan; the unit -> shard / rank assignment uses it
  std::size_t experiment = 0, point = 0;
  int replicate = 0;
  std::uint64_t seed = 0;
  std::filesystem::path dir;  // relative: <experiment>/<point>/rep-<k>
  Arguments arguments;        // what the model receives ("{seed}" substituted, seed set)
};

struct StudyPlan {
  std::vector<GridPoint> points;  // experiment by experiment, the first axis slowest
  std::vector<WorkUnit> units;    // point by point, replicates consecutive
};

/// Expands the grids; throws InvalidInput naming the max_units line when the study is too large.
/// `progress` receives the share of the units expanded (every 1024 units and at the end).
StudyPlan expand_study(const StudySpec& spec, const ModelCatalog& catalog,
                       const std::function<void(double)>& progress = {});

/// The unit seed: the first 53 bits of SHA-256 over a canonical text of its inputs (exact as a double in
/// every JSON reader).
std::uint64_t derive_seed(std::uint64_t study_seed, const std::string& experiment, const Arguments& point,
                          int replicate);

/// A parameter value as text: what the model's command line receives and results.csv shows (strings as they
/// are, floats in shortest round-trip form, lists joined by commas).
std::string argument_text(const nlohmann::json& value);

/// "{seed}" and "{replicate}" replaced in strings (also inside lists).
nlohmann::json substitute(const nlohmann::json& value, std::uint64_t seed, int replicate);

}  // namespace netdp::study
