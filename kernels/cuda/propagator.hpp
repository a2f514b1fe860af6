#pragma once
// W's dense copy on the device and the node-major product Y = W X by cuBLAS DGEMM: the dense path of the
// node-major engines (cuda/node_major_matrix.hpp: the gossip simulator, docs/math.md §2, and the gossip
// accountant, docs/math.md §6.1; docs/cuda_backend.md "Node-major gossip engines"). The sparse path is the
// warp-per-row body of cuda/gossip_spmm.cuh, for every accountant. The copy is built on the device from a
// 32-bit CSR upload (the caller checks nnz < 2^31).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

/// Device-resident dense W and Y = W X for node-major (row-major n x cols) blocks.
class Propagator {
 public:
  Propagator(CsrView w, cudaStream_t stream);

  /// Bytes held on the device: the CSR arrays it was built from (kept: the engines' plans count them) and
  /// the dense copy.
  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(offsets_.bytes() + columns_.bytes() + values_.bytes() +
                                     dense_w_.bytes());
  }

  /// y = W x for node-major (row-major n x cols, leading dimension cols) blocks: one DGEMM, Y^T = X^T W^T
  /// (docs/cuda_backend.md "Node-major gossip engines").
  void apply_rows(const double* x, double* y, std::int64_t cols) const;

 private:
  std::int64_t n_;
  cudaStream_t stream_;
  DeviceBuffer<std::int32_t> offsets_, columns_;
  DeviceBuffer<double> values_, dense_w_;
  // Declared after the buffers it works on, so it is destroyed first.
  std::optional<CublasHandle> cublas_;
};

}  // namespace netdp::kernels::cuda
