#pragma once
// Private to the CPU twin of the walk engine (kernels/cpu/walk_sim_cpu*.cpp): one OpenMP thread's tallies,
// the arrays walk::tally_view reads, owned by that thread alone (plain additions, TallyView::exclusive).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "common/walk_sim_visit_stats.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp::kernels {

namespace walk_cpu {  // named: the engines' State structs hold these

using walk::Counter;

/// One thread's tallies (the arrays walk::tally_view reads) and its visit table.
struct ThreadTallies {
  std::vector<Counter> visits, returns, return_sum, hits, hit_sum, return_counts, hitting_counts, visit_dense;
  std::vector<std::int64_t> overflow;  // visit counts above visit_cap of the current walk
  std::vector<Counter> above_nv = {0}, overflow_used = {0};
  std::map<std::int64_t, std::int64_t> sparse;  // the drained overflow: visit count -> (node, run) pairs
  std::int64_t time_cap = 0, visit_cap = 0;
  double nv = 0;
  std::vector<Counter> block;          // compact: the thread's block memory (bins, maybe its table)
  std::vector<walk::VisitSlot> table;  // compact: the visit table outside the block memory
  std::vector<std::uint32_t> keys;     // hashed tables

  /// Zeroed tallies for n nodes, the caps and the bound, and room for the visit counts above visit_cap
  /// of one walk of T = steps positions.
  void size_for(node_t n, std::int64_t steps, std::int64_t time_cap_, std::int64_t visit_cap_, double nv_) {
    visits.assign(static_cast<std::size_t>(n), 0);
    returns = return_sum = hits = hit_sum = visits;
    return_counts.assign(static_cast<std::size_t>(time_cap_) + 2, 0);
    hitting_counts = return_counts;
    visit_dense.assign(static_cast<std::size_t>(visit_cap_) + 1, 0);
    overflow.assign(static_cast<std::size_t>(std::min<std::int64_t>(n, steps / (visit_cap_ + 1))), 0);
    time_cap = time_cap_;
    visit_cap = visit_cap_;
    nv = nv_;
  }
  walk::TallyView view() {
    walk::TallyView v = walk::tally_view(*this);
    v.exclusive = true;
    return v;
  }
  /// The walk's visit counts above visit_cap into `sparse`, the list emptied (the device's drain_overflow).
  void drain() {
    if (overflow_used[0] > overflow.size())
      throw std::logic_error("walk_sim_cpu: overflow list exceeded its bound");
    for (Counter i = 0; i < overflow_used[0]; ++i) ++sparse[overflow[i]];
    overflow_used[0] = 0;
  }
};

/// One thread's tallies added into `tallies` (sized when empty).
inline void add_thread_tallies(const ThreadTallies& t, WalkVisitTallies& tallies) {
  const auto add = [](std::vector<std::int64_t>& to, const std::vector<Counter>& from) {
    if (to.empty()) to.assign(from.size(), 0);
    for (std::size_t i = 0; i < from.size(); ++i) to[i] += static_cast<std::int64_t>(from[i]);
  };
  add(tallies.visits, t.visits);
  add(tallies.returns, t.returns);
  add(tallies.return_time_sum, t.return_sum);
  add(tallies.hits, t.hits);
  add(tallies.hitting_time_sum, t.hit_sum);
  add(tallies.return_counts, t.return_counts);
  add(tallies.hitting_counts, t.hitting_counts);
  for (std::size_t c = 0; c < t.visit_dense.size(); ++c)
    if (t.visit_dense[c] > 0)
      tallies.visit_counts[static_cast<std::int64_t>(c)] += static_cast<std::int64_t>(t.visit_dense[c]);
  for (const auto& [c, pairs] : t.sparse) tallies.visit_counts[c] += pairs;
  tallies.above_nv += static_cast<std::int64_t>(t.above_nv[0]);
}

/// The first exception of the threads of a parallel loop, rethrown after the loop (an exception must not
/// leave an OpenMP region); once one came, the iterations not started are skipped.
class LoopErrors {
 public:
  template <class F>
  void run(F&& f) {
    try {
      f();
    } catch (...) {
      const std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

/// The progress of a parallel loop of walks, in chunks of about 2^20 positions per thread and one callback at
/// a time; a false answer stops the walks not started.
class ChunkedProgress {
 public:
  explicit ChunkedProgress(const std::function<bool(std::int64_t)>& progress) : progress_(progress) {}
  /// Reports `pending` positions (and zeroes it) once a chunk is full, or at the thread's `last` call.
  void report(std::int64_t& pending, bool last) {
    if (!progress_ || pending == 0 || (!last && pending < kChunk)) return;
    const std::lock_guard lock(mutex_);
    if (!progress_(pending)) stopped_.store(true, std::memory_order_relaxed);
    pending = 0;
  }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  const std::function<bool(std::int64_t)>& progress_;
  std::mutex mutex_;
  std::atomic<bool> stopped_{false};
};

}  // namespace walk_cpu

}  // namespace netdp::kernels
