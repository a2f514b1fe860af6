#pragma once
// What the fuzz targets of the file readers share (docs/reliability.md §5): the first byte of an input as the
// flags that pick a target's options, and the input written to a file that the reader under test opens.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace netdp::fuzzing {

/// Takes the first byte off the input as `flags`; false for an empty input (nothing to read).
inline bool take_flags(const std::uint8_t*& data, std::size_t& size, std::uint8_t& flags) {
  if (size == 0) return false;
  flags = data[0];
  ++data;
  --size;
  return true;
}

/// Writes the input to netdp-fuzz-PID`suffix` (the readers go by the extension) and returns its path: in
/// /dev/shm where there is one, since every run writes its input.
inline std::string write_input(const std::string& suffix, const std::uint8_t* data, std::size_t size) {
  static const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  const std::string path = dir + "/netdp-fuzz-" + std::to_string(::getpid()) + suffix;
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace netdp::fuzzing
