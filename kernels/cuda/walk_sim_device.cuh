#pragma once
// Host side of the CUDA walk engine shared by the plain (walk_sim_cuda.cu) and accounted
// (walk_sim_accounting_cuda.cu) launches: the model and the integer visit tallies on the device, the start
// nodes, the downloads. The per-thread bodies (the CPU's next-node rules on the shared Philox with the CPU's
// word layout, so every path is the CPU's; the walks; the tallies' 64-bit atomics, exact and order free) are
// in common/walk_sim_bodies.hpp. Included by .cu files only (internal linkage).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/runtime_check.hpp"
#include "netdp/ground/errors.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels::walk_device {
namespace {

using cuda::DeviceBuffer;
using walk::Counter;
using walk::for_kind;

template <class T>
DeviceBuffer<T> upload(std::span<const T> host, cudaStream_t stream) {
  DeviceBuffer<T> d(host.size());
  d.upload(host, stream);
  return d;
}

template <class T>
DeviceBuffer<T> zeros(std::size_t size, cudaStream_t stream) {
  DeviceBuffer<T> d(size);
  if (size > 0) NETDP_CUDA_TRY(cudaMemsetAsync(d.data(), 0, d.bytes(), stream));
  return d;
}

inline std::vector<std::int64_t> download(const DeviceBuffer<Counter>& d, cudaStream_t stream) {
  std::vector<Counter> host(d.size());
  if (!host.empty())
    NETDP_CUDA_TRY(cudaMemcpyAsync(host.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost, stream));
  NETDP_CUDA_TRY(cudaStreamSynchronize(stream));
  return std::vector<std::int64_t>(host.begin(), host.end());
}

/// A batch's start nodes (drawn on the host by the CPU's walk_start, so identical by construction) into
/// `starts` on the device.
inline void upload_starts(std::span<const node_t> host, std::int64_t count, DeviceBuffer<node_t>& starts,
                          cudaStream_t s) {
  if (static_cast<std::int64_t>(host.size()) != count)
    throw InvalidInput("walk-sim on CUDA: " + std::to_string(count) + " start nodes expected, got " +
                       std::to_string(host.size()));
  starts.upload(host, s);
}

/// The walk model on the device (CSR arrays for CSR walks only).
struct ModelBuffers {
  DeviceBuffer<offset_t> offsets;
  DeviceBuffer<node_t> targets;
  DeviceBuffer<std::uint64_t> thresholds;

  ModelBuffers(const WalkTables& model, cudaStream_t s) {
    const bool csr = model.kind == WalkKind::uniform || model.kind == WalkKind::lazy_uniform ||
                     model.kind == WalkKind::weighted;
    if (csr) offsets = upload(model.offsets, s);
    if (csr) targets = upload(model.targets, s);
    if (model.kind == WalkKind::weighted) thresholds = upload(model.thresholds, s);
  }
  walk::ModelView view(node_t n) const { return {n, offsets.data(), targets.data(), thresholds.data()}; }
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(offsets.bytes() + targets.bytes() + thresholds.bytes());
  }
};

/// The visit tallies on the device, with room for `overflow_capacity` visit counts above visit_cap per batch.
struct TallyBuffers {
  DeviceBuffer<Counter> visits, returns, return_sum, hits, hit_sum;
  DeviceBuffer<Counter> return_counts, hitting_counts, visit_dense, above_nv, overflow_used;
  DeviceBuffer<std::int64_t> overflow;
  std::int64_t time_cap, visit_cap;
  double nv;

  /// Device bytes of the tallies shared by every walk of a launch (the overflow store is per walk).
  static std::int64_t shared_bytes(std::int64_t n, std::int64_t time_cap_, std::int64_t visit_cap_) {
    return static_cast<std::int64_t>(sizeof(Counter)) * (5 * n + 2 * (time_cap_ + 2) + visit_cap_ + 1 + 2);
  }

  TallyBuffers(std::int64_t n, std::int64_t time_cap_, std::int64_t visit_cap_, double nv_,
               std::int64_t overflow_capacity, cudaStream_t s)
      : visits(zeros<Counter>(static_cast<std::size_t>(n), s)),
        returns(zeros<Counter>(static_cast<std::size_t>(n), s)),
        return_sum(zeros<Counter>(static_cast<std::size_t>(n), s)),
        hits(zeros<Counter>(static_cast<std::size_t>(n), s)),
        hit_sum(zeros<Counter>(static_cast<std::size_t>(n), s)),
        return_counts(zeros<Counter>(static_cast<std::size_t>(time_cap_) + 2, s)),
        hitting_counts(zeros<Counter>(static_cast<std::size_t>(time_cap_) + 2, s)),
        visit_dense(zeros<Counter>(static_cast<std::size_t>(visit_cap_) + 1, s)),
        above_nv(zeros<Counter>(1, s)),
        overflow_used(zeros<Counter>(1, s)),
        overflow(static_cast<std::size_t>(overflow_capacity)),
        time_cap(time_cap_),
        visit_cap(visit_cap_),
        nv(nv_) {}

  walk::TallyView view() const { return walk::tally_view(*this); }
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(5 * visits.bytes() + 2 * return_counts.bytes() + visit_dense.bytes() +
                                     overflow.bytes());
  }

  /// Moves this batch's visit counts above visit_cap to `out` and empties the list (synchronises).
  void drain_overflow(WalkVisitTallies& out, cudaStream_t s) {
    Counter used = 0;
    NETDP_CUDA_TRY(cudaMemcpyAsync(&used, overflow_used.data(), sizeof(Counter), cudaMemcpyDeviceToHost, s));
    NETDP_CUDA_TRY(cudaStreamSynchronize(s));
    if (used > static_cast<Counter>(overflow.size()))
      throw std::logic_error("walk_sim_cuda: overflow list exceeded its bound");
    std::vector<std::int64_t> host(static_cast<std::size_t>(used));
    if (used > 0)
      NETDP_CUDA_TRY(cudaMemcpyAsync(host.data(), overflow.data(), used * sizeof(std::int64_t),
                                     cudaMemcpyDeviceToHost, s));
    NETDP_CUDA_TRY(cudaMemsetAsync(overflow_used.data(), 0, sizeof(Counter), s));
    NETDP_CUDA_TRY(cudaStreamSynchronize(s));
    for (std::int64_t c : host) ++out.visit_counts[c];
  }

  /// Copies every tally into `out` (synchronises).
  void download_to(WalkVisitTallies& out, cudaStream_t s) const {
    out.visits = download(visits, s);
    out.returns = download(returns, s);
    out.return_time_sum = download(return_sum, s);
    out.hits = download(hits, s);
    out.hitting_time_sum = download(hit_sum, s);
    out.return_counts = download(return_counts, s);
    out.hitting_counts = download(hitting_counts, s);
    const std::vector<std::int64_t> dense = download(visit_dense, s);
    for (std::size_t c = 0; c < dense.size(); ++c)
      if (dense[c] > 0) out.visit_counts[static_cast<std::int64_t>(c)] += dense[c];
    out.above_nv = download(above_nv, s)[0];
  }
};

}  // namespace
}  // namespace netdp::kernels::walk_device
