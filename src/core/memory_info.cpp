#include "core/memory_info.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "netdp/core/error.hpp"

namespace netdp {

namespace {

// MemAvailable from /proc/meminfo, or the free pages where it is missing.
std::int64_t system_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::int64_t value = 0;
  while (meminfo >> key >> value >> unit)
    if (key == "MemAvailable:") return value * 1024;
  return std::int64_t(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGESIZE);
}

}  // namespace

std::int64_t available_memory_bytes() {
  // A process limit (ulimit -d / -v: batch schedulers, the tests of docs/reliability.md) caps it too, and so
  // does NETDP_MEMORY_MB (MiB; the fuzz targets, where sanitizers forbid a process limit).
  std::int64_t bytes = system_available_bytes();
  if (const char* cap = std::getenv("NETDP_MEMORY_MB"); cap && std::atoll(cap) > 0)
    bytes = std::min(bytes, std::int64_t(std::atoll(cap)) << 20);
  for (int resource : {RLIMIT_DATA, RLIMIT_AS}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
      bytes = std::min(bytes, std::int64_t(limit.rlim_cur));
  }
  return bytes;
}

void require_memory(double bytes, const std::string& what) {
  const double budget = double(available_memory_bytes()) * 4.0 / 5.0;
  if (bytes <= budget) return;
  char text[128];
  std::snprintf(text, sizeof text, " needs about %.1f GiB, more than the %.1f GiB available",
                bytes / (1 << 30), budget / (1 << 30));
  throw InsufficientMemory(what + text);
}

double graph_build_bytes(double n, double m) {
  return 24.0 * n + 16.0 * m;
}

}  // namespace netdp
