// libFuzzer target (docs/reliability.md §5): the .npy reader (read_npy_array, src/mf/mf_npy.cpp: the matrices
// that mf-loss and mf-factorize take as input) on arbitrary bytes. It may refuse a file (InvalidInput), never
// crash, and never allocate from a declared shape larger than the file holds. Built by scripts/fuzz.sh.
#include <cstdint>
#include <string>

#include "fuzz_input.hpp"
#include "netdp/core/error.hpp"
#include "netdp/mf/mf_correlation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = netdp::fuzzing::write_input(".npy", data, size);
  try {
    (void)netdp::mf::read_npy_array(path, "matrix");
  } catch (const netdp::InvalidInput&) {
  }
  return 0;
}
