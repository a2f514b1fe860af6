#pragma once
// Helpers of the walk engine's device-bodies tests (test_walk_sim_bodies.cpp,
// test_walk_sim_visit_stats_bodies.cpp): the tallies of the device's TallyBuffers on the host, and their
// comparison with the CPU engine's WalkSimResult.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/walk_sim_bodies.hpp"
#include "netdp/dp/concentration.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace netdp::walk_bodies_test {

namespace walk = kernels::walk;
using walk::Counter;

constexpr std::int64_t kTimeCap = std::int64_t{1} << 16;   // walk_sim's histogram caps
constexpr std::int64_t kVisitCap = std::int64_t{1} << 20;  // (src/simulation/walk_sim.cpp)

/// A walk model and the start of its walks, named for the failure messages; `steps`, where the suite lets
/// each case set the walk length.
struct WalkCase {
  std::string what;
  WalkModel model;
  WalkStart start;
  std::int64_t steps = 0;
};

inline walk::ModelView view(const WalkModel& m) {
  return {m.n, m.offsets.data(), m.targets.data(), m.thresholds.data()};
}

inline WalkSimParams params(std::int64_t steps, std::int64_t runs, bool accounting) {
  WalkSimParams p;
  p.steps = steps;
  p.runs = runs;
  p.seed = 20240611;
  p.accounting = accounting;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

// What the device's TallyBuffers hold, on the host.
struct HostTallies {
  std::vector<Counter> visits, returns, return_sum, hits, hit_sum, return_counts, hitting_counts, visit_dense;
  std::vector<std::int64_t> overflow;
  std::vector<Counter> above_nv = {0}, overflow_used = {0};  // one counter each
  std::int64_t time_cap, visit_cap;
  double nv;

  HostTallies(std::int64_t n, std::int64_t time_cap_, std::int64_t visit_cap_, double nv_,
              std::int64_t overflow_capacity)
      : visits(static_cast<std::size_t>(n)),
        returns(visits),
        return_sum(visits),
        hits(visits),
        hit_sum(visits),
        return_counts(static_cast<std::size_t>(time_cap_) + 2),
        hitting_counts(return_counts),
        visit_dense(static_cast<std::size_t>(visit_cap_) + 1),
        overflow(static_cast<std::size_t>(overflow_capacity)),
        time_cap(time_cap_),
        visit_cap(visit_cap_),
        nv(nv_) {}

  walk::TallyView view() { return walk::tally_view(*this); }
  // TallyBuffers::drain_overflow: the batch's counts above visit_cap into a map, the list emptied.
  void drain(std::map<std::int64_t, std::int64_t>& sparse) {
    ASSERT_LE(overflow_used[0], overflow.size());
    for (Counter i = 0; i < overflow_used[0]; ++i) ++sparse[overflow[i]];
    overflow_used[0] = 0;
  }
};

inline std::vector<std::int64_t> as_int(const std::vector<Counter>& v) {
  return {v.begin(), v.end()};
}

// A histogram's counts as walk_sim reports them (fill_histogram): up to the last non-zero bin <= cap.
inline std::vector<std::int64_t> trimmed(const std::vector<Counter>& counts) {
  std::size_t last = 0;
  for (std::size_t t = 1; t + 1 < counts.size(); ++t)
    if (counts[t] > 0) last = t;
  return {counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(last) + 1};
}

inline void expect_cpu_tallies(const WalkSimResult& cpu, HostTallies& h,
                               std::map<std::int64_t, std::int64_t> sparse, const std::string& what) {
  EXPECT_EQ(as_int(h.visits), cpu.visits) << what;
  EXPECT_EQ(as_int(h.returns), cpu.returns) << what;
  EXPECT_EQ(as_int(h.return_sum), cpu.return_time_sum) << what;
  EXPECT_EQ(as_int(h.hits), cpu.hits) << what;
  EXPECT_EQ(as_int(h.hit_sum), cpu.hitting_time_sum) << what;
  EXPECT_EQ(trimmed(h.return_counts), cpu.return_times.counts) << what;
  EXPECT_EQ(static_cast<std::int64_t>(h.return_counts.back()), cpu.return_times.overflow) << what;
  EXPECT_EQ(trimmed(h.hitting_counts), cpu.hitting_times.counts) << what;
  EXPECT_EQ(static_cast<std::int64_t>(h.hitting_counts.back()), cpu.hitting_times.overflow) << what;
  for (std::size_t c = 0; c < h.visit_dense.size(); ++c)
    if (h.visit_dense[c] > 0)
      sparse[static_cast<std::int64_t>(c)] += static_cast<std::int64_t>(h.visit_dense[c]);
  EXPECT_EQ(sparse, cpu.visit_counts) << what;
  EXPECT_EQ(static_cast<std::int64_t>(h.above_nv[0]), cpu.visit_counts_above_nv) << what;
}

inline double cpu_nv(const WalkModel& m, const WalkSimParams& p) {
  return m.kind == WalkKind::complete ? dp::chernoff_visit_bound(double(p.steps), double(m.n), p.delta)
                                      : INFINITY;
}

}  // namespace netdp::walk_bodies_test
