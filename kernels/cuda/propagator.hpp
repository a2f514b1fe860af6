#pragma once
// Device-resident gossip matrix W and the product Y = W X on column-major n x cols blocks, shared by the CUDA
// backends that propagate W^t e_u (gossip: docs/math.md §6.1; random walk, series and Chebyshev: docs/math.md
// §5.2, docs/walk_loss.md). Sparse W goes through propagation::CsrColumnsProductBody (32-bit indices: the
// caller checks nnz < 2^31), one thread per entry summing W's row in CSR order, the CPU twins' bits
// (docs/cuda_backend.md "Walk-loss twins"); dense W through cuBLAS DGEMM on a column-major copy built on the
// device.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

/// Device-resident W (and its dense copy when asked) and Y = W X for column-major n x cols blocks.
class Propagator {
 public:
  Propagator(CsrView w, bool dense, cudaStream_t stream);

  /// Bytes held on the device: CSR arrays and dense copy.
  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(offsets_.bytes() + columns_.bytes() + values_.bytes() +
                                     dense_w_.bytes());
  }

  /// Nothing since the CSR body replaced cuSPARSE's SpMM (which needed a workspace); kept for the engines.
  void reserve(const double* x, double* y, std::int64_t cols);

  /// y = W x for column-major n x cols blocks with leading dimension n.
  void apply(const double* x, double* y, std::int64_t cols);

  /// y = W x for node-major (row-major n x cols, leading dimension cols) blocks, on the dense path only
  /// (constructed with dense = true): one DGEMM, Y^T = X^T W^T (docs/cuda_backend.md "Node-major gossip
  /// engines"; the sparse node-major product is the warp-per-row body of cuda/gossip_spmm.cuh).
  void apply_rows(const double* x, double* y, std::int64_t cols);

 private:
  std::int64_t n_, nnz_;
  bool dense_;
  cudaStream_t stream_;
  DeviceBuffer<std::int32_t> offsets_, columns_;
  DeviceBuffer<double> values_, dense_w_;
  // Declared after the buffers it works on, so it is destroyed first.
  std::optional<CublasHandle> cublas_;
};

}  // namespace netdp::kernels::cuda
