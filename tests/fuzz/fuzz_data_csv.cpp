// libFuzzer target (docs/reliability.md §5): the data CSV reader of the learning models (read_csv_data,
// src/simulation/convex_models_data.cpp: --data of muffliato-gd, admm, walk-sgd, muffliato-sgd, mf-sgd,
// attack-dgd) with its checks (shape, finiteness, labels), then the learning split that walk-sgd,
// muffliato-sgd, mf-sgd and admm apply to the rows. A file may be refused (InvalidParameter / InvalidInput),
// never crash; rows that the reader accepts must give a split that passes validate, with finite features.
// Built by scripts/fuzz.sh.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_input.hpp"
#include "netdp/core/error.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace {

// An accepted input that breaks what the models assume later is a finding: abort, so that libFuzzer keeps it.
void require_usable(const netdp::LocalData& d, netdp::Objective o) {
  netdp::validate(d, o);
  for (double x : d.features)
    if (!std::isfinite(x)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks the objective, the node count, the dimension and the split; the rest is the file.
  std::uint8_t flags = 0;
  if (!netdp::fuzzing::take_flags(data, size, flags)) return 0;
  const std::string path = netdp::fuzzing::write_input(".csv", data, size);
  const auto o = static_cast<netdp::Objective>(flags % 3);
  const netdp::node_t n = 1 + ((flags >> 2) & 3);
  const int dim = (flags & 16) ? 2 : 0;  // 0: p from the first row
  netdp::LocalData rows;
  try {
    // With a split, the rows are read onto one node as load_learning_split does.
    rows = netdp::read_csv_data(path, o, (flags & 32) ? 1 : n, dim);
  } catch (const netdp::InvalidInput&) {  // InvalidParameter too: a refusal
    return 0;
  }
  if (!(flags & 32)) return 0;
  netdp::LearningSplit split;
  try {
    split = netdp::learning_split(rows, o, n, (flags & 64) ? 0.5 : 0.0, (flags & 128) != 0, flags);
  } catch (const netdp::InvalidParameter&) {  // too few training rows for n users
    return 0;
  }
  try {
    require_usable(split.train, o);
    if (!split.test.features.empty()) require_usable(split.test, o);
  } catch (const netdp::InvalidInput&) {
    std::abort();
  }
  return 0;
}
