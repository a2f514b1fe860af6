#pragma once
// Single-source bodies of the propagation that the accountants' CUDA backends share
// (kernels/cuda/propagator.cu, cuda/base/launch.cuh; docs/cuda_backend.md "Single-source bodies and the
// device-bodies tests"), and the 2-D form of a body that their element kernels use.
//
// A 2-D body works on element (r, j) of a column-major rows x cols block: `NETDP_HD void
// operator()(std::int64_t r, std::int64_t j) const`. On the GPU cuda::device_for_each_2d (launch.cuh) runs it
// on a grid_2d grid, x striding over the rows of a column and y over the columns, so no element needs a
// 64-bit `%` or `/` to find its row and column; on the host host_for_each_2d below runs the very same functor
// (the device-bodies tests, tests/backend/test_{gossip,walk}_loss_bodies.cpp).
#include <cstdint>

#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels {

/// body(r, j) for every element of a rows x cols block on the host threads (any order, as on the device).
template <class Body>
void host_for_each_2d(std::int64_t rows, std::int64_t cols, const Body& body) {
#if defined(_OPENMP)
#pragma omp parallel for collapse(2) schedule(static)
#endif
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t r = 0; r < rows; ++r) body(r, j);
}

namespace propagation {

/// X[:, j] = e_{first + j} for a column-major n x cols block (2-D body over n x cols): the t = 0 columns
/// W^0 e_u of every propagation, the CPU's panel start (cpu/power_panels.hpp walk_powers).
struct IdentityColumnsBody {
  double* x;
  std::int64_t n, first;

  NETDP_HD void operator()(std::int64_t r, std::int64_t j) const {
    x[r + j * n] = r == first + j ? 1.0 : 0.0;
  }
};

/// Row `row` of a CSR matrix scattered into the column-major dense n x n copy (zeroed beforehand), one row
/// per index: dense[row + column n] += value, the entries of a row in CSR order. Offsets are 32-bit on the
/// device (the Propagator's cuSPARSE copy) and 64-bit on the host, hence the template.
template <class Offset, class Column>
struct CsrToDenseBody {
  const Offset* offsets;
  const Column* columns;
  const double* values;
  std::int64_t n;
  double* dense;

  NETDP_HD void operator()(std::int64_t row) const {
    for (Offset e = offsets[row]; e < offsets[row + 1]; ++e)
      dense[row + static_cast<std::int64_t>(columns[e]) * n] += values[e];
  }
};

/// Element (r, j) of Y = W X for column-major n x cols blocks X, Y (2-D body): sum over W's row r in CSR
/// order from 0 of values[k] x[columns[k] + j n], each product and sum rounded once, which is the CPU twins'
/// product (common/csr_product.hpp, csr_row_product, any panel width) on column j. The walk accountant's
/// Propagator::apply on a GPU and on the emulated device (the series and the Chebyshev solver; in place of
/// cuSPARSE's SpMM, whose summation order is its own: docs/cuda_backend.md "Walk-loss twins").
template <class Offset, class Column>
struct CsrColumnsProductBody {
  const Offset* offsets;
  const Column* columns;
  const double* values;
  const double* x;
  std::int64_t n;
  double* y;

  NETDP_HD void operator()(std::int64_t r, std::int64_t j) const {
    const double* xj = x + j * n;
    double sum = 0.0;
    for (Offset k = offsets[r]; k < offsets[r + 1]; ++k)
      sum = rn_add(sum, rn_mul(values[k], xj[static_cast<std::int64_t>(columns[k])]));
    y[r + j * n] = sum;
  }
};

}  // namespace propagation
}  // namespace netdp::kernels
