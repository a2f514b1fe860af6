#pragma once
// The ground (docs/design.md "The ground"): where a backend hands the rows of a loss matrix (row = source u,
// column = observer v). The driver owns the sink (the library's writers, a collector); the backend only calls
// consume, in increasing source order, a tile at a time, so matrices larger than memory are never held whole.
#include <span>

#include "netdp/ground/types.hpp"

namespace netdp {

class LossRowSink {
 public:
  virtual ~LossRowSink() = default;
  /// rows holds count x n values, row i being the losses of source first_source + i.
  virtual void consume(node_t first_source, node_t count, std::span<const double> rows) = 0;
};

}  // namespace netdp
