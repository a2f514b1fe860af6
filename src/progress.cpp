#include "progress.hpp"

#include <cstdio>

namespace netdp {

namespace {
constexpr double kQuietSeconds = 3.0, kIntervalSeconds = 5.0;
}

ProgressReporter::ProgressReporter(std::string label, std::int64_t total_rows, bool enabled)
    : label_(std::move(label)), total_(total_rows), enabled_(enabled) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void ProgressReporter::consume(node_t, node_t count, std::span<const double>) {
  done_ += count;
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double since = std::chrono::duration<double>(now - last_).count();
  if (elapsed < kQuietSeconds || (printed_ && since < kIntervalSeconds)) return;
  double eta = done_ > 0 ? elapsed * double(total_ - done_) / double(done_) : 0.0;
  std::fprintf(stderr, "%s: %lld/%lld sources (%.0f%%), %.1f s elapsed, ETA %.1f s\n", label_.c_str(),
               static_cast<long long>(done_), static_cast<long long>(total_),
               100.0 * double(done_) / double(total_), elapsed, eta);
  printed_ = true;
  last_ = now;
}

void ProgressReporter::finish() {
  if (!enabled_ || !printed_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "%s: done, %lld sources in %.1f s\n", label_.c_str(), static_cast<long long>(total_),
               elapsed);
}

}  // namespace netdp
