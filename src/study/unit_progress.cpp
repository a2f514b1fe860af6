#include "study/unit_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace netdp::study {

namespace {

constexpr double kTerminalInterval = 0.2, kLogInterval = 10.0;
// The other ranks' units are counted by looking for their unit.json: at most this often (a stat per unit).
constexpr double kScanInterval = 2.0;

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

UnitProgress::UnitProgress(std::size_t total, std::size_t already, bool enabled, Elsewhere elsewhere)
    : total_(total),
      already_(already),
      enabled_(enabled),
      terminal_(isatty(2) == 1),
      elsewhere_(enabled ? std::move(elsewhere) : Elsewhere{}) {
  start_ = last_ = scanned_ = std::chrono::steady_clock::now();
  others_start_ = others_ = elsewhere_ ? elsewhere_() : 0;
  enabled_ = enabled_ && total_ > already_ + others_start_;
  if (enabled_ && terminal_) draw(false);
}

std::size_t UnitProgress::others(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (elsewhere_ && (force || std::chrono::duration<double>(now - scanned_).count() >= kScanInterval)) {
    others_ = elsewhere_();
    scanned_ = now;
  }
  return others_;
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

void UnitProgress::tick() {
  std::lock_guard lock(mutex_);
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() >= (terminal_ ? kTerminalInterval : kLogInterval)) {
    draw(false);
    last_ = now;
  }
}

void UnitProgress::finish(std::size_t failed_elsewhere) {
  std::lock_guard lock(mutex_);
  if (!enabled_) return;
  failed_ += failed_elsewhere;
  others(true);
  draw(true);
}

void UnitProgress::draw(bool final_line) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Failed units are not finished: they are counted apart and left to the next run (issue: "6/6 units" with
  // 5 failed read as success).
  const std::size_t elsewhere = others(false) - others_start_;  // committed by other ranks during this run
  const std::size_t ended = std::min(total_, already_ + others_start_ + done_ + elsewhere + failed_),
                    finished = ended - std::min(ended, failed_);
  const double rate = elapsed > 0 ? double(done_ + elsewhere + failed_) / elapsed : 0.0;
  const double eta = rate > 0 ? double(total_ - ended) / rate : NAN;  // ended <= total_
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
