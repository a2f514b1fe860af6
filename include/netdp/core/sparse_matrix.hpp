#pragma once
// Square sparse matrices in CSR form with float64 values: gossip matrices and transition matrices W.
#include <cstdint>
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp {

struct CsrMatrix {
  node_t n = 0;
  std::vector<offset_t> offsets{0};  // size n + 1
  std::vector<node_t> columns;       // sorted within each row
  std::vector<double> values;

  std::int64_t nnz() const { return offsets.back(); }
  /// Fraction of the n x n entries that are stored.
  double density() const { return n == 0 ? 0.0 : double(nnz()) / (double(n) * double(n)); }
  /// Entry (i, j), 0 when not stored (binary search in row i).
  double at(node_t i, node_t j) const;
};

/// Y = W X for row-major n x width blocks, by kernels::csr_row_product (common/csr_product.hpp: every row
/// summed in CSR order, so the bits do not depend on `parallel`); rows over the OpenMP threads when
/// `parallel`.
void csr_multiply(const CsrMatrix& w, const double* x, double* y, std::int64_t width, bool parallel);

/// Row-major dense copy (n x n).
std::vector<double> to_dense(const CsrMatrix& w);

/// Builds a CSR matrix from (row, column, value) triplets; repeated entries are summed, rows sorted.
struct Triplet {
  node_t row, column;
  double value;
};
CsrMatrix csr_from_triplets(node_t n, std::vector<Triplet> triplets);

}  // namespace netdp
