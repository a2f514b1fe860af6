#pragma once
// Collusion bound for additive pairwise losses (docs/math.md §5.5, thesis App D.9): a coalition F of observers
// learns at most sum_{v in F} eps_{u->v}, so the worst coalition of K observers is the sum of the K largest
// entries of row u (v != u).
#include <vector>

#include "netdp/core/loss_rows.hpp"

namespace netdp {

class WorstCoalition : public LossRowSink {
 public:
  WorstCoalition(node_t n, int coalition_size);
  void consume(node_t first_source, node_t count, std::span<const double> rows) override;
  /// (source, worst coalition loss) for every row received, in order.
  const std::vector<std::pair<node_t, double>>& worst() const { return worst_; }

 private:
  node_t n_;
  int k_;
  std::vector<std::pair<node_t, double>> worst_;
};

}  // namespace netdp
