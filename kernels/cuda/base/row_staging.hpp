#pragma once
// Result rows from the device to a LossRowSink through two small pinned chunks (memory_plan::plan_staging:
// at most 256 MiB each), never through a pinned buffer as large as the device tile. Chunks are used in turn:
// the device -> host copy of one chunk, queued on the run's stream behind the kernels that produce the rows,
// overlaps the sink's work on the other chunk, and the sink's work on a tile's last chunks overlaps the next
// tile's kernels (queued before the host waits for those copies). Rows reach the sink in increasing order,
// possibly in more calls than there are tiles (LossRowSink takes any run of consecutive rows).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/memory_plan.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "netdp/ground/row_sink.hpp"

namespace netdp::kernels::cuda {

class RowStaging {
 public:
  /// Rows of n doubles, chunk_columns >= 1 rows per chunk, copies queued on `stream`.
  RowStaging(std::int64_t n, std::int64_t chunk_columns, cudaStream_t stream, LossRowSink& sink)
      : n_(n), chunk_columns_(chunk_columns), stream_(stream), sink_(sink) {
    for (Slot& slot : slots_) slot.rows = PinnedBuffer<double>(static_cast<std::size_t>(n * chunk_columns));
  }
  /// Copies still in flight land before the pinned chunks are freed (errors ignored: destructors do not
  /// throw). Chunks not yet handed over are dropped: this only happens when an exception unwinds the run.
  ~RowStaging() { (void)cudaStreamSynchronize(stream_); }
  RowStaging(const RowStaging&) = delete;
  RowStaging& operator=(const RowStaging&) = delete;

  /// Queues the copies of rows first .. first + cols - 1 from `block` (device, column-major n x cols, column
  /// j = row first + j); the block must be written on the same stream and not be overwritten before work
  /// queued later on it. Hands earlier chunks to the sink when their slot is needed again.
  void push(std::int64_t first, std::int64_t cols, const double* block) {
    for (std::int64_t j = 0; j < cols; j += chunk_columns_) {
      Slot& slot = slots_[next_];
      hand_over(slot);
      slot.first = first + j;
      slot.count = std::min(chunk_columns_, cols - j);
      const std::size_t bytes = static_cast<std::size_t>(n_ * slot.count) * sizeof(double);
      NETDP_CUDA_TRY(
          cudaMemcpyAsync(slot.rows.data(), block + j * n_, bytes, cudaMemcpyDeviceToHost, stream_));
      slot.copied.record(stream_);
      slot.pending = true;
      next_ = 1 - next_;
    }
  }

  /// Hands every chunk still pending to the sink, oldest first (after its copy has ended).
  void flush() {
    hand_over(slots_[next_]);
    hand_over(slots_[1 - next_]);
  }

  /// Pinned bytes held.
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(slots_[0].rows.bytes() + slots_[1].rows.bytes());
  }

 private:
  struct Slot {
    PinnedBuffer<double> rows;
    Event copied;  // recorded after the copy into `rows`
    std::int64_t first = 0, count = 0;
    bool pending = false;  // holds rows not yet handed to the sink
  };

  void hand_over(Slot& slot) {
    if (!slot.pending) return;
    slot.copied.synchronize();
    slot.pending = false;
    sink_.consume(static_cast<node_t>(slot.first), static_cast<node_t>(slot.count),
                  std::span<const double>(slot.rows.data(), static_cast<std::size_t>(n_ * slot.count)));
  }

  std::int64_t n_, chunk_columns_;
  cudaStream_t stream_;
  LossRowSink& sink_;
  static_assert(memory_plan::kStagingChunks == 2, "two chunks, used in turn");
  std::array<Slot, 2> slots_;
  int next_ = 0;  // the slot the next chunk goes to; with both pending, the older one
};

}  // namespace netdp::kernels::cuda
