// CUDA backend of the Monte Carlo walk engine, plain walks (docs/walk_sim.md "CUDA", docs/cuda_backend.md):
// one thread per walk, the walk's words from cuRAND's Philox with the CPU's layout (DESIGN principle 2:
// curand_init(seed, subsequence, offset) gives PhiloxStream's words), the next-node rules of
// common/walk_sim_math.hpp, so every path is the CPU's. Streaming: per walk and node the first visit, the
// last visit and the visit count live in device scratch; integer tallies are summed with atomics (exact,
// order free). Start nodes come from the CPU's walk_start on the host.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/walk_sim_math.hpp"
#include "cuda/base/cuda_check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"
#include "netdp/error.hpp"
#include "netdp/walk_sim.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;
using Counter = unsigned long long;  // atomicAdd's 64-bit type; every tally is >= 0
using Philox = curandStatePhilox4_32_10_t;

constexpr int kBlock = 256;
constexpr std::int64_t kMaxAutoBatch = std::int64_t{1} << 22;  // walks per launch when chosen automatically
constexpr double kFreeMemoryShare = 0.5;                       // of the free device memory, for the scratch

struct DeviceWalk {
  node_t n = 0;
  const offset_t* offsets = nullptr;
  const node_t* targets = nullptr;
  const std::uint64_t* thresholds = nullptr;
};

// One launch: walks first_run .. first_run + count - 1; scratch index v * stride + k for walk k.
struct WalkBatch {
  std::uint64_t seed = 0;
  std::int64_t first_run = 0, count = 0, stride = 0, steps = 0;
  const node_t* starts = nullptr;  // per walk; nullptr: every walk starts at start_node
  node_t start_node = 0;
  std::int64_t* first = nullptr;      // time of the first visit of the run (0 for the start)
  std::int64_t* last = nullptr;       // time of the last visit
  std::int64_t* count_run = nullptr;  // visits in the run; 0 = not visited (kept 0 between walks)
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

/// The rules of src/walk_sim_samplers.hpp, word for word.
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

/// One thread per walk: the CPU's RunVisitor (visits, returns, hits) and finish_visits, with the per-node
/// sums folded at the end of the walk: returns = visits - 1, return-time sum = last - first, a hit at `first`
/// for every visited node but the start (first = 0).
template <WalkKind kKind>
__global__ void __launch_bounds__(kBlock)
    plain_walks(const DeviceWalk m, const WalkBatch b, DeviceTallies out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= b.count) return;
  const auto cell = [&](node_t v) {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(b.stride) + static_cast<std::size_t>(k);
  };
  const auto run = static_cast<std::uint64_t>(b.first_run + k);
  Philox words;
  curand_init(b.seed, walk_subsequence(WalkStream::walk, run), 0, &words);
  node_t current = b.starts != nullptr ? b.starts[k] : b.start_node;
  std::size_t at = cell(current);
  b.first[at] = 0;
  b.last[at] = 0;
  b.count_run[at] = 1;
  for (std::int64_t t = 1; t < b.steps; ++t) {
    current = next_node<kKind>(m, current, &words, b.seed, run, t);
    at = cell(current);
    const std::int64_t seen = b.count_run[at];
    if (seen > 0) {
      const std::int64_t gap = t - b.last[at];
      atomicAdd(&out.return_counts[gap <= out.time_cap ? gap : out.time_cap + 1], Counter{1});
    } else {
      b.first[at] = t;
      atomicAdd(&out.hitting_counts[t <= out.time_cap ? t : out.time_cap + 1], Counter{1});
    }
    b.count_run[at] = seen + 1;
    b.last[at] = t;
  }
  std::int64_t unvisited = 0;
  Counter above = 0;
  for (node_t v = 0; v < m.n; ++v) {
    at = cell(v);
    const std::int64_t c = b.count_run[at];
    if (c == 0) {
      ++unvisited;
      continue;
    }
    const std::int64_t first = b.first[at];
    atomicAdd(&out.visits[v], static_cast<Counter>(c));
    atomicAdd(&out.returns[v], static_cast<Counter>(c - 1));
    atomicAdd(&out.return_sum[v], static_cast<Counter>(b.last[at] - first));
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
    if (static_cast<double>(c) >= out.nv) ++above;
    b.count_run[at] = 0;
  }
  if (unvisited > 0) {
    atomicAdd(&out.visit_dense[0], static_cast<Counter>(unvisited));
    if (0.0 >= out.nv) above += static_cast<Counter>(unvisited);
  }
  if (above > 0) atomicAdd(out.above_nv, above);
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

std::vector<std::int64_t> download(const DeviceBuffer<Counter>& d, cudaStream_t stream) {
  std::vector<Counter> host(d.size());
  if (!host.empty())
    NETDP_CUDA_TRY(cudaMemcpyAsync(host.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost, stream));
  NETDP_CUDA_TRY(cudaStreamSynchronize(stream));
  return std::vector<std::int64_t>(host.begin(), host.end());
}

}  // namespace

WalkSimCudaRun walk_sim_cuda(const WalkModel& model, const WalkSimParams& p, int device,
                             std::int64_t time_cap, std::int64_t visit_cap, double nv, WalkVisitTallies& out,
                             const WalkSimProgress& progress) {
  if (p.accounting || p.save_paths)
    throw InvalidInput("walk_sim_cuda: plain walks only (no accounting, no saved paths)");
  cuda::DeviceGuard guard(device);
  cuda::Stream stream;
  const cudaStream_t s = stream.get();
  const std::int64_t n = model.n;
  const bool csr = model.kind == WalkKind::uniform || model.kind == WalkKind::lazy_uniform ||
                   model.kind == WalkKind::weighted;

  WalkSimCudaRun run;
  // Fixed: the model and the tallies. Per walk: 3 scratch words per node, the start, and at most
  // min(n, T / (visit_cap + 1)) visit counts above visit_cap (a run has T visits in all).
  const DeviceBuffer<offset_t> offsets = csr ? upload(model.offsets, s) : DeviceBuffer<offset_t>();
  const DeviceBuffer<node_t> targets = csr ? upload(model.targets, s) : DeviceBuffer<node_t>();
  const DeviceBuffer<std::uint64_t> thresholds =
      model.kind == WalkKind::weighted ? upload(model.thresholds, s) : DeviceBuffer<std::uint64_t>();
  const auto node_tally = [&] { return zeros<Counter>(static_cast<std::size_t>(n), s); };
  DeviceBuffer<Counter> visits = node_tally(), returns = node_tally(), return_sum = node_tally(),
                        hits = node_tally(), hit_sum = node_tally();
  DeviceBuffer<Counter> return_counts = zeros<Counter>(static_cast<std::size_t>(time_cap) + 2, s),
                        hitting_counts = zeros<Counter>(static_cast<std::size_t>(time_cap) + 2, s),
                        visit_dense = zeros<Counter>(static_cast<std::size_t>(visit_cap) + 1, s),
                        above_nv = zeros<Counter>(1, s), overflow_used = zeros<Counter>(1, s);
  const std::int64_t overflow_per_walk = std::min<std::int64_t>(n, p.steps / (visit_cap + 1));
  const std::int64_t per_walk = 3 * 8 * n + 8 * overflow_per_walk + 4;

  std::int64_t batch = p.batch_runs > 0 ? std::min(p.batch_runs, p.runs) : 0;
  if (batch == 0) {
    std::size_t free_bytes = 0, total_bytes = 0;
    NETDP_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const auto budget = static_cast<std::int64_t>(kFreeMemoryShare * static_cast<double>(free_bytes));
    if (budget < per_walk)
      throw InsufficientMemory("walk-sim on CUDA: one walk on n = " + std::to_string(n) + " nodes needs " +
                               std::to_string(per_walk) + " bytes of device scratch but only " +
                               std::to_string(budget) + " bytes are available (half the free memory of " +
                               "CUDA device " + std::to_string(device) + "); use --device cpu");
    batch = std::min({budget / per_walk, p.runs, kMaxAutoBatch});
  }
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  DeviceBuffer<std::int64_t> first(cells), last(cells);
  DeviceBuffer<std::int64_t> count_run = zeros<std::int64_t>(cells, s);
  DeviceBuffer<std::int64_t> overflow(static_cast<std::size_t>(overflow_per_walk * batch));
  const bool per_walk_start = p.start.kind != StartKind::node;
  DeviceBuffer<node_t> starts(per_walk_start ? static_cast<std::size_t>(batch) : 0);
  run.batch_runs = batch;
  run.device_bytes =
      per_walk * batch +
      static_cast<std::int64_t>(offsets.bytes() + targets.bytes() + thresholds.bytes() + 5 * visits.bytes() +
                                2 * return_counts.bytes() + visit_dense.bytes());

  const DeviceWalk m{model.n, offsets.data(), targets.data(), thresholds.data()};
  const DeviceTallies t{visits.data(),
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
                        overflow_per_walk * batch,
                        time_cap,
                        visit_cap,
                        nv};
  std::vector<node_t> host_starts;
  std::vector<std::int64_t> host_overflow;
  for (std::int64_t first_run = 0; first_run < p.runs; first_run += batch) {
    const std::int64_t count = std::min(batch, p.runs - first_run);
    if (per_walk_start) {  // the CPU's start draws, so starts are identical by construction
      host_starts.resize(static_cast<std::size_t>(count));
      for (std::int64_t k = 0; k < count; ++k)
        host_starts[static_cast<std::size_t>(k)] = walk_start(model, p, first_run + k);
      starts.upload(std::span<const node_t>(host_starts), s);
    }
    const WalkBatch b{p.seed,          first_run,    count,
                      batch,           p.steps,      per_walk_start ? starts.data() : nullptr,
                      p.start.node,    first.data(), last.data(),
                      count_run.data()};
    const auto blocks = static_cast<unsigned>((count + kBlock - 1) / kBlock);
    switch (model.kind) {
      case WalkKind::complete:
        plain_walks<WalkKind::complete><<<blocks, kBlock, 0, s>>>(m, b, t);
        break;
      case WalkKind::uniform:
        plain_walks<WalkKind::uniform><<<blocks, kBlock, 0, s>>>(m, b, t);
        break;
      case WalkKind::lazy_uniform:
        plain_walks<WalkKind::lazy_uniform><<<blocks, kBlock, 0, s>>>(m, b, t);
        break;
      case WalkKind::weighted:
        plain_walks<WalkKind::weighted><<<blocks, kBlock, 0, s>>>(m, b, t);
        break;
      case WalkKind::directed_ring:
        plain_walks<WalkKind::directed_ring><<<blocks, kBlock, 0, s>>>(m, b, t);
        break;
    }
    NETDP_CUDA_CHECK_LAUNCH();
    if (overflow_per_walk > 0) {  // drain the visit counts above visit_cap of this batch
      Counter used = 0;
      NETDP_CUDA_TRY(
          cudaMemcpyAsync(&used, overflow_used.data(), sizeof(Counter), cudaMemcpyDeviceToHost, s));
      stream.synchronize();
      if (used > static_cast<Counter>(t.overflow_capacity))
        throw std::logic_error("walk_sim_cuda: overflow list exceeded its bound");
      host_overflow.resize(static_cast<std::size_t>(used));
      if (used > 0)
        NETDP_CUDA_TRY(cudaMemcpyAsync(host_overflow.data(), overflow.data(), used * sizeof(std::int64_t),
                                       cudaMemcpyDeviceToHost, s));
      NETDP_CUDA_TRY(cudaMemsetAsync(overflow_used.data(), 0, sizeof(Counter), s));
      stream.synchronize();
      for (std::int64_t c : host_overflow) ++out.visit_counts[c];
    } else {
      stream.synchronize();
    }
    ++run.batches;
    if (progress) progress(double(first_run + count) / double(p.runs));
  }

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
  return run;
}

}  // namespace netdp::kernels
