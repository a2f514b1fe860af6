#pragma once
// Single-source body of the dense copy of W that the accountants' CUDA backends build on the device
// (cuda/base/propagation_launch.cuh csr_to_dense_async: the node-major engines' DGEMM, cuda/propagator.cu,
// and the walk accountant's eigensolver input, cuda/walk_loss_cuda.cu; docs/cuda_backend.md "Single-source
// bodies and the device-bodies tests"). The sparse products are the node-major row bodies of
// common/gossip_spmm_bodies.hpp.
#include <cstdint>

#include "common/hd.hpp"

namespace netdp::kernels::propagation {

/// Row `row` of a CSR matrix scattered into the column-major dense n x n copy (zeroed beforehand), one row
/// per index: dense[row + column n] += value, the entries of a row in CSR order. Offsets are 32-bit on the
/// device (the 32-bit copy the dense builds upload) and 64-bit on the host, hence the template.
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

}  // namespace netdp::kernels::propagation
