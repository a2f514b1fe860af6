#pragma once
// Progress lines on stderr for long runs: nothing for the first seconds, then at most one line every few
// seconds (rows done, rate, ETA). A sink, so it sees the tiles as they are produced.
#include <chrono>
#include <string>

#include "netdp/loss_rows.hpp"

namespace netdp {

class ProgressReporter : public LossRowSink {
 public:
  ProgressReporter(std::string label, std::int64_t total_rows, bool enabled);
  void consume(node_t first_source, node_t count, std::span<const double> rows) override;
  void finish();

 private:
  std::string label_;
  std::int64_t total_, done_ = 0;
  bool enabled_, printed_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace netdp
