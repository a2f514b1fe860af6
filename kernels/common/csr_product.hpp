#pragma once
// The one CSR sparse x dense product of the CPU engines (docs/design.md principle 1): row `row` of Y = W X
// for row-major blocks X and Y of `width` columns, each entry summed over W's row in CSR order, starting from
// 0 (no contraction: -ffp-contract=off). Every CPU engine that multiplies by W (gossip-loss and walk-loss
// panels, gossip-sim, muffliato-gd, the sequence accountant, the Lanczos of the spectra) calls it, so they
// all round alike; the body is single-source, so a device row kernel can sum in the same order.
#include <cstdint>

#include "common/hd.hpp"

namespace netdp::kernels {

/// L > 0: the width is the compile-time L (the accumulators stay in registers); L = 0: `width` columns,
/// accumulated in place in Y's row.
template <int L = 0, class Offset, class Column>
NETDP_HD inline void csr_row_product(const Offset* offsets, const Column* columns, const double* values,
                                     std::int64_t row, const double* x, std::int64_t width, double* y) {
  (void)width;  // unused when L > 0
  if constexpr (L > 0) {
    double acc[L] = {};
    for (Offset k = offsets[row]; k < offsets[row + 1]; ++k) {
      const double a = values[k];
      const double* xr = x + static_cast<std::int64_t>(columns[k]) * L;
      for (int j = 0; j < L; ++j) acc[j] += a * xr[j];
    }
    double* yr = y + row * L;
    for (int j = 0; j < L; ++j) yr[j] = acc[j];
  } else {
    double* yr = y + row * width;
    for (std::int64_t j = 0; j < width; ++j) yr[j] = 0.0;
    for (Offset k = offsets[row]; k < offsets[row + 1]; ++k) {
      const double a = values[k];
      const double* xr = x + static_cast<std::int64_t>(columns[k]) * width;
      for (std::int64_t j = 0; j < width; ++j) yr[j] += a * xr[j];
    }
  }
}

}  // namespace netdp::kernels
