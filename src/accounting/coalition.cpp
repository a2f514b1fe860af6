#include "netdp/accounting/coalition.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "netdp/core/error.hpp"

namespace netdp {

WorstCoalition::WorstCoalition(node_t n, int coalition_size) : n_(n), k_(coalition_size) {
  if (k_ < 1 || k_ > n - 1)
    throw InvalidParameter("colluders", "colluders must be between 1 and n - 1 = " + std::to_string(n - 1) +
                                            ", got " + std::to_string(coalition_size));
}

void WorstCoalition::consume(node_t first_source, node_t count, std::span<const double> rows) {
  std::vector<double> others(static_cast<std::size_t>(n_) - 1);
  for (node_t i = 0; i < count; ++i) {
    const node_t u = first_source + i;
    const double* row = rows.data() + static_cast<std::size_t>(i) * n_;
    std::copy(row, row + u, others.begin());
    std::copy(row + u + 1, row + n_, others.begin() + u);
    std::nth_element(others.begin(), others.begin() + (k_ - 1), others.end(), std::greater<>());
    std::sort(others.begin(), others.begin() + k_, std::greater<>());  // fixed summation order
    double sum = 0;
    for (int j = 0; j < k_; ++j) sum += others[j];
    worst_.emplace_back(u, sum);
  }
}

}  // namespace netdp
