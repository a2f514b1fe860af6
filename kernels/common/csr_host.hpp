#pragma once
// Host-only helpers on a CSR view (the ground's CsrView), shared by the CPU backend and the library's
// CsrMatrix functions (src/core/sparse_matrix.cpp) so that both multiply and densify W the same way.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/csr_product.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {

/// Y = W X for row-major n x width blocks, every row by csr_row_product (summed in CSR order, so the bits do
/// not depend on `parallel`); rows over the OpenMP threads when `parallel`.
inline void csr_multiply(CsrView w, const double* x, double* y, std::int64_t width, bool parallel) {
#pragma omp parallel for schedule(static) if (parallel)
  for (node_t i = 0; i < w.n; ++i)
    csr_row_product(w.offsets.data(), w.columns.data(), w.values.data(), i, x, width, y);
}

/// Row-major dense copy (n x n).
inline std::vector<double> to_dense(CsrView w) {
  std::vector<double> dense(static_cast<std::size_t>(w.n) * w.n, 0.0);
  for (node_t i = 0; i < w.n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
      dense[static_cast<std::size_t>(i) * w.n + w.columns[k]] = w.values[k];
  return dense;
}

}  // namespace netdp::kernels
