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
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/dp_math.hpp"
#include "common/memory_plan.hpp"
#include "cuda/base/launch.cuh"
#include "cuda/base/memory_budget.hpp"
#include "cuda/base/radix_sort.cuh"
#include "cuda/base/stream.hpp"
#include "cuda/walk_sim_device.cuh"
#include "netdp/ground/errors.hpp"

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

/// The accounted-walk engine: the device state of one batch size as members, in reverse destruction order
/// (the device context first and gone last: the device stays current and the stream outlives the buffers).
class AccountedEngine final : public WalkAccountedCudaEngine {
 public:
  AccountedEngine(const WalkTables& model, const WalkRunSpec& p, int device, std::int64_t time_cap,
                  std::int64_t visit_cap, double nv, const WalkAccountingInputs& in)
      : model_(model),
        p_(p),
        in_(in),
        context_(device),
        n_(model.n),
        node_bits_(std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(model.n - 1))))),
        capacity_(in.known ? 2 * (p.steps - 1) : 0),
        model_buffers_(model, context_.stream.get()),
        lengths_(static_cast<std::size_t>(in.table_lengths)),
        host_table_(lengths_),
        filled_(lengths_ + 1, 0),
        used_host_(lengths_ + 1, 0),
        table_(lengths_),
        used_(zeros<std::uint8_t>(in.gaussian ? 0 : lengths_ + 1, context_.stream.get())),
        values_(in.utility ? in.values.size() : 0),
        first_bin_(walk::quantile_bin(4.9406564584124654e-324, in.log_base) - 1),
        bin_count_(walk::quantile_bin(DBL_MAX, in.log_base) + 2 - first_bin_),
        bin_counts_(zeros<Counter>(static_cast<std::size_t>(bin_count_), context_.stream.get())),
        bin_zero_(zeros<Counter>(1, context_.stream.get())),
        overflow_per_walk_(std::min<std::int64_t>(model.n, p.steps / (visit_cap + 1))) {
    const cudaStream_t s = context_.stream.get();
    if (in.gaussian && lengths_ > 0) {
      if (in.table.size() != lengths_)
        throw InvalidInput("walk_sim_accounted_cuda: the Gaussian cycle table must hold every length");
      std::copy(in.table.begin(), in.table.end(), host_table_.begin());
      table_.upload(std::span<const walk::CycleTerms>(host_table_), s);
    }
    if (in.utility) values_.upload(in.values, s);
    choose_batch_size();
    tallies_.emplace(n_, time_cap, visit_cap, nv, overflow_per_walk_ * batch_, s);
    const auto cells = static_cast<std::size_t>(n_) * static_cast<std::size_t>(batch_);
    first_ = DeviceBuffer<std::int64_t>(cells);
    last_ = DeviceBuffer<std::int64_t>(cells);
    count_run_ = DeviceBuffer<std::int64_t>(cells);
    last_send_ = DeviceBuffer<node_t>(cells);
    zero_sum_ = DeviceBuffer<double>(cells);
    zero_square_ = DeviceBuffer<double>(cells);
    zero_first_ = DeviceBuffer<double>(cells);
    const auto slots = static_cast<std::size_t>(capacity_) * static_cast<std::size_t>(batch_);
    keys_ = DeviceBuffer<std::uint64_t>(slots);
    record_values_ = DeviceBuffer<std::uint64_t>(slots);
    key_alternate_ = DeviceBuffer<std::uint64_t>(slots);
    value_alternate_ = DeviceBuffer<std::uint64_t>(slots);
    temp_ = DeviceBuffer<unsigned char>(temp_bytes_);
    cycles_ = DeviceBuffer<std::int64_t>(cells);
    shared_ = DeviceBuffer<double>(cells);
    pairs_ = DeviceBuffer<walk::PairLosses>(cells);
    const auto per_run = static_cast<std::size_t>(in.utility ? batch_ : 0);
    truth_ = DeviceBuffer<double>(per_run);
    noise_ = DeviceBuffer<double>(per_run);
    noises_ = DeviceBuffer<std::int64_t>(per_run);
    starts_ = DeviceBuffer<node_t>(p.per_walk_start ? static_cast<std::size_t>(batch_) : 0);
    run_.batch_runs = batch_;
    run_.device_bytes =
        per_walk() * batch_ + static_cast<std::int64_t>(temp_bytes_) +
        static_cast<std::int64_t>(model_buffers_.bytes()) + tallies_->bytes() +
        static_cast<std::int64_t>(table_.bytes() + values_.bytes() + bin_counts_.bytes() + starts_.bytes());
  }

  WalkSimCudaRun plan() const override { return run_; }

  std::vector<std::int64_t> missing_cycle_lengths(std::int64_t first_run, std::int64_t count,
                                                  std::span<const node_t> starts) override {
    if (in_.gaussian) return {};
    const cuda::DeviceGuard guard(context_.device);
    const cudaStream_t s = context_.stream.get();
    prepare(first_run, count, starts);
    AccountedBatch pass;
    pass.seed = p_.seed;
    pass.first_run = first_run;
    pass.count = count;
    pass.stride = batch_;
    pass.steps = p_.steps;
    pass.starts = starts_.size() > 0 ? starts_.data() : nullptr;
    pass.start_node = p_.start_node;
    pass.last = last_.data();
    pass.count_run = count_run_.data();
    const walk::ModelView m = model_buffers_.view(n_);
    for_kind(model_.kind, [&](auto kind) {
      cuda::for_each(count, walk::CycleLengthBody<kind.value>{m, pass, in_.table_lengths, used_.data()}, s);
    });
    NETDP_CUDA_TRY(
        cudaMemcpyAsync(used_host_.data(), used_.data(), used_.bytes(), cudaMemcpyDeviceToHost, s));
    NETDP_CUDA_TRY(cudaMemsetAsync(count_run_.data(), 0, count_run_.bytes(), s));
    context_.stream.synchronize();
    std::vector<std::int64_t> wanted;
    for (std::size_t len = 1; len <= lengths_; ++len)
      if (used_host_[len] != 0 && filled_[len] == 0) {
        wanted.push_back(static_cast<std::int64_t>(len));
        filled_[len] = 1;
      }
    return wanted;
  }

  void set_cycle_terms(std::span<const std::int64_t> lengths,
                       std::span<const walk::CycleTerms> terms) override {
    if (lengths.size() != terms.size()) throw InvalidInput("set_cycle_terms: one term per length");
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] < 1 || lengths[i] > in_.table_lengths)
        throw InvalidInput("set_cycle_terms: cycle length " + std::to_string(lengths[i]) +
                           " is not in the table");
      host_table_[static_cast<std::size_t>(lengths[i] - 1)] = terms[i];
    }
    if (lengths.empty()) return;
    const cuda::DeviceGuard guard(context_.device);
    table_.upload(std::span<const walk::CycleTerms>(host_table_), context_.stream.get());
  }

  WalkAccountedBatch run_batch(std::int64_t first_run, std::int64_t count, std::span<const node_t> starts,
                               WalkVisitTallies& tallies) override {
    const cuda::DeviceGuard guard(context_.device);
    const cudaStream_t s = context_.stream.get();
    const WalkRunSpec& p = p_;
    const std::int64_t n = n_, batch = batch_;
    prepare(first_run, count, starts);
    NETDP_CUDA_TRY(cudaMemsetAsync(last_send_.data(), 0xff, last_send_.bytes(), s));  // -1: nobody yet
    for (const DeviceBuffer<double>* sums : {&zero_sum_, &zero_square_, &zero_first_})
      NETDP_CUDA_TRY(cudaMemsetAsync(sums->data(), 0, sums->bytes(), s));
    const walk::ModelView m = model_buffers_.view(n);
    const walk::TallyView t = tallies_->view();
    const CycleTable cycle_table{table_.data(), static_cast<std::int64_t>(table_.size()), p.eps0, n};
    const SketchBins bins{bin_counts_.data(), bin_zero_.data(), first_bin_, bin_count_, in_.log_base};
    const ObserverOutputs outputs{cycles_.data(), shared_.data(), pairs_.data()};
    const AccountedBatch b{p.seed,
                           first_run,
                           count,
                           batch,
                           p.steps,
                           starts_.size() > 0 ? starts_.data() : nullptr,
                           p.start_node,
                           first_.data(),
                           last_.data(),
                           count_run_.data(),
                           last_send_.data(),
                           zero_sum_.data(),
                           zero_square_.data(),
                           zero_first_.data(),
                           keys_.data(),
                           record_values_.data(),
                           capacity_,
                           node_bits_,
                           static_cast<std::uint64_t>(batch) << (2 * node_bits_),
                           in_.utility ? values_.data() : nullptr,
                           in_.sigma_loc,
                           truth_.data(),
                           noise_.data(),
                           noises_.data()};
    for_kind(model_.kind, [&](auto kind) {
      if (in_.known)
        cuda::for_each(count, walk::AccountedWalkBody<kind.value, true>{m, b, cycle_table, t}, s);
      else
        cuda::for_each(count, walk::AccountedWalkBody<kind.value, false>{m, b, cycle_table, t}, s);
    });
    const std::int64_t records = count * capacity_;
    // The sort leaves the sorted records in either buffer of each pair (current); the other value buffer
    // is free and receives the pair losses.
    cuda::SortBuffers sorted{{keys_.data(), key_alternate_.data()},
                             {record_values_.data(), value_alternate_.data()}};
    cuda::sort_pairs(temp_.data(), temp_.bytes(), sorted, records, end_bit(batch), s);
    double* loss = reinterpret_cast<double*>(sorted.alternate_values());
    if (records > 0)
      cuda::for_each(records,
                     walk::PairLossBody{b, cycle_table, sorted.current_keys(), sorted.current_values(),
                                        records, p.delta, loss},
                     s);
    cuda::for_each(count * n,
                   walk::ObserverLossBody{b, n, sorted.current_keys(), loss, records, p.delta, bins, outputs},
                   s);
    tallies_->drain_overflow(tallies, s);  // synchronises

    const auto observers = static_cast<std::size_t>(count * n);
    host_cycles_ = download_vector(cycles_, observers, s);
    host_shared_ = download_vector(shared_, observers, s);
    host_pairs_ = download_vector(pairs_, observers, s);
    const auto runs = static_cast<std::size_t>(in_.utility ? count : 0);
    host_truth_ = download_vector(truth_, runs, s);
    host_noise_ = download_vector(noise_, runs, s);
    host_noises_ = download_vector(noises_, runs, s);
    context_.stream.synchronize();
    ++run_.batches;
    return {first_run,    count, host_cycles_, host_shared_, host_pairs_, host_truth_, host_noise_,
            host_noises_, {}};
  }

  void finish(WalkVisitTallies& tallies, WalkSketchBins& bins) override {
    const cuda::DeviceGuard guard(context_.device);
    const cudaStream_t s = context_.stream.get();
    tallies_->download_to(tallies, s);
    const std::vector<Counter> counts = download_vector(bin_counts_, bin_counts_.size(), s);
    const std::vector<Counter> zero = download_vector(bin_zero_, 1, s);
    context_.stream.synchronize();
    bins.first_bin = first_bin_;
    bins.counts.assign(counts.begin(), counts.end());
    bins.zero = zero[0];
  }

 private:
  /// Per walk: node state 52 n, outputs 56 n, records 32 per slot (keys and values, each with the alternate
  /// buffer of the DoubleBuffer sort), utility, start, overflow. The sort's temporary storage (small, not per
  /// record) is added once the batch is known.
  std::int64_t per_walk() const { return 52 * n_ + 56 * n_ + 32 * capacity_ + 32 + 8 * overflow_per_walk_; }

  int end_bit(std::int64_t b) const {
    return 2 * node_bits_ + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(b)));
  }

  /// batch_ and temp_bytes_: p.batch_runs, or as many walks as the one device share holds with the sort.
  void choose_batch_size() {
    const cudaStream_t s = context_.stream.get();
    // Room for k = batch (the sentinel) in the key: bit_width(batch) <= 63 - 2 node_bits.
    const std::int64_t key_limit =
        std::min(std::int64_t{1} << 40, (std::int64_t{1} << (63 - 2 * node_bits_)) - 1);
    std::int64_t batch = p_.batch_runs > 0 ? std::min(p_.batch_runs, p_.runs) : 0;
    if (batch == 0) {
      const std::int64_t budget =
          cuda::device_memory_budget(context_.device, memory_plan::kDeviceMemoryShare).bytes;
      batch = std::min({budget / per_walk(), p_.runs, key_limit});
      while (batch > 0 && capacity_ > 0) {  // the sort's temporary storage grows with the records
        temp_bytes_ = cuda::sort_pairs_temp_bytes(batch * capacity_, end_bit(batch), s);
        if (batch * per_walk() + static_cast<std::int64_t>(temp_bytes_) <= budget) break;
        batch = batch * 3 / 4;
      }
      if (batch < 1)
        throw InsufficientMemory(
            "walk-sim on CUDA: one accounted walk of T = " + std::to_string(p_.steps) +
            " positions on n = " + std::to_string(n_) + " nodes needs " + std::to_string(per_walk()) +
            " bytes of device memory (and the sort's) but only " + std::to_string(budget) +
            " bytes are available (" + std::to_string(memory_plan::kDeviceMemoryPercent) +
            "% of the free memory of CUDA device " + std::to_string(context_.device) + "); use device cpu");
    }
    if (batch > key_limit)
      throw InvalidParameter("batch-runs",
                             "batch-runs " + std::to_string(batch) +
                                 " is too large for walk-sim on CUDA with n = " + std::to_string(n_) +
                                 " (record keys hold at most " + std::to_string(key_limit) + " walks)");
    if (capacity_ > 0 && temp_bytes_ == 0)
      temp_bytes_ = cuda::sort_pairs_temp_bytes(batch * capacity_, end_bit(batch), s);
    batch_ = batch;
  }

  /// The batch's start nodes (once per batch) and zeroed per-walk visit counts.
  void prepare(std::int64_t first_run, std::int64_t count, std::span<const node_t> starts) {
    const cudaStream_t s = context_.stream.get();
    if (starts_.size() > 0 && prepared_first_ != first_run) upload_starts(starts, count, starts_, s);
    prepared_first_ = first_run;
    NETDP_CUDA_TRY(cudaMemsetAsync(count_run_.data(), 0, count_run_.bytes(), s));
  }

  const WalkTables model_;
  const WalkRunSpec p_;
  const WalkAccountingInputs in_;
  const cuda::DeviceContext
      context_;  // device, guard and stream, from construction to the last member's destruction
  const std::int64_t n_;
  const int node_bits_;
  const std::int64_t capacity_;  // records per walk, at most
  // Fixed: model, cycle table, values, sketch bins covering every positive double; the tallies' overflow list
  // grows with the batch.
  const ModelBuffers model_buffers_;
  const std::size_t lengths_;
  std::vector<walk::CycleTerms> host_table_;
  std::vector<std::uint8_t> filled_, used_host_;
  DeviceBuffer<walk::CycleTerms> table_;
  DeviceBuffer<std::uint8_t> used_;
  DeviceBuffer<double> values_;
  const std::int64_t first_bin_, bin_count_;
  DeviceBuffer<Counter> bin_counts_, bin_zero_;
  const std::int64_t overflow_per_walk_;
  std::int64_t batch_ = 0;
  std::size_t temp_bytes_ = 0;
  std::optional<TallyBuffers> tallies_;
  DeviceBuffer<std::int64_t> first_, last_, count_run_;
  DeviceBuffer<node_t> last_send_;
  DeviceBuffer<double> zero_sum_, zero_square_, zero_first_;
  DeviceBuffer<std::uint64_t> keys_, record_values_, key_alternate_, value_alternate_;
  DeviceBuffer<unsigned char> temp_;
  DeviceBuffer<std::int64_t> cycles_;
  DeviceBuffer<double> shared_;
  DeviceBuffer<walk::PairLosses> pairs_;
  DeviceBuffer<double> truth_, noise_;
  DeviceBuffer<std::int64_t> noises_;
  DeviceBuffer<node_t> starts_;
  std::int64_t prepared_first_ = -1;
  std::vector<std::int64_t> host_cycles_;
  std::vector<double> host_shared_;
  std::vector<walk::PairLosses> host_pairs_;
  std::vector<double> host_truth_, host_noise_;
  std::vector<std::int64_t> host_noises_;
  WalkSimCudaRun run_;
};

}  // namespace

std::unique_ptr<WalkAccountedCudaEngine> walk_sim_accounted_cuda(const WalkTables& model,
                                                                 const WalkRunSpec& p, int device,
                                                                 std::int64_t time_cap,
                                                                 std::int64_t visit_cap, double nv,
                                                                 const WalkAccountingInputs& in) {
  if (!in.gaussian && p.steps - 1 > in.table_lengths)
    throw InvalidInput("walk_sim_accounted_cuda: the histogram mechanism needs a cycle table up to T - 1");
  return std::make_unique<AccountedEngine>(model, p, device, time_cap, visit_cap, nv, in);
}

}  // namespace netdp::kernels
