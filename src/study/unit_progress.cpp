#include "study/unit_progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace netdp::study {

namespace {

constexpr double kTerminalInterval = 0.2, kLogInterval = 10.0;

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  const long long s = std::llround(seconds);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  return text;
}

}  // namespace

UnitProgress::UnitProgress(std::size_t total, std::size_t already, bool enabled)
    : total_(total), already_(already), enabled_(enabled && total > already), terminal_(isatty(2) == 1) {
  start_ = last_ = std::chrono::steady_clock::now();
  if (enabled_ && terminal_) draw(false);
}

void UnitProgress::unit_done(bool failed) {
  std::lock_guard lock(mutex_);
  ++(failed ? failed_ : done_);
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since >= (terminal_ ? kTerminalInterval : kLogInterval)) {
    draw(false);
    last_ = now;
  }
}

void UnitProgress::finish() {
  std::lock_guard lock(mutex_);
  if (enabled_) draw(true);
}

void UnitProgress::draw(bool final_line) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Failed units are not finished: they are counted apart and left to the next run (issue: "6/6 units" with
  // 5 failed read as success).
  const std::size_t finished = already_ + done_, ended = finished + failed_;
  const double rate = elapsed > 0 ? double(done_ + failed_) / elapsed : 0.0;
  const double eta = rate > 0 ? double(total_ - ended) / rate : NAN;
  char failed[48] = "";
  if (failed_ > 0) std::snprintf(failed, sizeof failed, " (%zu failed)", failed_);
  char tail[160];
  std::snprintf(tail, sizeof tail, "%zu/%zu units%s, %.3g units/s, %s %s", finished, total_, failed, rate,
                final_line ? "elapsed" : "ETA", clock_text(final_line ? elapsed : eta).c_str());
  if (terminal_) {
    constexpr int width = 30;
    const int filled = total_ ? static_cast<int>(width * double(ended) / double(total_)) : width;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\rnetdp run [%s] %s\033[K%s", bar.c_str(), tail, final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "netdp run: %s\n", tail);
  }
  std::fflush(stderr);
}

}  // namespace netdp::study
