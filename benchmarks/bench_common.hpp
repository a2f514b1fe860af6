#pragma once
// Shared pieces of the benchmark programs: a sink that only checksums rows (no disk I/O), size lists,
// medians.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "netdp/core/loss_rows.hpp"

namespace netdp::bench {

class ChecksumSink : public LossRowSink {
 public:
  void consume(node_t, node_t, std::span<const double> rows) override {
    for (double x : rows) sum += x;
  }
  double sum = 0;
};

inline std::vector<int> parse_sizes(const char* text) {
  std::vector<int> sizes;
  for (const char* p = text; p && *p; p = std::strchr(p, ',') ? std::strchr(p, ',') + 1 : nullptr)
    sizes.push_back(std::atoi(p));
  return sizes;
}

struct Timing {
  double median = 0, min = 0, checksum = 0;
};

/// Runs `run(sink)` `repeats` times and returns the median and min wall time and the last checksum.
inline Timing time_runs(int repeats, const std::function<void(LossRowSink&)>& run) {
  std::vector<double> seconds;
  double checksum = 0;
  for (int r = 0; r < repeats; ++r) {
    ChecksumSink sink;
    auto start = std::chrono::steady_clock::now();
    run(sink);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    checksum = sink.sum;
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), checksum};
}

}  // namespace netdp::bench
