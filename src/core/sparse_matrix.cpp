#include "netdp/core/sparse_matrix.hpp"

#include <algorithm>
#include <string>

#include "common/csr_host.hpp"
#include "netdp/core/error.hpp"

namespace netdp {

double CsrMatrix::at(node_t i, node_t j) const {
  auto begin = columns.begin() + offsets[i], end = columns.begin() + offsets[i + 1];
  auto it = std::lower_bound(begin, end, j);
  return (it != end && *it == j) ? values[it - columns.begin()] : 0.0;
}

void csr_multiply(const CsrMatrix& w, const double* x, double* y, std::int64_t width, bool parallel) {
  kernels::csr_multiply(w, x, y, width, parallel);
}

std::vector<double> to_dense(const CsrMatrix& w) {
  return kernels::to_dense(w);
}

CsrMatrix csr_from_triplets(node_t n, std::vector<Triplet> triplets) {
  for (const auto& t : triplets)
    if (t.row < 0 || t.row >= n || t.column < 0 || t.column >= n)
      throw InvalidInput("matrix entry (" + std::to_string(t.row) + ", " + std::to_string(t.column) +
                         ") outside a " + std::to_string(n) + " x " + std::to_string(n) + " matrix");
  std::sort(triplets.begin(), triplets.end(), [](const Triplet& a, const Triplet& b) {
    return a.row != b.row ? a.row < b.row : a.column < b.column;
  });
  CsrMatrix m;
  m.n = n;
  m.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t k = 0; k < triplets.size(); ++k) {
    if (k > 0 && triplets[k].row == triplets[k - 1].row && triplets[k].column == triplets[k - 1].column) {
      m.values.back() += triplets[k].value;
      continue;
    }
    m.columns.push_back(triplets[k].column);
    m.values.push_back(triplets[k].value);
    ++m.offsets[triplets[k].row + 1];
  }
  for (node_t i = 0; i < n; ++i) m.offsets[i + 1] += m.offsets[i];
  return m;
}

}  // namespace netdp
