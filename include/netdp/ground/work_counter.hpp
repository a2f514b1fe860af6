#pragma once
// The ground (docs/design.md "The ground"): how a backend reports progress and learns that it should stop,
// without calling into the library. The driver passes a callback; the backend counts finished work items and
// passes it the share done, one call at a time; the callback answers false to ask for the items not started
// to be skipped (a stop request). Plain standard types only.
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>

namespace netdp::ground {

class WorkCounter {
 public:
  /// `report(share done)` is called after every `every`-th item and after the last one.
  WorkCounter(std::int64_t total, std::function<bool(double)> report, std::int64_t every = 1)
      : total_(total), every_(every < 1 ? 1 : every), report_(std::move(report)) {}

  /// True once the callback has asked to stop: skip the items not started.
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }

  /// One item finished (from any thread).
  void finished_one() {
    if (!report_) return;
    const std::int64_t done = done_.fetch_add(1) + 1;
    if (done % every_ != 0 && done != total_) return;
    const std::lock_guard lock(mutex_);
    if (!report_(total_ > 0 ? double(done) / double(total_) : 1.0)) stopped_ = true;
  }

 private:
  std::int64_t total_, every_;
  std::function<bool(double)> report_;
  std::atomic<std::int64_t> done_{0};
  std::atomic<bool> stopped_{false};
  std::mutex mutex_;
};

}  // namespace netdp::ground
