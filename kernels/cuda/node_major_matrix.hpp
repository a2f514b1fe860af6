#pragma once
// W on the device for the node-major gossip engines (docs/cuda_backend.md "Node-major gossip engines"): the
// CSR arrays with the host's 64-bit offsets, read by the warp-per-row kernels (cuda/gossip_spmm.cuh), or on
// the dense path a Propagator holding W's dense copy for DGEMM. Shared by gossip_sim_cuda.cu and
// gossip_loss_cuda.cu.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <span>

#include "cuda/base/device_buffer.hpp"
#include "cuda/propagator.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

struct NodeMajorMatrix {
  /// Uploads W on `stream`: its dense copy when `dense_path`, else its CSR arrays.
  NodeMajorMatrix(CsrView w, bool dense_path, cudaStream_t stream) {
    if (dense_path) {
      dense.emplace(w, true, stream);
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

  std::optional<Propagator> dense;  // the dense path
  DeviceBuffer<offset_t> offsets;   // the sparse path
  DeviceBuffer<node_t> columns;
  DeviceBuffer<double> values;
};

}  // namespace netdp::kernels::cuda
