#pragma once
// The last step of a batch of the exact gossip accountant's CUDA twins (gossip_view_cuda.cu,
// gossip_view_sequence_cuda.cu): the observers' projections and reports to the driver's host buffers.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/base/runtime_check.hpp"
#include "gossip_view_kernels.hpp"

namespace netdp::kernels {
namespace {

/// Queues on `stream` the copies of `count` observers' projections (`row` doubles each) and reports; the
/// host buffers are valid once the stream has synchronised.
inline void download_views(const double* device_projections, const GossipViewObserver* device_reports,
                           std::int64_t count, std::int64_t row, double* projections,
                           GossipViewObserver* reports, cudaStream_t stream) {
  NETDP_CUDA_TRY(cudaMemcpyAsync(projections, device_projections,
                                 static_cast<std::size_t>(count * row) * sizeof(double),
                                 cudaMemcpyDeviceToHost, stream));
  NETDP_CUDA_TRY(cudaMemcpyAsync(reports, device_reports,
                                 static_cast<std::size_t>(count) * sizeof(GossipViewObserver),
                                 cudaMemcpyDeviceToHost, stream));
}

}  // namespace
}  // namespace netdp::kernels
