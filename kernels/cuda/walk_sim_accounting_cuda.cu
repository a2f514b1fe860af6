// CUDA backend of the Monte Carlo walk engine with the empirical accounting of docs/math.md §4.1.3 fused in
// (docs/walk_sim.md "CUDA (accounted walks)"). Three launches per batch of walks, the CPU's RunAccountant
// split where its work is independent; every per-thread body is in common/walk_sim_bodies.hpp (the bodies
// the device-bodies tests run on the host), launched here by device_for_each:
//   1. walk::AccountedWalkBody, one thread per walk: the CPU's path, the visit tallies, per observer v the
//      sums of the c = 0 cycle terms (in time order, as the CPU), and one record per boundary participant
//      (key = walk, v, u; value = m, c) in the walk's own segment;
//   2. a stable radix sort of the records by key (CUB), so a pair's records stay in time order, and
//      walk::PairLossBody, one thread per pair, that adds its corrections to v's sums in that order and
//      takes C4 (the CPU's finish, whose sort is stable by key too: the sums are bit for bit the CPU's);
//   3. walk::ObserverLossBody, one thread per (walk, observer): v's shared loss, its corrected pairs in
//      increasing u (PairLosses, as the CPU adds them), the quantile sketch's bins (integer atomics).
// The host then folds every observer into the run's statistics with the CPU's own code, in run order.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/memory_plan.hpp"
#include "common/dp_math.hpp"
#include "cuda/base/handles.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/walk_sim_device.cuh"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

using namespace walk_device;

using walk::AccountedBatch;
using walk::CycleTable;
using walk::ObserverOutputs;
using walk::SketchBins;


template <class T>
std::vector<T> download_vector(const DeviceBuffer<T>& d, std::size_t size, cudaStream_t stream) {
  std::vector<T> host(size);
  if (size > 0)
    NETDP_CUDA_TRY(cudaMemcpyAsync(host.data(), d.data(), size * sizeof(T), cudaMemcpyDeviceToHost, stream));
  return host;
}

/// Temporary bytes of CUB's radix sort of `records` key-value pairs with the DoubleBuffer overload: the two
/// key and two value buffers are ours (32 bytes per record in all), the temporary storage holds only CUB's
/// per-block counters. (The overload with separate input and output arrays allocates its own alternate
/// buffers inside the temporary storage: 16 bytes more per record, 48 in all.)
std::size_t sort_bytes(std::int64_t records, int end_bit, cudaStream_t s) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr), values(nullptr, nullptr);
  NETDP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, records, 0, end_bit, s));
  return bytes;
}

}  // namespace

WalkSimCudaRun walk_sim_accounted_cuda(const WalkModel& model, const WalkSimParams& p, int device,
                                       std::int64_t time_cap, std::int64_t visit_cap, double nv,
                                       const WalkAccountingInputs& in, WalkVisitTallies& tallies_out,
                                       WalkSketchBins& bins_out, const WalkAccountedSink& sink,
                                       const WalkSimProgress& progress) {
  if (!p.accounting || p.save_paths)
    throw InvalidInput("walk_sim_accounted_cuda: accounted walks only (no saved paths)");
  if (!in.gaussian && p.steps - 1 > in.table_lengths)
    throw InvalidInput("walk_sim_accounted_cuda: the histogram mechanism needs a cycle table up to T - 1");
  cuda::DeviceGuard guard(device);
  cuda::Stream stream;
  const cudaStream_t s = stream.get();
  const std::int64_t n = model.n;
  const int node_bits = std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n - 1))));
  const std::int64_t capacity = in.known ? 2 * (p.steps - 1) : 0;  // records per walk, at most

  // Fixed: model, tallies (the overflow list grows with the batch: counted per walk), cycle table, values,
  // sketch bins covering every positive double.
  const ModelBuffers model_buffers(model, s);
  // The cycle table: Gaussian, every length now; histogram, the lengths each batch's first pass finds.
  const auto lengths = static_cast<std::size_t>(in.table_lengths);
  std::vector<walk::CycleTerms> host_table(lengths);
  std::vector<std::uint8_t> filled(lengths + 1, 0), used_host(lengths + 1, 0);
  std::vector<std::int64_t> wanted;
  if (in.gaussian) {
    for (std::int64_t len = 1; len <= in.table_lengths; ++len) wanted.push_back(len);
    in.fill(wanted, host_table);
  }
  DeviceBuffer<walk::CycleTerms> table(lengths);
  if (in.gaussian && lengths > 0) table.upload(std::span<const walk::CycleTerms>(host_table), s);
  DeviceBuffer<std::uint8_t> used = zeros<std::uint8_t>(in.gaussian ? 0 : lengths + 1, s);
  DeviceBuffer<double> values(in.utility ? in.values.size() : 0);
  if (in.utility) values.upload(in.values, s);
  const std::int64_t first_bin = walk::quantile_bin(4.9406564584124654e-324, in.log_base) - 1;
  const std::int64_t bin_count = walk::quantile_bin(DBL_MAX, in.log_base) + 2 - first_bin;
  DeviceBuffer<Counter> bin_counts = zeros<Counter>(static_cast<std::size_t>(bin_count), s);
  DeviceBuffer<Counter> bin_zero = zeros<Counter>(1, s);
  const std::int64_t overflow_per_walk = std::min<std::int64_t>(n, p.steps / (visit_cap + 1));

  // Per walk: node state 52 n, outputs 56 n, records 32 per slot (keys and values, each with the alternate
  // buffer of the DoubleBuffer sort), utility, start, overflow. The sort's temporary storage (small, not per
  // record) is added once the batch is known.
  const std::int64_t per_walk = 52 * n + 56 * n + 32 * capacity + 32 + 8 * overflow_per_walk;
  // Room for k = batch (the sentinel) in the key: bit_width(batch) <= 63 - 2 node_bits.
  const std::int64_t key_limit =
      std::min(std::int64_t{1} << 40, (std::int64_t{1} << (63 - 2 * node_bits)) - 1);
  std::int64_t batch = p.batch_runs > 0 ? std::min(p.batch_runs, p.runs) : 0;
  std::size_t temp_bytes = 0;
  const auto end_bit = [&](std::int64_t b) {
    return 2 * node_bits + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(b)));
  };
  if (batch == 0) {
    const std::int64_t budget = cuda::device_memory_budget(device, memory_plan::kDeviceMemoryShare).bytes;
    batch = std::min({budget / per_walk, p.runs, key_limit});
    while (batch > 0 && capacity > 0) {  // the sort's temporary storage grows with the records
      temp_bytes = sort_bytes(batch * capacity, end_bit(batch), s);
      if (batch * per_walk + static_cast<std::int64_t>(temp_bytes) <= budget) break;
      batch = batch * 3 / 4;
    }
    if (batch < 1)
      throw InsufficientMemory(
          "walk-sim on CUDA: one accounted walk of T = " + std::to_string(p.steps) +
          " positions on n = " + std::to_string(n) + " nodes needs " + std::to_string(per_walk) +
          " bytes of device memory (and the sort's) but only " + std::to_string(budget) +
          " bytes are available (" + std::to_string(memory_plan::kDeviceMemoryPercent) +
          "% of the free memory of CUDA device " + std::to_string(device) + "); use device cpu");
  }
  if (batch > key_limit)
    throw InvalidParameter("batch-runs",
                           "batch-runs " + std::to_string(batch) +
                               " is too large for walk-sim on CUDA with n = " + std::to_string(n) +
                               " (record keys hold at most " + std::to_string(key_limit) + " walks)");
  if (capacity > 0 && temp_bytes == 0) temp_bytes = sort_bytes(batch * capacity, end_bit(batch), s);

  TallyBuffers tallies(n, time_cap, visit_cap, nv, overflow_per_walk * batch, s);
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  DeviceBuffer<std::int64_t> first(cells), last(cells), count_run(cells);
  DeviceBuffer<node_t> last_send(cells);
  DeviceBuffer<double> zero_sum(cells), zero_square(cells), zero_first(cells);
  const auto slots = static_cast<std::size_t>(capacity) * static_cast<std::size_t>(batch);
  DeviceBuffer<std::uint64_t> keys(slots), record_values(slots), key_alternate(slots), value_alternate(slots);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  DeviceBuffer<std::int64_t> cycles(cells);
  DeviceBuffer<double> shared(cells);
  DeviceBuffer<walk::PairLosses> pairs(cells);
  const auto per_run = static_cast<std::size_t>(in.utility ? batch : 0);
  DeviceBuffer<double> truth(per_run), noise(per_run);
  DeviceBuffer<std::int64_t> noises(per_run);
  const bool per_walk_start = p.start.kind != StartKind::node;
  DeviceBuffer<node_t> starts(per_walk_start ? static_cast<std::size_t>(batch) : 0);

  WalkSimCudaRun run;
  run.batch_runs = batch;
  run.device_bytes =
      per_walk * batch + static_cast<std::int64_t>(temp_bytes) + model_buffers.bytes() + tallies.bytes() +
      static_cast<std::int64_t>(table.bytes() + values.bytes() + bin_counts.bytes() + starts.bytes());

  const walk::ModelView m = model_buffers.view(model.n);
  const walk::TallyView t = tallies.view();
  const CycleTable cycle_table{table.data(), static_cast<std::int64_t>(table.size()), p.eps0, n};
  const SketchBins bins{bin_counts.data(), bin_zero.data(), first_bin, bin_count, in.log_base};
  const ObserverOutputs outputs{cycles.data(), shared.data(), pairs.data()};
  // Histogram: walk the batch once to find its cycle lengths, compute the new ones on the host, upload.
  const auto fill_used_lengths = [&](std::int64_t first_run, std::int64_t count) {
    AccountedBatch pass;
    pass.seed = p.seed;
    pass.first_run = first_run;
    pass.count = count;
    pass.stride = batch;
    pass.steps = p.steps;
    pass.starts = per_walk_start ? starts.data() : nullptr;
    pass.start_node = p.start.node;
    pass.last = last.data();
    pass.count_run = count_run.data();
    for_kind(model.kind, [&](auto kind) {
      device_for_each<<<cuda::grid_for(count), cuda::kThreads, 0, s>>>(
          count, walk::CycleLengthBody<kind.value>{m, pass, in.table_lengths, used.data()});
    });
    NETDP_CUDA_CHECK_LAUNCH();
    NETDP_CUDA_TRY(cudaMemcpyAsync(used_host.data(), used.data(), used.bytes(), cudaMemcpyDeviceToHost, s));
    NETDP_CUDA_TRY(cudaMemsetAsync(count_run.data(), 0, count_run.bytes(), s));
    stream.synchronize();
    wanted.clear();
    for (std::size_t len = 1; len <= lengths; ++len)
      if (used_host[len] != 0 && filled[len] == 0) {
        wanted.push_back(static_cast<std::int64_t>(len));
        filled[len] = 1;
      }
    if (wanted.empty()) return;
    in.fill(wanted, host_table);
    table.upload(std::span<const walk::CycleTerms>(host_table), s);
  };
  std::vector<node_t> host_starts;
  for (std::int64_t first_run = 0; first_run < p.runs; first_run += batch) {
    const std::int64_t count = std::min(batch, p.runs - first_run);
    if (per_walk_start) upload_starts(model, p, first_run, count, host_starts, starts, s);
    NETDP_CUDA_TRY(cudaMemsetAsync(count_run.data(), 0, count_run.bytes(), s));
    if (!in.gaussian) fill_used_lengths(first_run, count);
    NETDP_CUDA_TRY(cudaMemsetAsync(last_send.data(), 0xff, last_send.bytes(), s));  // -1: nobody yet
    for (const DeviceBuffer<double>* sums : {&zero_sum, &zero_square, &zero_first})
      NETDP_CUDA_TRY(cudaMemsetAsync(sums->data(), 0, sums->bytes(), s));
    const AccountedBatch b{p.seed,
                           first_run,
                           count,
                           batch,
                           p.steps,
                           per_walk_start ? starts.data() : nullptr,
                           p.start.node,
                           first.data(),
                           last.data(),
                           count_run.data(),
                           last_send.data(),
                           zero_sum.data(),
                           zero_square.data(),
                           zero_first.data(),
                           keys.data(),
                           record_values.data(),
                           capacity,
                           node_bits,
                           static_cast<std::uint64_t>(batch) << (2 * node_bits),
                           in.utility ? values.data() : nullptr,
                           in.sigma_loc,
                           truth.data(),
                           noise.data(),
                           noises.data()};
    for_kind(model.kind, [&](auto kind) {
      if (in.known)
        device_for_each<<<cuda::grid_for(count), cuda::kThreads, 0, s>>>(
            count, walk::AccountedWalkBody<kind.value, true>{m, b, cycle_table, t});
      else
        device_for_each<<<cuda::grid_for(count), cuda::kThreads, 0, s>>>(
            count, walk::AccountedWalkBody<kind.value, false>{m, b, cycle_table, t});
    });
    NETDP_CUDA_CHECK_LAUNCH();
    const std::int64_t records = count * capacity;
    // The sort leaves the sorted records in either buffer of each pair (Current()); the other value buffer
    // is free and receives the pair losses.
    cub::DoubleBuffer<std::uint64_t> sorted_keys(keys.data(), key_alternate.data()),
        sorted_values(record_values.data(), value_alternate.data());
    if (records > 0) {
      std::size_t bytes = temp.bytes();
      NETDP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, sorted_keys, sorted_values, records,
                                                     0, end_bit(batch), s));
    }
    double* loss = reinterpret_cast<double*>(sorted_values.Alternate());
    if (records > 0) {
      device_for_each<<<cuda::grid_for(records), cuda::kThreads, 0, s>>>(
          records, walk::PairLossBody{b, cycle_table, sorted_keys.Current(), sorted_values.Current(), records,
                                      p.delta, loss});
      NETDP_CUDA_CHECK_LAUNCH();
    }
    device_for_each<<<cuda::grid_for(count * n), cuda::kThreads, 0, s>>>(
        count * n,
        walk::ObserverLossBody{b, n, sorted_keys.Current(), loss, records, p.delta, bins, outputs});
    NETDP_CUDA_CHECK_LAUNCH();
    tallies.drain_overflow(tallies_out, s);  // synchronises

    const auto observers = static_cast<std::size_t>(count * n);
    const std::vector<std::int64_t> host_cycles = download_vector(cycles, observers, s);
    const std::vector<double> host_shared = download_vector(shared, observers, s);
    const std::vector<walk::PairLosses> host_pairs = download_vector(pairs, observers, s);
    const auto runs = static_cast<std::size_t>(in.utility ? count : 0);
    const std::vector<double> host_truth = download_vector(truth, runs, s),
                              host_noise = download_vector(noise, runs, s);
    const std::vector<std::int64_t> host_noises = download_vector(noises, runs, s);
    stream.synchronize();
    sink({first_run, count, host_cycles, host_shared, host_pairs, host_truth, host_noise, host_noises});
    ++run.batches;
    if (progress) progress(double(first_run + count) / double(p.runs));
  }
  tallies.download_to(tallies_out, s);
  const std::vector<Counter> counts = download_vector(bin_counts, bin_counts.size(), s);
  const std::vector<Counter> zero = download_vector(bin_zero, 1, s);
  stream.synchronize();
  bins_out.first_bin = first_bin;
  bins_out.counts.assign(counts.begin(), counts.end());
  bins_out.zero = zero[0];
  return run;
}

}  // namespace netdp::kernels
