#pragma once
// The bad-input catalogue's case runner (docs/reliability.md §1), shared by tests/cli/test_bad_inputs*.cpp:
// each case exits 2 with exactly one short line on stderr naming the fault and leaves no output directory
// behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace netdp::testing {

struct BadInput {
  const char* name;
  std::string args;     // netdp ARGS --out OUT
  const char* message;  // a fragment the error line must contain
};

// Every case runs under `ulimit -d 4 GiB` (a data-segment limit: netdp counts it as the memory available,
// src/core/memory_info.cpp), so the memory refusals hold on any machine, whatever its free memory. Under
// AddressSanitizer (scripts/sanitize.sh), which must reserve terabytes of shadow address space, the same 4
// GiB is given as NETDP_MEMORY_MB instead of a process limit.
inline CliResult run_limited(const std::string& args) {
  return run_cli(args, under_address_sanitizer() ? "NETDP_MEMORY_MB=4096 " : "ulimit -d 4194304; ");
}

inline void expect_refused(const ScratchDir& dir, const std::vector<BadInput>& cases) {
  for (const auto& c : cases) {
    auto out = dir / (std::string("out-") + std::to_string(&c - cases.data()));
    auto r = run_limited(c.args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_LE(r.err.size(), 400u) << c.name << ": the message must stay short";
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name << ": an output directory was left behind";
  }
}

}  // namespace netdp::testing
