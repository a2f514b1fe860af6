#pragma once
// A CLI run into a scratch directory, the way the end-to-end tests begin: `ASSERT_TRUE(run(ARGS, {files}))`,
// then read what it wrote under `run.out` (`run.summary()` for summary.json).
#include <filesystem>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace netdp::testing {

struct CliRun {
  ScratchDir dir;
  std::filesystem::path out = dir / "out";

  /// `netdp ARGS --out OUT`: true when it exits 0 (its stderr shown otherwise); each of `files` must exist.
  bool operator()(const std::string& args, std::initializer_list<const char*> files = {}) const {
    return run_cli_into(args, out, files);
  }
  /// OUT/summary.json.
  nlohmann::json summary() const { return read_json(out / "summary.json"); }
};

}  // namespace netdp::testing
