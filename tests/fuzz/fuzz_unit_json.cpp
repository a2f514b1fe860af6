// libFuzzer target (docs/reliability.md §5): the readers of the JSON records netdp finds in directories it
// writes into, on arbitrary bytes: a study unit's unit.json (inspect_unit, src/study/unit_store.cpp) and a
// results directory's manifest.json (ResultsDir's clean-up of an earlier run, src/io/results_dir.cpp). They
// may judge a record torn or ignore it, never crash, and a manifest never makes netdp delete a file outside
// its directory: the target checks that a file beside the directory survives. Built by scripts/fuzz.sh.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/study/unit_store.hpp"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path root = fs::temp_directory_path() / ("netdp-fuzz-json-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path unit_dir = root / "study/e/p0000/rep-0", results = root / "results",
                 outside = root / "keep.txt";
  fs::create_directories(unit_dir);
  fs::create_directories(results);
  std::ofstream(outside) << "outside the results directory";
  std::ofstream(unit_dir / "summary.json") << "{}";

  write(unit_dir / "unit.json", data, size);
  netdp::study::WorkUnit unit;
  unit.dir = "e/p0000/rep-0";
  (void)netdp::study::inspect_unit(root / "study", unit);

  write(results / "manifest.json", data, size);
  try {
    const netdp::ResultsDir dir(results);
  } catch (const netdp::InvalidInput&) {
  }
  if (!fs::exists(outside)) std::abort();  // a manifest reached outside its directory
  return 0;
}
