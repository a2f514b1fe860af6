#pragma once
// The emulated device's Propagator (the CUDA one, kernels/cuda/propagator.hpp, holds W's dense copy for
// cuBLAS DGEMM: a vendor library, GPU-only). Same interface; the node-major product is the CPU engines' CSR
// product row by row, so the dense path gives the CPU's sparse bits here.
#include <cuda_runtime.h>

#include <cstdint>

#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

class Propagator {
 public:
  Propagator(CsrView w, cudaStream_t stream);

  std::int64_t device_bytes() const;
  /// Node-major (row-major n x cols) blocks: the CPU engines' product row by row.
  void apply_rows(const double* x, double* y, std::int64_t cols) const;

 private:
  CsrView w_;
};

}  // namespace netdp::kernels::cuda
