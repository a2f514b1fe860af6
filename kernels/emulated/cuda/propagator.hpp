#pragma once
// The emulated device's Propagator (the CUDA one, kernels/cuda/propagator.hpp, runs the CSR-order body
// propagation::CsrColumnsProductBody, or cuBLAS DGEMM on the dense path: a vendor library, GPU-only). Same
// interface, Y = W X on column-major n x cols blocks by the same body, so a column is summed in CSR order as
// on the CPU; the dense path (`dense`) uses the same product, and the node-major one the CPU's CSR product.
#include <cuda_runtime.h>

#include <cstdint>

#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

class Propagator {
 public:
  Propagator(CsrView w, bool dense, cudaStream_t stream);

  std::int64_t device_bytes() const;
  void reserve(const double* x, double* y, std::int64_t cols);
  void apply(const double* x, double* y, std::int64_t cols);
  /// Node-major (row-major n x cols) blocks: the CPU engines' product row by row.
  void apply_rows(const double* x, double* y, std::int64_t cols);

 private:
  CsrView w_;
};

}  // namespace netdp::kernels::cuda
