#include "core/progress.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace netdp {

namespace {
constexpr double kQuietSeconds = 3.0, kIntervalSeconds = 5.0;

/// NETDP_PROGRESS_SECONDS (ProgressLine): the quiet time and the interval, or a negative value when unset or
/// not a number >= 0 (the defaults).
double progress_seconds_override() {
  static const double seconds = [] {
    const char* text = std::getenv("NETDP_PROGRESS_SECONDS");
    if (!text || !*text) return -1.0;
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    return *end == '\0' && value >= 0 ? value : -1.0;
  }();
  return seconds;
}

std::atomic<int> stop_request{0};
std::atomic<int> live_sink_scopes{0};
thread_local ProgressSink* thread_sink = nullptr;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

static_assert(std::atomic<int>::is_always_lock_free, "request_stop runs in signal handlers");

int request_stop(int signal) noexcept {
  return stop_request.exchange(signal);
}

int stop_signal() noexcept {
  return stop_request.load();
}

void clear_stop() noexcept {
  stop_request.store(0);
}

ProgressSinkScope::ProgressSinkScope(ProgressSink& sink) : previous_(thread_sink) {
  thread_sink = &sink;
  ++live_sink_scopes;
}

ProgressSinkScope::~ProgressSinkScope() {
  --live_sink_scopes;
  thread_sink = previous_;
}

ProgressSink* current_progress_sink() noexcept {
  return thread_sink;
}

bool stop_requested() noexcept {
  return stop_request.load(std::memory_order_relaxed) != 0 &&
         live_sink_scopes.load(std::memory_order_relaxed) > 0;
}

RunStopped::RunStopped(int signal)
    : std::runtime_error("stopped (signal " + std::to_string(signal) + "): the run's outputs are incomplete"),
      signal_(signal) {}

void throw_if_stopped() {
  if (stop_requested()) throw RunStopped(stop_signal());
}

ProgressLine::ProgressLine(std::string label, std::string what, bool enabled)
    : label_(std::move(label)), what_(std::move(what)), sink_(thread_sink), enabled_(enabled) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void ProgressLine::update(double fraction) {
  if (sink_) sink_->report(label_, std::clamp(fraction, 0.0, 1.0));
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = seconds_between(start_, now), fixed = progress_seconds_override();
  const double quiet = fixed >= 0 ? fixed : kQuietSeconds, interval = fixed >= 0 ? fixed : kIntervalSeconds;
  if (elapsed < quiet || (printed_ && seconds_between(last_, now) < interval)) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0.0;
  std::fprintf(stderr, "%s: %.0f%% %s, %.1f s elapsed, ETA %.1f s\n", label_.c_str(), 100 * fraction,
               what_.c_str(), elapsed, eta);
  printed_ = true;
  last_ = now;
}

void ProgressLine::finish() const {
  if (sink_) sink_->report(label_, 1.0);
  if (enabled_ && printed_)
    std::fprintf(stderr, "%s: done in %.1f s\n", label_.c_str(),
                 seconds_between(start_, std::chrono::steady_clock::now()));
}

}  // namespace netdp
