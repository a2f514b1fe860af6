#pragma once
// A CLI run into a scratch directory, the way the end-to-end tests begin: `const CliRun run(ARGS, {files});
// ASSERT_TRUE(run.ok);`, or, where the test first writes inputs into run.dir, `CliRun run;` then
// `ASSERT_TRUE(run(ARGS, {files}))`; then read what it wrote under `run.out` (`run.summary()`: summary.json).
// And two runs that must write the same file (expect_same_output).
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace netdp::testing {

struct CliRun {
  ScratchDir dir;
  std::filesystem::path out = dir / "out";
  bool ok = false;  // the run of the constructor below succeeded

  CliRun() = default;
  /// Runs ARGS at once (operator()); `ok` says whether it succeeded.
  explicit CliRun(const std::string& args, std::initializer_list<const char*> files = {})
      : ok((*this)(args, files)) {}

  /// `netdp ARGS --out OUT`: true when it exits 0 (its stderr shown otherwise); each of `files` must exist,
  /// and manifest.json, which every command writes last (docs/outputs.md).
  bool operator()(const std::string& args, std::initializer_list<const char*> files = {}) const {
    const bool done = run_cli_into(args, out, files);
    EXPECT_TRUE(!done || std::filesystem::exists(out / "manifest.json")) << "netdp " << args;
    return done;
  }
  /// OUT/summary.json.
  nlohmann::json summary() const { return read_json(out / "summary.json"); }
};

/// The summaries of two runs.
struct SummaryPair {
  nlohmann::json a, b;
};

/// `netdp ARGS_A` and `netdp ARGS_B`, each into its own scratch directory, both succeed and write the same
/// `file`, byte for byte (a seed, a thread count or a spelling that must not change the results). Returns
/// their summaries (empty where a run failed).
inline SummaryPair expect_same_output(const std::string& args_a, const std::string& args_b,
                                      const char* file) {
  const CliRun a(args_a, {file}), b(args_b, {file});
  EXPECT_TRUE(a.ok && b.ok) << args_a << " | " << args_b;
  if (!a.ok || !b.ok) return {nlohmann::json::object(), nlohmann::json::object()};
  EXPECT_EQ(read_text((a.out / file).string()), read_text((b.out / file).string()))
      << args_a << " | " << args_b;
  return {a.summary(), b.summary()};
}

}  // namespace netdp::testing
