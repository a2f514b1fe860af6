#pragma once
// Device-resident gossip matrix W and the product Y = W X on column-major n x cols blocks, shared by the CUDA
// backends that propagate W^t e_u (gossip: docs/math.md §6.1; random walk, series method: docs/math.md §5.2
// E1). Sparse W goes through cuSPARSE SpMM (32-bit indices: the caller checks nnz < 2^31), dense W through
// cuBLAS DGEMM on a column-major copy built on the device.
#include <cuda_runtime_api.h>
#include <cusparse.h>

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

  /// Bytes held on the device: CSR arrays, dense copy and SpMM workspace.
  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(offsets_.bytes() + columns_.bytes() + values_.bytes() +
                                     dense_w_.bytes() + workspace_.bytes());
  }

  /// Sizes the SpMM workspace for blocks of `cols` columns (x and y: device blocks of at least n x cols).
  void reserve(const double* x, double* y, std::int64_t cols);

  /// y = W x for column-major n x cols blocks with leading dimension n.
  void apply(const double* x, double* y, std::int64_t cols);

  /// y = W x for node-major (row-major n x cols, leading dimension cols) blocks, on the dense path only
  /// (constructed with dense = true): one DGEMM, Y^T = X^T W^T (docs/cuda_backend.md "Node-major gossip
  /// engines"; the sparse node-major product is the warp-per-row body of cuda/gossip_spmm.cuh).
  void apply_rows(const double* x, double* y, std::int64_t cols);

 private:
  static constexpr cusparseSpMMAlg_t kAlgorithm = CUSPARSE_SPMM_CSR_ALG1;

  void ensure_workspace(const ConstDenseDescriptor& in, const DenseDescriptor& out);

  std::int64_t n_, nnz_;
  bool dense_;
  cudaStream_t stream_;
  DeviceBuffer<std::int32_t> offsets_, columns_;
  DeviceBuffer<double> values_, dense_w_;
  DeviceBuffer<std::byte> workspace_;
  // Declared after the buffers they point into, so they are destroyed first.
  std::optional<CusparseHandle> cusparse_;
  std::optional<CsrDescriptor> csr_;
  std::optional<CublasHandle> cublas_;
};

}  // namespace netdp::kernels::cuda
