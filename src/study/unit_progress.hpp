#pragma once
// Study progress on stderr (docs/study.md): a redrawn bar when stderr is a terminal (units done / total,
// rate, ETA), a plain line every few seconds otherwise, nothing when disabled. Thread-safe. Under MPI only
// rank 0 draws, for the whole share: its own units plus those the other ranks have committed, which it counts
// from the shared results directory (`elsewhere`), so no rank waits on a collective to report progress.
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>

namespace netdp::study {

class UnitProgress {
 public:
  /// Counts the units of other ranks that are committed now (their unit.json exists).
  using Elsewhere = std::function<std::size_t()>;

  /// `total` units in this share (with `elsewhere`: the other ranks' included), `already` of this process's
  /// own finished by earlier runs.
  UnitProgress(std::size_t total, std::size_t already, bool enabled, Elsewhere elsewhere = {});
  /// One unit ended: committed, or failed (`failed`: counted apart, "5/6 units (1 failed)").
  void unit_done(bool failed = false);
  /// Redraws when the interval has passed (rank 0 while it waits for the other ranks).
  void tick();
  /// The closing line; `failed_elsewhere`: units the other ranks reported failed.
  void finish(std::size_t failed_elsewhere = 0);

 private:
  void draw(bool final_line);
  std::size_t others(bool force);
  std::mutex mutex_;
  std::size_t total_, already_, done_ = 0, failed_ = 0;
  bool enabled_, terminal_;
  Elsewhere elsewhere_;
  std::size_t others_start_ = 0, others_ = 0;
  std::chrono::steady_clock::time_point start_, last_, scanned_;
};

}  // namespace netdp::study
