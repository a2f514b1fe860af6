#include "netdp/study/unit_store.hpp"

#include <fstream>
#include <set>

#include "netdp/io/results_dir.hpp"
#include "study/sha256.hpp"

namespace netdp::study {

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* kRecord = "unit.json";

json arguments_json(const Arguments& arguments) {
  json list = json::array();
  for (const auto& [key, value] : arguments) list.push_back(json::array({key, value}));
  return list;
}

}  // namespace

UnitInspection inspect_unit(const fs::path& study_dir, const WorkUnit& unit) {
  const fs::path dir = study_dir / unit.dir;
  UnitInspection result;
  if (!fs::exists(dir)) return result;
  result.state = UnitState::torn;
  const fs::path record_path = dir / kRecord;
  if (!fs::exists(record_path)) {
    result.reason = "no unit.json (interrupted)";
    return result;
  }
  std::ifstream in(record_path);
  const json record = json::parse(in, nullptr, false);
  if (record.is_discarded() || !record.is_object() || !record.contains("files") ||
      !record.contains("summary")) {
    result.reason = "unit.json unreadable";
    return result;
  }
  if (record.value("seed", json()) != json(unit.seed) ||
      record.value("arguments", json()) != arguments_json(unit.arguments)) {
    result.reason = "unit.json belongs to other parameters";
    return result;
  }
  std::set<std::string> listed;
  for (const auto& [name, digest] : record["files"].items()) {
    listed.insert(name);
    std::error_code ec;
    if (!fs::is_regular_file(dir / name, ec)) {
      result.reason = name + " is missing";
      return result;
    }
    if (sha256_file_hex(dir / name) != digest.get<std::string>()) {
      result.reason = name + " does not match its checksum";
      return result;
    }
  }
  result.state = UnitState::finished;
  result.record = record;
  return result;
}

json commit_unit(const fs::path& study_dir, const WorkUnit& unit, const json& summary, double seconds) {
  const fs::path dir = study_dir / unit.dir;
  json files = json::object();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name != kRecord && entry.path().extension() != ".tmp")
      files[name] = sha256_file_hex(entry.path());
  }
  const json record = {{"unit", unit.dir.generic_string()},
                       {"index", unit.index},
                       {"replicate", unit.replicate},
                       {"seed", unit.seed},
                       {"arguments", arguments_json(unit.arguments)},
                       {"summary", summary},
                       {"files", files},
                       {"seconds", seconds}};
  AtomicFile file(dir / kRecord);
  file.stream() << record.dump(1) << '\n';
  file.commit();
  return record;
}

void clear_unit(const fs::path& study_dir, const WorkUnit& unit) {
  std::error_code ec;
  fs::remove_all(study_dir / unit.dir, ec);
}

}  // namespace netdp::study
