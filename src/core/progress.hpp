#pragma once
// Progress lines on stderr for long runs: nothing for the first seconds, then at most one line every few
// seconds (fraction done, elapsed, ETA), and a closing line if anything was printed. Besides the lines, a
// runner may watch a run (docs/python.md "Progress and Ctrl-C"): a ProgressSink receives every update, and a
// stop request ends the run's long loops early (RunStopped). Nothing changes for runs without a sink.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

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

/// The process's stop request: 0, or the signal that asked to stop (SIGINT, SIGTERM). `netdp run` sets it
/// from its signal handler and then starts no new unit (docs/reliability.md §4); the Python module sets it on
/// KeyboardInterrupt. request_stop is async-signal-safe and returns the previous value.
int request_stop(int signal) noexcept;
int stop_signal() noexcept;
void clear_stop() noexcept;

/// A watcher of the runs started on one thread (ProgressSinkScope): ProgressLine passes it every update, from
/// whichever thread of the run makes it, so report() must be thread-safe and quick.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  /// `stage` names the loop ("walk-sim", "gossip-sim privacy"); `fraction` of it done, in [0, 1].
  virtual void report(const std::string& stage, double fraction) = 0;
};

/// Installs `sink` for the runs started on this thread while the scope lives (the previous one after). While
/// any scope lives in the process, runs are stoppable: a stop request makes stop_requested() true, so the
/// long loops skip their remaining work and the run ends with RunStopped. Without one (the CLI, `netdp run`),
/// a stop request never interrupts a run.
class ProgressSinkScope {
 public:
  explicit ProgressSinkScope(ProgressSink& sink);
  ~ProgressSinkScope();
  ProgressSinkScope(const ProgressSinkScope&) = delete;
  ProgressSinkScope& operator=(const ProgressSinkScope&) = delete;

 private:
  ProgressSink* previous_;
};

/// This thread's sink, or nullptr.
ProgressSink* current_progress_sink() noexcept;

/// A stop was requested and runs are stoppable: long loops check it (on any thread, cheap) to skip work.
bool stop_requested() noexcept;

/// A run ended early on a stop request. Its outputs are incomplete: no summary.json, no committed .npy.
class RunStopped : public std::runtime_error {
 public:
  explicit RunStopped(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Throws RunStopped when stop_requested(). Only where an exception may leave: the run's own thread, outside
/// OpenMP parallel regions (or inside a loop body that catches and rethrows after the region).
void throw_if_stopped();

/// What a backend reports to (ground::WorkCounter, netdp/ground/work_counter.hpp): passes the share done to
/// `progress` and answers whether to go on, false once a stop request came. The backend never calls into the
/// library; the driver checks throw_if_stopped() after it returns.
inline std::function<bool(double)> keep_going(std::function<void(double)> progress) {
  return [progress = std::move(progress)](double share) {
    if (progress) progress(share);
    return !stop_requested();
  };
}

/// Lines on stderr: none for the first 3 seconds, then at most one every 5 seconds. The environment variable
/// NETDP_PROGRESS_SECONDS=S (a number >= 0) sets both to S: 0 prints every update (tests, logs).
class ProgressLine {
 public:
  /// `what` names the unit of progress in the lines, e.g. "of the sources".
  ProgressLine(std::string label, std::string what, bool enabled);
  /// Passes `fraction` to the constructing thread's sink, if any, then prints a line when due. Disabled
  /// (sink only), it may be called from several threads at once.
  void update(double fraction);
  void finish() const;

 private:
  std::string label_, what_;
  ProgressSink* sink_;  // the constructing thread's (updates may come from the run's worker threads)
  bool enabled_, printed_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

/// Counts the finished runs of a loop that may run on several threads (OpenMP) and passes the share done to
/// `progress` (may be empty): one call at a time, with shares that only increase, whichever thread finished.
class RunCounter {
 public:
  RunCounter(std::int64_t total, std::function<void(double)> progress)
      : total_(total), progress_(std::move(progress)) {}
  void finished_one() {
    if (!progress_) return;
    const std::lock_guard lock(mutex_);
    ++done_;
    progress_(total_ > 0 ? double(done_) / double(total_) : 1.0);
  }

 private:
  std::int64_t total_, done_ = 0;
  std::function<void(double)> progress_;
  std::mutex mutex_;
};

/// Runs body(r) for the runs r = 0 .. runs - 1 spread over the threads (OpenMP, one run at a time), passing
/// the share finished to `progress`; after a stop request the runs not started are skipped, and RunStopped
/// is thrown once the threads are done (never from inside the parallel region).
template <class Body>
void for_each_run(std::int64_t runs, const std::function<void(double)>& progress, Body&& body) {
  RunCounter finished(runs, progress);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t r = 0; r < runs; ++r) {
    if (stop_requested()) continue;
    body(r);
    finished.finished_one();
  }
  throw_if_stopped();
}

/// A loss-row sink that reports the share of source rows received, and stops the run between row tiles.
class ProgressReporter : public LossRowSink {
 public:
  ProgressReporter(std::string label, std::int64_t total_rows, bool enabled)
      : line_(std::move(label), "of the sources", enabled), total_(total_rows) {}
  void consume(node_t, node_t count, std::span<const double>) override {
    done_ += count;
    line_.update(total_ > 0 ? double(done_) / double(total_) : 1.0);
    throw_if_stopped();  // tiles are handed over on the run's thread, outside parallel regions
  }
  void finish() const { line_.finish(); }

 private:
  ProgressLine line_;
  std::int64_t total_, done_ = 0;
};

}  // namespace netdp
