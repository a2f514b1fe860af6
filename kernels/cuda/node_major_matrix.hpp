#pragma once
// W on the device for the node-major engines (docs/cuda_backend.md "Node-major gossip engines"): the CSR
// arrays with the host's 64-bit offsets, read by the warp-per-row kernels (cuda/gossip_spmm.cuh), or on the
// dense path a Propagator holding W's dense copy for DGEMM; and multiply, the one product Y = W X of every
// accountant on node-major blocks. Shared by gossip_sim_cuda.cu, gossip_loss_cuda.cu and walk_loss_cuda.cu.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <span>

#include "common/gossip_spmm_bodies.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/gossip_spmm.cuh"
#include "cuda/propagator.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

struct NodeMajorMatrix {
  /// Uploads W on `stream`: its dense copy when `dense_path`, else its CSR arrays.
  NodeMajorMatrix(CsrView w, bool dense_path, cudaStream_t stream) : n(w.n) {
    if (dense_path) {
      dense.emplace(w, stream);
      return;
    }
    offsets = DeviceBuffer<offset_t>(w.offsets.size());
    columns = DeviceBuffer<node_t>(w.columns.size());
    values = DeviceBuffer<double>(w.values.size());
    offsets.upload(std::span<const offset_t>(w.offsets), stream);
    columns.upload(std::span<const node_t>(w.columns), stream);
    values.upload(std::span<const double>(w.values), stream);
  }

  std::int64_t device_bytes() const {
    return (dense ? dense->device_bytes() : 0) +
           static_cast<std::int64_t>(offsets.bytes() + columns.bytes() + values.bytes());
  }

  std::int64_t n;                   // rows and columns of W
  std::optional<Propagator> dense;  // the dense path
  DeviceBuffer<offset_t> offsets;   // the sparse path
  DeviceBuffer<node_t> columns;
  DeviceBuffer<double> values;
};

namespace {

/// y = W x for node-major (row-major n x cols) blocks x, y, queued on `stream`: one DGEMM on the dense path,
/// else the warp-per-row body (gossip::NodeMajorStepBody without its Chebyshev term: spmm::row_entry, W's
/// rows in CSR order from 0, the CPU engines' csr_row_product bit for bit).
inline void multiply(const NodeMajorMatrix& w, const double* x, double* y, std::int64_t cols,
                     cudaStream_t stream) {
  if (w.dense) {
    w.dense->apply_rows(x, y, cols);
    return;
  }
  for_each_row(w.n, cols,
               gossip::NodeMajorStepBody<offset_t, node_t>{
                   {w.offsets.data(), w.columns.data(), w.values.data(), x}, nullptr, 0.0, 0.0, cols, y},
               stream);
}

}  // namespace
}  // namespace netdp::kernels::cuda
