// libFuzzer target (docs/reliability.md §5): the .npy reader (read_npy_array, src/mf/mf_npy.cpp: the matrices
// that mf-loss and mf-factorize take as input) on arbitrary bytes. It may refuse a file (InvalidInput), never
// crash, and never allocate from a declared shape larger than the file holds. Built by scripts/fuzz.sh.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/mf/mf_correlation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                                  std::string("/netdp-fuzz-") + std::to_string(getpid()) + ".npy";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    (void)netdp::mf::read_npy_array(path, "matrix");
  } catch (const netdp::InvalidInput&) {
  }
  return 0;
}
