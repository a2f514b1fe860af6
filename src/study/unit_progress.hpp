#pragma once
// Study progress on stderr (docs/study.md): a redrawn bar when stderr is a terminal (units done / total,
// rate, ETA), a plain line every few seconds otherwise, nothing when disabled. Thread-safe.
#include <chrono>
#include <cstddef>
#include <mutex>

namespace netdp::study {

class UnitProgress {
 public:
  /// `total` units in this process's share, `already` of them finished by earlier runs.
  UnitProgress(std::size_t total, std::size_t already, bool enabled);
  /// One unit ended: committed, or failed (`failed`: counted apart, "5/6 units (1 failed)").
  void unit_done(bool failed = false);
  void finish();

 private:
  void draw(bool final_line);
  std::mutex mutex_;
  std::size_t total_, already_, done_ = 0, failed_ = 0;
  bool enabled_, terminal_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace netdp::study
