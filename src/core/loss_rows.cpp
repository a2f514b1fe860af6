#include "netdp/core/loss_rows.hpp"

#include <stdexcept>

namespace netdp {

void LossMatrixCollector::consume(node_t first_source, node_t count, std::span<const double> rows) {
  (void)first_source;
  if (rows.size() != static_cast<std::size_t>(count) * n_)
    throw std::logic_error("loss tile has the wrong size");
  values_.insert(values_.end(), rows.begin(), rows.end());
}

}  // namespace netdp
