// libFuzzer target (docs/reliability.md §5): the graph-spec parser (src/core/graph_spec.cpp) on arbitrary
// text. It may refuse a spec (InvalidInput), never crash. Only parsing: building a valid spec's graph is the
// generators' job, whose sizes are the user's to choose. Built by scripts/fuzz.sh.
#include <cstdint>
#include <string_view>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    netdp::parse_graph_spec(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const netdp::InvalidInput&) {
  }
  return 0;
}
