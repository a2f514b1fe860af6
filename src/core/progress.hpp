#pragma once
// Progress lines on stderr for long runs: nothing for the first seconds, then at most one line every few
// seconds (fraction done, elapsed, ETA), and a closing line if anything was printed.
#include <chrono>
#include <string>

#include "netdp/core/loss_rows.hpp"

namespace netdp {

/// Seconds since construction (the runs' seconds_* fields).
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

class ProgressLine {
 public:
  /// `what` names the unit of progress in the lines, e.g. "of the sources".
  ProgressLine(std::string label, std::string what, bool enabled);
  void update(double fraction);
  void finish() const;

 private:
  std::string label_, what_;
  bool enabled_, printed_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

/// A loss-row sink that reports the share of source rows received.
class ProgressReporter : public LossRowSink {
 public:
  ProgressReporter(std::string label, std::int64_t total_rows, bool enabled)
      : line_(std::move(label), "of the sources", enabled), total_(total_rows) {}
  void consume(node_t, node_t count, std::span<const double>) override {
    done_ += count;
    line_.update(total_ > 0 ? double(done_) / double(total_) : 1.0);
  }
  void finish() const { line_.finish(); }

 private:
  ProgressLine line_;
  std::int64_t total_, done_ = 0;
};

}  // namespace netdp
