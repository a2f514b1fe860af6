#pragma once
// What the tests of stoppable runs share: a sink that counts the loss rows a run hands over, and a progress
// sink that makes stop requests count (core/progress.hpp: only while one is installed).
#include <cstdint>
#include <span>
#include <string>

#include "core/progress.hpp"
#include "netdp/core/loss_rows.hpp"

namespace netdp::testing {

struct RowCounter : LossRowSink {
  void consume(node_t, node_t count, std::span<const double>) override { rows += count; }
  std::int64_t rows = 0;
};

struct QuietProgressSink : ProgressSink {
  void report(const std::string&, double) override {}
};

}  // namespace netdp::testing
