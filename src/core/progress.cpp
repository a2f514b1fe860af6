#include "core/progress.hpp"

#include <algorithm>
#include <cstdio>

namespace netdp {

namespace {
constexpr double kQuietSeconds = 3.0, kIntervalSeconds = 5.0;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

ProgressLine::ProgressLine(std::string label, std::string what, bool enabled)
    : label_(std::move(label)), what_(std::move(what)), enabled_(enabled) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void ProgressLine::update(double fraction) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = seconds_between(start_, now);
  if (elapsed < kQuietSeconds || (printed_ && seconds_between(last_, now) < kIntervalSeconds)) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0.0;
  std::fprintf(stderr, "%s: %.0f%% %s, %.1f s elapsed, ETA %.1f s\n", label_.c_str(), 100 * fraction,
               what_.c_str(), elapsed, eta);
  printed_ = true;
  last_ = now;
}

void ProgressLine::finish() const {
  if (enabled_ && printed_)
    std::fprintf(stderr, "%s: done in %.1f s\n", label_.c_str(),
                 seconds_between(start_, std::chrono::steady_clock::now()));
}

}  // namespace netdp
