// libFuzzer target (docs/reliability.md §5): the edge-list, Matrix Market and weight-matrix readers
// (src/core/graph_io.cpp) on arbitrary bytes. A reader may refuse its input (InvalidInput), never crash,
// leak, overflow or allocate beyond its memory check. Built by scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_input.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_io.hpp"

namespace {

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
  std::uint8_t flags = 0;
  if (!netdp::fuzzing::take_flags(data, size, flags)) return 0;
  netdp::EdgeListOptions options;
  options.one_based = flags & 1;
  options.largest_component = flags & 2;
  const std::string text = netdp::fuzzing::write_input(".txt", data, size),
                    mtx = netdp::fuzzing::write_input(".mtx", data, size);
  try_read([&] { netdp::load_graph_file(text, options); });
  try_read([&] { netdp::load_graph_file(mtx, {false, (flags & 2) != 0}); });
  try_read([&] { netdp::load_weight_matrix(flags & 4 ? mtx : text); });
  std::remove(text.c_str());
  std::remove(mtx.c_str());
  return 0;
}
