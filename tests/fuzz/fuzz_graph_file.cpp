// libFuzzer target (docs/reliability.md §5): the edge-list, Matrix Market and weight-matrix readers
// (src/core/graph_io.cpp) on arbitrary bytes. A reader may refuse its input (InvalidInput), never crash,
// leak, overflow or allocate beyond its memory check. Built by scripts/fuzz.sh.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_io.hpp"

namespace {

std::string write_input(const char* suffix, const std::uint8_t* data, std::size_t size) {
  // /dev/shm where there is one: the target writes its input twice per run.
  static const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string path = dir + "/netdp-fuzz-" + std::to_string(::getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

template <class Read>
void try_read(Read read) {
  try {
    read();
  } catch (const netdp::InvalidInput&) {  // a refusal is the expected answer to most inputs
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks the options, the rest is the file.
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  ++data;
  --size;
  netdp::EdgeListOptions options;
  options.one_based = flags & 1;
  options.largest_component = flags & 2;
  const std::string text = write_input(".txt", data, size), mtx = write_input(".mtx", data, size);
  try_read([&] { netdp::load_graph_file(text, options); });
  try_read([&] { netdp::load_graph_file(mtx, {false, (flags & 2) != 0}); });
  try_read([&] { netdp::load_weight_matrix(flags & 4 ? mtx : text); });
  std::remove(text.c_str());
  std::remove(mtx.c_str());
  return 0;
}
