// CUDA backend of the Monte Carlo walk engine with the empirical accounting of MATH_SPEC 4.1.3 fused in
// (docs/walk_sim.md "CUDA (accounted walks)"). Three kernels per batch of walks, the CPU's RunAccountant
// split where its work is independent:
//   1. one thread per walk: the CPU's path (walk_sim_device.cuh), the visit tallies, per observer v the sums
//      of the c = 0 cycle terms (in time order, as the CPU), and one record per boundary participant
//      (key = walk, v, u; value = m, c) in the walk's own segment;
//   2. a stable radix sort of the records by key (CUB), so a pair's records stay in time order, and one
//      thread per pair that adds its corrections to v's sums in that order and takes C4 (the CPU's
//      finish, whose sort is stable by key too: the sums are bit for bit the CPU's);
//   3. one thread per (walk, observer): v's shared loss, its corrected pairs in increasing u (PairLosses, as
//      the CPU adds them), the quantile sketch's bins (integer atomics).
// The host then folds every observer into the run's statistics with the CPU's own code, in run order.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dp_math.hpp"
#include "cuda/base/handles.hpp"
#include "cuda/base/memory_budget.hpp"
#include "cuda/walk_sim_device.cuh"
#include "netdp/core/error.hpp"

namespace netdp::kernels {
namespace {

using namespace walk_device;

constexpr int kBlock = 256;
constexpr double kFreeMemoryShare = 0.8;  // of the free device memory, for one batch

struct CycleTable {
  const walk::CycleTerms* terms = nullptr;  // m = 1 .. size
  std::int64_t size = 0;
  double eps0 = 0;
  std::int64_t n = 0;
};

/// The C4 terms of a cycle of length m: the host's table, or (Gaussian mechanism only, m beyond the table)
/// the same formula with the device's libm (a few ulps from the CPU).
__device__ walk::CycleTerms cycle_terms(const CycleTable& t, std::int64_t m) {
  if (m <= t.size) return t.terms[m - 1];
  return walk::gaussian_cycle_terms(t.eps0, m, t.n);
}

/// PhiloxStream::next_normal_pair().first at offset 4 t of the run's noise stream, with the host's formulas.
__device__ double position_noise(std::uint64_t seed, std::uint64_t run, std::int64_t t) {
  Philox s;
  curand_init(seed, walk_subsequence(WalkStream::noise, run), 4 * static_cast<std::uint64_t>(t), &s);
  const std::uint64_t x0 = curand(&s), y0 = curand(&s), x1 = curand(&s), y1 = curand(&s);
  const double u = __dadd_rn(__dmul_rn(static_cast<double>(x0 ^ (y0 << 21)), 0x1p-53), 0x1p-54);
  const double v = __dadd_rn(__dmul_rn(static_cast<double>(x1 ^ (y1 << 21)), 0x1p-53), 0x1p-54);
  constexpr double kTwoPi = 2.0 * 3.141592653589793238462643383279502884;  // as in next_normal_pair
  return __dmul_rn(sqrt(__dmul_rn(-2.0, log(u))), sin(__dmul_rn(kTwoPi, v)));
}

// One launch: walks first_run .. first_run + count - 1; per-node state at v * stride + k for walk k.
struct AccountedBatch {
  std::uint64_t seed = 0;
  std::int64_t first_run = 0, count = 0, stride = 0, steps = 0;
  const node_t* starts = nullptr;  // per walk; nullptr: every walk starts at start_node
  node_t start_node = 0;
  std::int64_t *first = nullptr, *last = nullptr, *count_run = nullptr;  // as the plain walks
  node_t* last_send = nullptr;  // whom v sent the token to at its last visit (-1: nobody yet)
  double *zero_sum = nullptr, *zero_square = nullptr, *zero_first = nullptr;  // c = 0 sums per observer
  std::uint64_t *keys = nullptr, *values = nullptr;  // records: walk k's segment [k capacity, (k+1) capacity)
  std::int64_t capacity = 0;
  int node_bits = 1;                 // key = k << 2 node_bits | v << node_bits | u
  std::uint64_t sentinel = 0;        // key of an unused slot (k = stride): after every real key
  const double* values_x = nullptr;  // utility: x_v (nullptr: no utility)
  double sigma_loc = 0;
  double *truth = nullptr, *noise = nullptr;
  std::int64_t* noises = nullptr;

  __device__ node_t start(std::int64_t k) const { return starts != nullptr ? starts[k] : start_node; }
  __device__ std::uint64_t key(std::int64_t k, node_t v, node_t u) const {
    return static_cast<std::uint64_t>(k) << (2 * node_bits) | static_cast<std::uint64_t>(v) << node_bits |
           static_cast<std::uint64_t>(u);
  }
};

/// Kernel 1: the CPU's RunVisitor<true, kKnown> for one walk per thread.
template <WalkKind kKind, bool kKnown>
__global__ void __launch_bounds__(kBlock)
    accounted_walks(const DeviceWalk m, const AccountedBatch b, const CycleTable table, DeviceTallies out) {
  const std::int64_t k = walk_index();
  if (k >= b.count) return;
  WalkThread w(k, b.first_run, b.stride, b.seed);
  const bool ring = kKind == WalkKind::directed_ring;
  double truth = 0, noise = 0;
  std::int64_t noises = 0;
  const auto position = [&](std::int64_t t, node_t v) {  // private summation (MATH_SPEC 4.1 / 3.1)
    if (b.values_x == nullptr) return;
    truth += b.values_x[v];
    if (ring && t % (m.n - 1) != 0) return;  // Alg 5.1: noise once every n - 1 hops on the ring
    ++noises;
    noise = __dadd_rn(noise, __dmul_rn(b.sigma_loc, position_noise(b.seed, w.run, t)));
  };
  std::uint64_t* keys = b.keys + k * b.capacity;
  std::uint64_t* values = b.values + k * b.capacity;
  std::int64_t used = 0;
  const auto record = [&](node_t v, node_t u, std::int64_t length, unsigned c) {
    keys[used] = b.key(k, v, u);
    values[used++] = static_cast<std::uint64_t>(length) << 2 | c;
  };

  node_t current = b.start(k);
  std::size_t at = w.cell(current);
  b.first[at] = 0;
  b.last[at] = 0;
  b.count_run[at] = 1;
  position(0, current);
  for (std::int64_t t = 1; t < b.steps; ++t) {
    const node_t sender = current;
    current = next_node<kKind>(m, current, &w.words, b.seed, w.run, t);
    const node_t v = current;
    at = w.cell(v);
    const std::int64_t seen = b.count_run[at];
    const std::int64_t previous = seen > 0 ? b.last[at] : 0;
    tally_visit(out, seen, previous, t);
    if (seen == 0) b.first[at] = t;
    b.count_run[at] = seen + 1;
    b.last[at] = t;
    // The visit closes v's cycle of m = t - (previous visit, or 0) positions (RunAccountant::cycle).
    const std::int64_t length = t - previous;
    const walk::CycleTerms terms = cycle_terms(table, length);
    b.zero_sum[at] += terms.zero.eps;
    b.zero_square[at] += terms.zero.square;
    b.zero_first[at] += terms.zero.first;
    if constexpr (kKnown) {
      b.last_send[w.cell(sender)] = v;  // first: after a self-loop, v's receiver is v itself
      const node_t receiver = b.last_send[at];
      if (receiver >= 0 && receiver != v) record(v, receiver, length, receiver == sender ? 2u : 1u);
      if (sender != v && sender != receiver) record(v, sender, length, 1u);
    }
    position(t, v);
  }
  for (std::int64_t i = used; i < b.capacity; ++i) keys[i] = b.sentinel;
  if (b.values_x != nullptr) {
    b.truth[k] = truth;
    b.noise[k] = noise;
    b.noises[k] = noises;
  }
  std::int64_t unvisited = 0;
  Counter above = 0;
  for (node_t v = 0; v < m.n; ++v) {  // the visit tallies; the per-node state stays for kernels 2 and 3
    at = w.cell(v);
    const std::int64_t c = b.count_run[at];
    if (c == 0)
      ++unvisited;
    else
      above += fold_node(out, v, c, b.first[at], b.last[at]);
  }
  above += fold_unvisited(out, unvisited);
  if (above > 0) atomicAdd(out.above_nv, above);
}

/// First pass of a histogram batch: the same walks, marking every cycle length that occurs (up to
/// `lengths`), so that the host computes the SH3 levels of those lengths only (as the CPU's lazy memo does).
template <WalkKind kKind>
__global__ void __launch_bounds__(kBlock)
    cycle_lengths(const DeviceWalk m, const AccountedBatch b, std::int64_t lengths, std::uint8_t* used) {
  const std::int64_t k = walk_index();
  if (k >= b.count) return;
  WalkThread w(k, b.first_run, b.stride, b.seed);
  node_t current = b.start(k);
  b.count_run[w.cell(current)] = 1;
  b.last[w.cell(current)] = 0;
  for (std::int64_t t = 1; t < b.steps; ++t) {
    current = next_node<kKind>(m, current, &w.words, b.seed, w.run, t);
    const std::size_t at = w.cell(current);
    const std::int64_t length = t - (b.count_run[at] > 0 ? b.last[at] : 0);
    if (length <= lengths) used[length] = 1;  // racing threads store the same value
    b.count_run[at] = 1;
    b.last[at] = t;
  }
}

/// v's cycles in walk k: its visits but the start's position 0.
__device__ double cycles_of(const AccountedBatch& b, std::int64_t k, node_t v, std::size_t at) {
  return static_cast<double>(b.count_run[at] - (v == b.start(k) ? 1 : 0));
}

/// Kernel 2: one thread per sorted record; the first record of each pair sums the pair's corrections onto
/// v's shared sums (in time order) and writes the pair's C4 loss at its own index of `loss`.
__global__ void pair_losses(const AccountedBatch b, const CycleTable table, const std::uint64_t* keys,
                            const std::uint64_t* values, std::int64_t records, double delta, double* loss) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= records) return;
  const std::uint64_t key = keys[i];
  if (key >= b.sentinel || (i > 0 && keys[i - 1] == key)) return;
  const std::uint64_t mask = (std::uint64_t{1} << b.node_bits) - 1;
  const auto k = static_cast<std::int64_t>(key >> (2 * b.node_bits));
  const auto v = static_cast<node_t>((key >> b.node_bits) & mask);
  const std::size_t at =
      static_cast<std::size_t>(v) * static_cast<std::size_t>(b.stride) + static_cast<std::size_t>(k);
  double sum = b.zero_sum[at], square = b.zero_square[at], first = b.zero_first[at];
  for (std::int64_t j = i; j < records && keys[j] == key; ++j) {
    const walk::CycleTerms terms = cycle_terms(table, static_cast<std::int64_t>(values[j] >> 2));
    const walk::EpsTerms& known = (values[j] & 3) == 1 ? terms.one : terms.two;
    sum += known.eps - terms.zero.eps;
    square += known.square - terms.zero.square;
    first += known.first - terms.zero.first;
  }
  loss[i] = dp_math::heterogeneous_epsilon(cycles_of(b, k, v, at), sum, square, first, delta);
}

/// First index in [0, size) whose key is >= key.
__device__ std::int64_t lower_bound(const std::uint64_t* keys, std::int64_t size, std::uint64_t key) {
  std::int64_t lo = 0, hi = size;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

struct SketchBins {
  Counter* counts = nullptr;  // bins first_bin .. first_bin + size - 1
  Counter* zero = nullptr;
  std::int64_t first_bin = 0, size = 0;
  double log_base = 0;

  __device__ void add(double x, Counter weight) const {
    if (weight == 0) return;
    if (x <= 0) {
      atomicAdd(zero, weight);
      return;
    }
    const std::int64_t bin = walk::quantile_bin(x, log_base) - first_bin;
    atomicAdd(&counts[bin < 0 ? 0 : (bin >= size ? size - 1 : bin)], weight);
  }
};

struct ObserverOutputs {
  std::int64_t* cycles = nullptr;
  double* shared = nullptr;
  walk::PairLosses* pairs = nullptr;
};

/// Kernel 3: one thread per (walk k, observer v), index k n + v: the CPU's finish for one observer.
__global__ void observer_losses(const AccountedBatch b, std::int64_t n, const std::uint64_t* keys,
                                const double* loss, std::int64_t records, double delta, SketchBins bins,
                                ObserverOutputs out) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= b.count * n) return;
  const std::int64_t k = index / n;
  const auto v = static_cast<node_t>(index % n);
  const std::size_t at =
      static_cast<std::size_t>(v) * static_cast<std::size_t>(b.stride) + static_cast<std::size_t>(k);
  const double cycles = cycles_of(b, k, v, at);
  const double shared =
      dp_math::heterogeneous_epsilon(cycles, b.zero_sum[at], b.zero_square[at], b.zero_first[at], delta);
  walk::PairLosses pairs;
  if (records > 0) {
    const std::uint64_t low = b.key(k, v, 0), high = low + (std::uint64_t{1} << b.node_bits);
    const std::int64_t end = lower_bound(keys, records, high);
    for (std::int64_t j = lower_bound(keys, records, low); j < end; ++j) {
      if (j > 0 && keys[j - 1] == keys[j]) continue;  // not the first record of its pair
      pairs.add(loss[j]);
      bins.add(loss[j], 1);
    }
  }
  bins.add(shared, static_cast<Counter>(n - 1 - static_cast<std::int64_t>(pairs.count)));
  out.cycles[index] = static_cast<std::int64_t>(cycles);
  out.shared[index] = shared;
  out.pairs[index] = pairs;
}

template <class T>
std::vector<T> download_vector(const DeviceBuffer<T>& d, std::size_t size, cudaStream_t stream) {
  std::vector<T> host(size);
  if (size > 0)
    NETDP_CUDA_TRY(cudaMemcpyAsync(host.data(), d.data(), size * sizeof(T), cudaMemcpyDeviceToHost, stream));
  return host;
}

/// Temporary bytes of CUB's radix sort of `records` key-value pairs.
std::size_t sort_bytes(std::int64_t records, int end_bit, cudaStream_t s) {
  std::size_t bytes = 0;
  NETDP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
      static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr), records, 0, end_bit,
      s));
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

  // Per walk: node state 52 n, outputs 56 n, records 32 per slot (keys and values, sorted copies), utility,
  // start, overflow. The sort's temporary storage is added once the batch is known.
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
    const std::int64_t budget = cuda::device_memory_budget(device, kFreeMemoryShare).bytes;
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
          " bytes are available (" + std::to_string(static_cast<int>(kFreeMemoryShare * 100)) +
          "% of the free memory of CUDA device " + std::to_string(device) + "); use --device cpu");
  }
  if (batch > key_limit)
    throw InvalidInput("walk-sim on CUDA: --batch-runs " + std::to_string(batch) +
                       " is too large for n = " + std::to_string(n) + " (record keys hold at most " +
                       std::to_string(key_limit) + " walks)");
  if (capacity > 0 && temp_bytes == 0) temp_bytes = sort_bytes(batch * capacity, end_bit(batch), s);

  TallyBuffers tallies(n, time_cap, visit_cap, nv, overflow_per_walk * batch, s);
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  DeviceBuffer<std::int64_t> first(cells), last(cells), count_run(cells);
  DeviceBuffer<node_t> last_send(cells);
  DeviceBuffer<double> zero_sum(cells), zero_square(cells), zero_first(cells);
  const auto slots = static_cast<std::size_t>(capacity) * static_cast<std::size_t>(batch);
  DeviceBuffer<std::uint64_t> keys(slots), record_values(slots), sorted_keys(slots), sorted_values(slots);
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

  const DeviceWalk m = model_buffers.view(model.n);
  const DeviceTallies t = tallies.view();
  const CycleTable cycle_table{table.data(), static_cast<std::int64_t>(table.size()), p.eps0, n};
  const SketchBins bins{bin_counts.data(), bin_zero.data(), first_bin, bin_count, in.log_base};
  const ObserverOutputs outputs{cycles.data(), shared.data(), pairs.data()};
  double* loss = reinterpret_cast<double*>(record_values.data());  // free once sorted: the pair losses
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
    const auto blocks = static_cast<unsigned>((count + kBlock - 1) / kBlock);
    for_kind(model.kind, [&](auto kind) {
      cycle_lengths<kind.value><<<blocks, kBlock, 0, s>>>(m, pass, in.table_lengths, used.data());
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
    const auto walk_blocks = static_cast<unsigned>((count + kBlock - 1) / kBlock);
    for_kind(model.kind, [&](auto kind) {
      if (in.known)
        accounted_walks<kind.value, true><<<walk_blocks, kBlock, 0, s>>>(m, b, cycle_table, t);
      else
        accounted_walks<kind.value, false><<<walk_blocks, kBlock, 0, s>>>(m, b, cycle_table, t);
    });
    NETDP_CUDA_CHECK_LAUNCH();
    const std::int64_t records = count * capacity;
    if (records > 0) {
      std::size_t bytes = temp.bytes();
      NETDP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys.data(), sorted_keys.data(),
                                                     record_values.data(), sorted_values.data(), records, 0,
                                                     end_bit(batch), s));
      pair_losses<<<static_cast<unsigned>((records + kBlock - 1) / kBlock), kBlock, 0, s>>>(
          b, cycle_table, sorted_keys.data(), sorted_values.data(), records, p.delta, loss);
      NETDP_CUDA_CHECK_LAUNCH();
    }
    observer_losses<<<static_cast<unsigned>((count * n + kBlock - 1) / kBlock), kBlock, 0, s>>>(
        b, n, sorted_keys.data(), loss, records, p.delta, bins, outputs);
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
