#pragma once
// What the attack benchmarks share: one CSV line per case with the wall median and min over K runs, the CPU
// time of the last run (getrusage: all threads) and a checksum of the result.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace netdp::bench {

inline double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// Runs `run()` (returning the checksum) `repeats` times and prints `name,median,min,cpu_last,checksum`.
template <class Run>
void time_case(const char* name, int repeats, Run&& run) {
  std::vector<double> wall;
  double cpu = 0;
  long checksum = 0;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    checksum = run();
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cpu = cpu_seconds() - c0;
  }
  std::sort(wall.begin(), wall.end());
  std::printf("%s,%.4f,%.4f,%.4f,%ld\n", name, wall[wall.size() / 2], wall.front(), cpu, checksum);
}

}  // namespace netdp::bench
