#pragma once
// What the twins suites share (docs/cuda_backend.md: CPU twin against CUDA twin, byte for byte): a byte
// comparison of two double vectors that names the first differing entry, and a sink that collects the loss
// rows a backend hands over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gossip_view_kernels.hpp"
#include "netdp/ground/row_sink.hpp"

namespace netdp::testing {

/// Equal bytes, and on failure the first differing entry (as row / observer when `row_width` > 0).
inline void expect_same_bytes(const std::vector<double>& cpu, const std::vector<double>& cuda,
                              const std::string& what, std::size_t row_width = 0) {
  ASSERT_EQ(cpu.size(), cuda.size()) << what;
  if (cpu.empty()) return;  // memcmp is not given the null pointer of an empty vector
  if (std::memcmp(cpu.data(), cuda.data(), cpu.size() * sizeof(double)) == 0) return;
  for (std::size_t i = 0; i < cpu.size(); ++i)
    if (std::memcmp(&cpu[i], &cuda[i], sizeof(double)) != 0) {
      const std::string where = row_width > 0 ? "row " + std::to_string(i / row_width) + " observer " +
                                                    std::to_string(i % row_width)
                                              : "index " + std::to_string(i);
      FAIL() << what << ": " << where << " CPU " << cpu[i] << " CUDA " << cuda[i] << " (difference "
             << cpu[i] - cuda[i] << ")";
    }
}

/// What two twins' view bases kept, observer by observer: rank, drops and the smallest residual (bytes).
inline void expect_same_reports(const std::vector<kernels::GossipViewObserver>& cpu,
                                const std::vector<kernels::GossipViewObserver>& cuda,
                                const std::string& what) {
  ASSERT_EQ(cpu.size(), cuda.size()) << what;
  for (std::size_t v = 0; v < cpu.size(); ++v) {
    EXPECT_EQ(cpu[v].rank, cuda[v].rank) << what << " observer " << v;
    EXPECT_EQ(cpu[v].dropped, cuda[v].dropped) << what << " observer " << v;
    EXPECT_EQ(std::memcmp(&cpu[v].smallest_kept, &cuda[v].smallest_kept, sizeof(double)), 0)
        << what << " observer " << v;
  }
}

/// A CUDA twin run in one batch and in the several batches a memory limit forces: the same bytes both ways
/// and as the CPU twin. run(limit, &batches) returns {CPU twin, CUDA twin}; same(a, b, what) compares them.
template <class Run, class Same>
void expect_batches_move_no_bit(const Run& run, const Same& same, std::int64_t limit) {
  std::int64_t one = 0, several = 0;
  const auto [cpu, whole] = run(0, &one);
  const auto [cpu_again, batched] = run(limit, &several);
  EXPECT_EQ(one, 1);
  EXPECT_GT(several, 2);
  same(cpu, batched, "batches of the memory limit");
  same(whole, batched, "one batch against several");
}

/// The rows a backend hands over, in place: row u at (u - first) n; every row once, in increasing order.
class CollectingSink final : public LossRowSink {
 public:
  CollectingSink(node_t n, node_t first, node_t count)
      : n_(n), first_(first), next_(first), rows_(static_cast<std::size_t>(count) * n) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override {
    EXPECT_EQ(first_source, next_);
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(count) * n_);
    ASSERT_LE(static_cast<std::size_t>(first_source - first_ + count) * n_, rows_.size());
    std::copy(rows.begin(), rows.end(),
              rows_.begin() + static_cast<std::ptrdiff_t>(first_source - first_) * n_);
    next_ = first_source + count;
  }
  const std::vector<double>& rows() const { return rows_; }
  node_t next() const { return next_; }

 private:
  node_t n_, first_, next_;
  std::vector<double> rows_;
};

}  // namespace netdp::testing
