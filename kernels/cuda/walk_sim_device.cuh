#pragma once
// Device side of the Monte Carlo walk engine shared by the plain (walk_sim_cuda.cu) and accounted
// (walk_sim_accounting_cuda.cu) kernels: the CPU's next-node rules on cuRAND's Philox with the CPU's word
// layout (docs/walk_sim.md "Randomness layout"), so every path is the CPU's, and the integer visit tallies,
// summed with 64-bit atomics (exact and order free). Included by .cu files only (internal linkage).
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "common/walk_sim_math.hpp"
#include "cuda/base/cuda_check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels::walk_device {
namespace {

using cuda::DeviceBuffer;
using Counter = unsigned long long;  // atomicAdd's 64-bit type; every tally is >= 0
using Philox = curandStatePhilox4_32_10_t;

struct DeviceWalk {
  node_t n = 0;
  const offset_t* offsets = nullptr;
  const node_t* targets = nullptr;
  const std::uint64_t* thresholds = nullptr;
};

struct DeviceTallies {
  Counter *visits = nullptr, *returns = nullptr, *return_sum = nullptr, *hits = nullptr, *hit_sum = nullptr;
  Counter *return_counts = nullptr, *hitting_counts = nullptr, *visit_dense = nullptr, *above_nv = nullptr;
  std::int64_t* overflow = nullptr;  // visit counts above visit_cap (appended)
  Counter* overflow_used = nullptr;
  std::int64_t overflow_capacity = 0, time_cap = 0, visit_cap = 0;
  double nv = 0;
};

/// PhiloxStream::next_below on a cuRAND state (Lemire multiply-shift with rejection, 32-bit words).
__device__ std::uint32_t next_below(Philox* s, std::uint32_t bound) {
  std::uint64_t m = std::uint64_t{curand(s)} * bound;
  if (static_cast<std::uint32_t>(m) < bound) {
    const std::uint32_t threshold = (0u - bound) % bound;
    while (static_cast<std::uint32_t>(m) < threshold) m = std::uint64_t{curand(s)} * bound;
  }
  return static_cast<std::uint32_t>(m >> 32);
}

/// walk_detail::draw: one walk word; a rejected word is redrawn on the retry stream at offset t << 20.
__device__ std::uint32_t draw(Philox* words, std::uint64_t seed, std::uint64_t run, std::int64_t t,
                              std::uint32_t bound) {
  std::uint32_t k;
  if (!walk::bounded_draw(curand(words), bound, &k)) {
    Philox retry;
    curand_init(seed, walk_subsequence(WalkStream::retry, run), static_cast<std::uint64_t>(t) << 20, &retry);
    k = next_below(&retry, bound);
  }
  return k;
}

/// The rules of src/simulation/walk_sim_samplers.hpp, word for word.
template <WalkKind kKind>
__device__ node_t next_node(const DeviceWalk& m, node_t v, Philox* words, std::uint64_t seed,
                            std::uint64_t run, std::int64_t t) {
  if constexpr (kKind == WalkKind::complete) {
    return static_cast<node_t>(draw(words, seed, run, t, static_cast<std::uint32_t>(m.n)));
  } else if constexpr (kKind == WalkKind::uniform) {
    const offset_t begin = m.offsets[v];
    return m.targets[begin + draw(words, seed, run, t, static_cast<std::uint32_t>(m.offsets[v + 1] - begin))];
  } else if constexpr (kKind == WalkKind::lazy_uniform) {
    const offset_t begin = m.offsets[v];
    const auto degree = static_cast<std::uint32_t>(m.offsets[v + 1] - begin);
    const std::uint32_t k = draw(words, seed, run, t, 2 * degree);
    return walk::lazy_moves(k, degree) ? m.targets[begin + k] : v;
  } else if constexpr (kKind == WalkKind::weighted) {
    const std::uint64_t low = curand(words);  // two words, low first (walk_detail::next_u64)
    const std::uint64_t u = low | std::uint64_t{curand(words)} << 32;
    return m.targets[walk::weighted_pick(m.thresholds, m.offsets[v], m.offsets[v + 1], u)];
  } else {
    return walk::ring_next(v, m.n);
  }
}

/// One thread's walk: walk k of the batch (run first_run + k), its Philox words (the walk stream from offset
/// 0) and its column of the per-node scratch, index v * stride + k.
struct WalkThread {
  std::int64_t k;
  std::uint64_t run;
  std::size_t stride;
  Philox words;

  __device__ WalkThread(std::int64_t k_, std::int64_t first_run, std::int64_t stride_, std::uint64_t seed)
      : k(k_), run(static_cast<std::uint64_t>(first_run + k_)), stride(static_cast<std::size_t>(stride_)) {
    curand_init(seed, walk_subsequence(WalkStream::walk, run), 0, &words);
  }
  __device__ std::size_t cell(node_t v) const {
    return static_cast<std::size_t>(v) * stride + static_cast<std::size_t>(k);
  }
};

/// The walk of this thread in a one-thread-per-walk launch.
__device__ inline std::int64_t walk_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// The visit at t of a node seen `seen` times before in the run, last at `last`: a return of length t - last,
/// or the first hit at t.
__device__ void tally_visit(const DeviceTallies& out, std::int64_t seen, std::int64_t last, std::int64_t t) {
  if (seen > 0) {
    const std::int64_t gap = t - last;
    atomicAdd(&out.return_counts[gap <= out.time_cap ? gap : out.time_cap + 1], Counter{1});
  } else {
    atomicAdd(&out.hitting_counts[t <= out.time_cap ? t : out.time_cap + 1], Counter{1});
  }
}

/// Node v's totals at the end of a run with c >= 1 visits, the first at `first` and the last at `last`
/// (the CPU's finish_visits): returns = c - 1, return-time sum = last - first, a hit at `first` unless v is
/// the start (first = 0). Returns 1 when c >= nv (CB1), else 0.
__device__ Counter fold_node(const DeviceTallies& out, node_t v, std::int64_t c, std::int64_t first,
                             std::int64_t last) {
  atomicAdd(&out.visits[v], static_cast<Counter>(c));
  atomicAdd(&out.returns[v], static_cast<Counter>(c - 1));
  atomicAdd(&out.return_sum[v], static_cast<Counter>(last - first));
  if (first > 0) {
    atomicAdd(&out.hits[v], Counter{1});
    atomicAdd(&out.hit_sum[v], static_cast<Counter>(first));
  }
  if (c <= out.visit_cap) {
    atomicAdd(&out.visit_dense[c], Counter{1});
  } else {
    const Counter slot = atomicAdd(out.overflow_used, Counter{1});
    if (slot < static_cast<Counter>(out.overflow_capacity)) out.overflow[slot] = c;
  }
  return static_cast<double>(c) >= out.nv ? 1 : 0;
}

/// The nodes a run never visited: visit count 0 (and >= nv only when nv <= 0).
__device__ Counter fold_unvisited(const DeviceTallies& out, std::int64_t unvisited) {
  if (unvisited == 0) return 0;
  atomicAdd(&out.visit_dense[0], static_cast<Counter>(unvisited));
  return 0.0 >= out.nv ? static_cast<Counter>(unvisited) : 0;
}

/// Calls launch(std::integral_constant<WalkKind, kind>) so that a kernel template is instantiated per kind.
template <class Launch>
void for_kind(WalkKind kind, Launch&& launch) {
  switch (kind) {
    case WalkKind::complete:
      return launch(std::integral_constant<WalkKind, WalkKind::complete>{});
    case WalkKind::uniform:
      return launch(std::integral_constant<WalkKind, WalkKind::uniform>{});
    case WalkKind::lazy_uniform:
      return launch(std::integral_constant<WalkKind, WalkKind::lazy_uniform>{});
    case WalkKind::weighted:
      return launch(std::integral_constant<WalkKind, WalkKind::weighted>{});
    case WalkKind::directed_ring:
      return launch(std::integral_constant<WalkKind, WalkKind::directed_ring>{});
  }
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> d(host.size());
  d.upload(std::span<const T>(host), stream);
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

/// The start nodes of runs first_run .. first_run + count - 1, drawn on the host by the CPU's walk_start (so
/// they are identical by construction), into `starts` on the device.
inline void upload_starts(const WalkModel& model, const WalkSimParams& p, std::int64_t first_run,
                          std::int64_t count, std::vector<node_t>& host, DeviceBuffer<node_t>& starts,
                          cudaStream_t s) {
  host.resize(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k)
    host[static_cast<std::size_t>(k)] = walk_start(model, p, first_run + k);
  starts.upload(std::span<const node_t>(host), s);
}

/// The walk model on the device (CSR arrays for CSR walks only).
struct ModelBuffers {
  DeviceBuffer<offset_t> offsets;
  DeviceBuffer<node_t> targets;
  DeviceBuffer<std::uint64_t> thresholds;

  ModelBuffers(const WalkModel& model, cudaStream_t s) {
    const bool csr = model.kind == WalkKind::uniform || model.kind == WalkKind::lazy_uniform ||
                     model.kind == WalkKind::weighted;
    if (csr) offsets = upload(model.offsets, s);
    if (csr) targets = upload(model.targets, s);
    if (model.kind == WalkKind::weighted) thresholds = upload(model.thresholds, s);
  }
  DeviceWalk view(node_t n) const { return {n, offsets.data(), targets.data(), thresholds.data()}; }
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

  DeviceTallies view() const {
    return {visits.data(),
            returns.data(),
            return_sum.data(),
            hits.data(),
            hit_sum.data(),
            return_counts.data(),
            hitting_counts.data(),
            visit_dense.data(),
            above_nv.data(),
            overflow.data(),
            overflow_used.data(),
            static_cast<std::int64_t>(overflow.size()),
            time_cap,
            visit_cap,
            nv};
  }
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
