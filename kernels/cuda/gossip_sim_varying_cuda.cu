// CUDA backend of the gossip simulator's time-varying protocols without privacy: sequence (docs/math.md
// §6.1), dropout (6.8), er-per-round (6.4) and randomized gossip (6.3), the same computation as the CPU
// twin kernels/cpu/gossip_sim_varying_cpu.cpp (interface: gossip_sim_kernels.hpp). Every per-thread body is
// in common/gossip_sim_bodies.hpp (run on the host by tests/backend/test_gossip_sim_bodies.cpp) and launched
// here by device_for_each. Batch after batch of runs:
//   * the noisy start, its averages and the errors at t = 0 as for sync (gossip_sim_common.cuh);
//   * sequence: every W_t uploaded once (CSR, concatenated), one CsrMultiplyBody per round;
//   * dropout: per round, each run's active mask drawn from the CPU's Philox words (DropoutMaskBody), the
//     active degrees, then each run's W-MH applied to its own columns (DropoutStepBody);
//   * er-per-round: per round, one thread per run draws its connected G(n, q) from the CPU's Philox words
//     (ErSampleBody), then each run's W-MH is applied to its own columns (ErStepBody);
//   * dropout-er: per round, each run's mask as dropout (DropoutMaskBody), then one thread per run draws
//     attempt 0 of its G(n, p) without the dropped nodes' edges (ErSampleBody with the masks), then
//     ErStepBody;
//   * randomized: one thread per run over the ticks (TicksRunBody), in launches of kTickChunk ticks.
// The noisy averages and the errors at the recorded times are one thread per column summing it in node order
// (ColumnMajorAveragesBody, ColumnMajorErrorsBody of common/gossip_spmm_bodies.hpp): the CPU twin's sums, so
// the emulated device gives the CPU twin's bytes (kernels/cpu/gossip_sim_varying_cpu.cpp). Errors come back
// per run and are folded on the host in run order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/gossip_sim_layout.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/request.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "cuda/gossip_sim_common.cuh"
#include "device_kernels.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels {
namespace {

using cuda::DeviceBuffer;

constexpr int kTickChunk = 1 << 14;  // ticks per launch of TicksRunBody: short kernels

/// The protocol's shared data, laid out for the device: the sequence's CSR arrays concatenated (offsets
/// rebased), the dropout base graph, or the activation table.
struct HostTables {
  std::vector<offset_t> offsets;
  std::vector<node_t> columns;
  std::vector<double> values;
};

HostTables host_tables(const GossipSimVaryingProblem& p) {
  HostTables h;
  if (p.protocol == VaryingProtocol::sequence) {
    for (const RoundView& r : p.rounds) {
      const offset_t base = static_cast<offset_t>(h.columns.size());
      for (node_t i = 0; i <= p.n; ++i) h.offsets.push_back(base + r.w.offsets[i]);
      h.columns.insert(h.columns.end(), r.w.columns.begin(), r.w.columns.end());
      h.values.insert(h.values.end(), r.w.values.begin(), r.w.values.end());
    }
  } else if (p.protocol == VaryingProtocol::dropout) {
    h.offsets.assign(p.graph.offsets.begin(), p.graph.offsets.end());
    h.columns.assign(p.graph.adjacency.begin(), p.graph.adjacency.end());
  } else {
    h.columns.assign(p.edge_nodes.begin(), p.edge_nodes.end());
    h.values.assign(p.cumulative.begin(), p.cumulative.end());
  }
  return h;
}

/// Edges one er-per-round run may hold in a round: the mean q n (n - 1) / 2 plus 6 standard deviations and
/// 16 (the CPU's memory plan uses the same bound); a draw above it stops the simulation with an error.
std::int64_t er_capacity(const GossipSimVaryingProblem& p) {
  if (p.protocol != VaryingProtocol::er_per_round && p.protocol != VaryingProtocol::dropout_er) return 0;
  const double pairs = double(p.n) * double(p.n - 1) / 2, mean = p.edge_probability * pairs;
  return static_cast<std::int64_t>(std::min(pairs, std::ceil(mean + 6 * std::sqrt(mean) + 16)));
}

/// Bytes per run: state blocks (1 for randomized, else 2), per-column averages and sums, per-run errors, and
/// the dropout mask and degrees or the randomized per-node errors and totals.
std::int64_t per_run_bytes(const GossipSimVaryingProblem& p, std::int64_t points) {
  const std::int64_t n = p.n, dim = p.dim, d = sizeof(double);
  std::int64_t bytes = 3 * dim * d + 2 * points * d;
  switch (p.protocol) {
    case VaryingProtocol::sequence:
      return bytes + 2 * n * dim * d;
    case VaryingProtocol::dropout:
      return bytes + 2 * n * dim * d + n * (1 + sizeof(std::int32_t));
    case VaryingProtocol::er_per_round:  // pairs, adjacency, offsets, degrees, union-find, status
      return bytes + 2 * n * dim * d + 4 * er_capacity(p) * 4 + (n + 1) * 8 + 2 * n * 4 + 4;
    case VaryingProtocol::dropout_er:  // as er-per-round, and the mask
      return bytes + 2 * n * dim * d + 4 * er_capacity(p) * 4 + (n + 1) * 8 + 2 * n * 4 + 4 + n;
    default:
      return bytes + n * dim * d + 2 * n * d + 2 * d;
  }
}

/// The CPU's message for a G(n, q) disconnected in every attempt (sample_er_round), or the capacity error.
[[noreturn]] void throw_er_failure(const GossipSimVaryingProblem& p, std::int64_t run, std::int32_t status,
                                   std::int64_t cap) {
  const std::string where = "(run " + std::to_string(run) + ", round " + std::to_string(status / 4 - 1) + ")";
  if (status % 4 == 1)
    throw InsufficientMemory(
        std::string(p.protocol == VaryingProtocol::dropout_er ? "dropout-er" : "er-per-round") +
        " on CUDA: a round drew more than " + std::to_string(cap) + " edges (mean + 6 standard deviations) " +
        where + "; use device cpu");
  throw InvalidInput("er-per-round: G(n = " + std::to_string(p.n) +
                     ", q = " + std::to_string(p.edge_probability) + ") was disconnected in " +
                     std::to_string(gossip::kErMaxAttempts) + " draws " + where + "; raise er-c");
}

void check_problem(const GossipSimVaryingProblem& p, std::int64_t runs) {
  const std::int64_t n = p.n, dim = p.dim, points = static_cast<std::int64_t>(p.times.size());
  bool ok = n >= 1 && dim >= 1 && p.steps >= 1 && runs >= 1 && points >= 1 && p.times.front() == 0 &&
            p.times.back() == p.steps && static_cast<std::int64_t>(p.x.size()) == n * dim &&
            static_cast<std::int64_t>(p.xbar.size()) == dim;
  switch (p.protocol) {
    case VaryingProtocol::sequence:
      ok = ok && !p.rounds.empty();
      if (ok)
        for (const RoundView& r : p.rounds)
          ok = ok && r.w.n == p.n && r.w.offsets.size() == static_cast<std::size_t>(n) + 1;
      break;
    case VaryingProtocol::dropout:
      ok = ok && p.graph.n == p.n && p.dropout >= 0.0 && p.dropout <= 1.0;
      break;
    case VaryingProtocol::randomized:
      ok = ok && p.edge_nodes.size() == 2 * p.cumulative.size();
      break;
    case VaryingProtocol::er_per_round:
      ok = ok && p.edge_probability >= 0.0 && p.edge_probability <= 1.0;
      break;
    case VaryingProtocol::dropout_er:
      ok = ok && p.edge_probability >= 0.0 && p.edge_probability <= 1.0 && p.dropout >= 0.0 &&
           p.dropout <= 1.0;
      break;
  }
  if (ok && 2 * er_capacity(p) >= std::numeric_limits<std::int32_t>::max())
    throw InvalidInput("gossip-sim on CUDA: a G(n, q) protocol with n = " + std::to_string(n) +
                       " needs 2^31 or more adjacency entries per run; use device cpu");
  if (!ok)
    throw InvalidInput("gossip-sim on CUDA: inconsistent time-varying problem (n = " + std::to_string(n) +
                       ", D = " + std::to_string(dim) + ", T = " + std::to_string(p.steps) +
                       ", runs = " + std::to_string(runs) + ")");
}

/// The time-varying engine: the device state of one batch size as members, in reverse destruction order (the
/// device context first and gone last, so the stream outlives the buffers that use it).
class VaryingEngine final : public GossipSimCudaEngine {
 public:
  VaryingEngine(const GossipSimVaryingProblem& p, int device, const HostTables& h, std::int64_t runs,
                std::int64_t b, std::int64_t fixed_bytes, std::int64_t per_run_bytes)
      : p_(p),
        context_(device),
        points_(static_cast<std::int64_t>(p.times.size())),
        ticks_(p.protocol == VaryingProtocol::randomized),
        dropout_(p.protocol == VaryingProtocol::dropout),
        er_(p.protocol == VaryingProtocol::er_per_round || p.protocol == VaryingProtocol::dropout_er),
        masked_er_(p.protocol == VaryingProtocol::dropout_er),
        cap_(er_capacity(p)),
        x_(p.x.size()),
        xbar_(p.xbar.size()),
        values_(h.values.size()),
        offsets_(h.offsets.size()),
        columns_(h.columns.size()),
        times_(p.times.size()),
        cur_(static_cast<std::size_t>(p.n * b * p.dim)),
        next_(ticks_ ? 0 : cur_.size()),
        noisy_average_(static_cast<std::size_t>(b * p.dim)),
        col_true_(noisy_average_.size()),
        col_noisy_(noisy_average_.size()),
        truth_(static_cast<std::size_t>(b * points_)),
        noisy_(truth_.size()),
        active_(dropout_ || masked_er_ ? static_cast<std::size_t>(p.n * b) : 0),
        degree_(active_.size()),
        er_pairs_(er_ ? static_cast<std::size_t>(2 * cap_ * b) : 0),
        er_adjacency_(er_pairs_.size()),
        er_degree_(er_ ? static_cast<std::size_t>(p.n * b) : 0),
        er_parent_(er_degree_.size()),
        er_status_(er_ ? static_cast<std::size_t>(b) : 0),
        er_offsets_(er_ ? static_cast<std::size_t>((p.n + 1) * b) : 0),
        status_(er_status_.size()),
        err_true_(ticks_ ? static_cast<std::size_t>(p.n * b) : 0),
        err_noisy_(err_true_.size()),
        totals_(ticks_ ? static_cast<std::size_t>(2 * b) : 0),
        host_errors_(truth_.size()) {
    const cudaStream_t s = context_.stream.get();
    x_.upload(p.x, s);
    xbar_.upload(p.xbar, s);
    values_.upload(std::span<const double>(h.values), s);
    offsets_.upload(std::span<const offset_t>(h.offsets), s);
    columns_.upload(std::span<const node_t>(h.columns), s);
    times_.upload(p.times, s);
    run_.batch_runs = b;
    run_.batches = (runs + b - 1) / b;
    run_.device_bytes = fixed_bytes + b * per_run_bytes;
  }

  CudaGossipSimRun plan() const override { return run_; }

  GossipSimBatchErrors run_batch(std::int64_t first, std::int64_t count) override {
    const cuda::DeviceGuard guard(context_.device);
    const GossipSimVaryingProblem& p = p_;
    const std::int64_t n = p.n, cols = count * p.dim, points = points_;
    const cudaStream_t s = context_.stream.get();
    const gossip::ErScratch scratch{er_pairs_.data(),
                                    er_adjacency_.data(),
                                    er_degree_.data(),
                                    er_parent_.data(),
                                    er_status_.data(),
                                    er_offsets_.data(),
                                    cap_};
    const std::uint64_t noise_stream = gossip_subsequence(GossipStream::noise, 0, 0);
    const std::int64_t length = p.rounds.empty() ? 1 : static_cast<std::int64_t>(p.rounds.size());
    const double log_absent = std::log1p(-p.edge_probability);  // the CPU's ln(1 - q)
    noisy_start(x_.data(), n, p.dim, p.sigma, p.seed, noise_stream, first, count, cur_.data(), s);
    cuda::for_each(cols, gossip::ColumnMajorAveragesBody{{cur_.data(), n, cols, noisy_average_.data()}}, s);
    auto record = [&](const double* state, std::int64_t point) {
      record_errors(state, n, p.dim, count, xbar_.data(), noisy_average_.data(), col_true_.data(),
                    col_noisy_.data(), point, points, truth_.data(), noisy_.data(), s);
    };
    record(cur_.data(), 0);
    if (er_) NETDP_CUDA_TRY(cudaMemsetAsync(er_status_.data(), 0, er_status_.bytes(), s));
    if (ticks_) {
      cuda::for_each(count,
                     gossip::TicksStartBody{cur_.data(), n, p.dim, xbar_.data(), noisy_average_.data(),
                                            err_true_.data(), err_noisy_.data(), totals_.data()},
                     s);
      const gossip::TickArgs args{n,
                                  first,
                                  count,
                                  static_cast<std::int64_t>(p.cumulative.size()),
                                  points,
                                  p.dim,
                                  p.seed,
                                  gossip_subsequence(GossipStream::activation, 0, 0),
                                  values_.data(),
                                  columns_.data(),
                                  times_.data(),
                                  xbar_.data(),
                                  noisy_average_.data()};
      for (std::int64_t t0 = 0; t0 < p.steps; t0 += kTickChunk) {
        const std::int64_t t1 = std::min<std::int64_t>(t0 + kTickChunk, p.steps);
        const std::int64_t point = std::upper_bound(p.times.begin(), p.times.end(), t0) - p.times.begin();
        cuda::for_each(count,
                       gossip::TicksRunBody{args, t0, t1, point, cur_.data(), err_true_.data(),
                                            err_noisy_.data(), totals_.data(), truth_.data(), noisy_.data()},
                       s);
      }
    } else {
      double* from = cur_.data();
      double* to = next_.data();
      std::int64_t point = 1;
      for (int t = 1; t <= p.steps; ++t) {
        const std::int64_t elements = n * cols;
        if (er_) {
          const std::uint64_t round_stream =
              gossip_subsequence(GossipStream::er_graph, 0, std::uint64_t(t - 1));
          if (masked_er_)  // dropout-er: the round's masks first (the same words as dropout)
            cuda::for_each(n * count,
                           gossip::DropoutMaskBody{
                               p.seed, gossip_subsequence(GossipStream::dropout, 0, std::uint64_t(t - 1)),
                               first, n, p.dropout, active_.data()},
                           s);
          cuda::for_each(count,
                         gossip::ErSampleBody{p.seed, round_stream, t - 1, first, n, p.edge_probability,
                                              log_absent, scratch, masked_er_ ? active_.data() : nullptr},
                         s);
          cuda::for_each(elements, gossip::ErStepBody{scratch, n, p.dim, from, to}, s);
        } else if (dropout_) {
          const std::uint64_t round_stream =
              gossip_subsequence(GossipStream::dropout, 0, std::uint64_t(t - 1));
          cuda::for_each(n * count,
                         gossip::DropoutMaskBody{p.seed, round_stream, first, n, p.dropout, active_.data()},
                         s);
          cuda::for_each(
              n * count,
              gossip::ActiveDegreesBody{offsets_.data(), columns_.data(), n, active_.data(), degree_.data()},
              s);
          cuda::for_each(elements,
                         gossip::DropoutStepBody{offsets_.data(), columns_.data(), n, p.dim, active_.data(),
                                                 degree_.data(), from, to},
                         s);
        } else {  // sequence: W_{(t - 1) mod L}
          const offset_t* round = offsets_.data() + ((t - 1) % length) * (n + 1);
          cuda::for_each(elements,
                         gossip::CsrMultiplyBody{round, columns_.data(), values_.data(), n, from, to}, s);
        }
        std::swap(from, to);
        if (point < points && p.times[static_cast<std::size_t>(point)] == t) record(from, point++);
      }
    }
    const std::size_t used = static_cast<std::size_t>(count * points);
    host_errors_.download(truth_.data(), noisy_.data(), used, s);
    if (er_)
      NETDP_CUDA_TRY(
          cudaMemcpyAsync(status_.data(), er_status_.data(), er_status_.bytes(), cudaMemcpyDeviceToHost, s));
    context_.stream.synchronize();
    for (std::int64_t r = 0; r < count; ++r)
      if (er_ && status_[static_cast<std::size_t>(r)] != 0)
        throw_er_failure(p, first + r, status_[static_cast<std::size_t>(r)], cap_);
    return host_errors_.view(used);
  }

 private:
  GossipSimVaryingProblem p_;
  const cuda::DeviceContext
      context_;  // device, guard and stream, from construction to the last member's destruction
  const std::int64_t points_;
  const bool ticks_, dropout_, er_, masked_er_;
  const std::int64_t cap_;
  DeviceBuffer<double> x_, xbar_, values_;
  DeviceBuffer<offset_t> offsets_;
  DeviceBuffer<node_t> columns_;
  DeviceBuffer<int> times_;
  DeviceBuffer<double> cur_, next_, noisy_average_, col_true_, col_noisy_, truth_, noisy_;
  DeviceBuffer<unsigned char> active_;
  DeviceBuffer<std::int32_t> degree_, er_pairs_, er_adjacency_, er_degree_, er_parent_, er_status_;
  DeviceBuffer<offset_t> er_offsets_;
  std::vector<std::int32_t> status_;
  DeviceBuffer<double> err_true_, err_noisy_, totals_;
  HostErrors host_errors_;
  CudaGossipSimRun run_;
};

}  // namespace

std::unique_ptr<GossipSimCudaEngine> gossip_sim_varying_cuda(const GossipSimVaryingProblem& p, int device,
                                                             std::int64_t runs, std::int64_t batch_runs,
                                                             std::int64_t memory_limit) {
  check_problem(p, runs);
  const std::int64_t n = p.n, dim = p.dim, points = static_cast<std::int64_t>(p.times.size());
  cuda::require_device(device);

  // ---- Batch size (docs/design.md principle 5): estimated before anything is allocated. ----
  const HostTables h = host_tables(p);
  const std::int64_t fixed = static_cast<std::int64_t>(
      (p.x.size() + p.xbar.size() + h.values.size()) * sizeof(double) + h.offsets.size() * sizeof(offset_t) +
      h.columns.size() * sizeof(node_t) + p.times.size() * sizeof(int));
  const std::int64_t per_run = per_run_bytes(p, points);
  const std::string sizes = "n = " + std::to_string(n) + ", D = " + std::to_string(dim) + ", " +
                            std::to_string(points) + " recorded times";
  std::int64_t b = 0;
  {
    const cuda::DeviceGuard guard(device);
    b = choose_batch(device, fixed, per_run, runs, batch_runs, memory_limit, sizes, dim);
  }
  return std::make_unique<VaryingEngine>(p, device, h, runs, b, fixed, per_run);
}

}  // namespace netdp::kernels
