// The CUDA walk engine's single-source bodies (kernels/common/walk_sim_bodies.hpp) run on the host, through
// the source the GPU compiles, against the CPU engine (walk_sim, sample_walk, account_path): paths, visit
// tallies, cycle lengths and record sets exactly; losses, utility and sketch bins exactly too, since on the
// host the bodies use the CPU's libm and the CPU's order of every sum (0 ulps; on a GPU the C4 log / sqrt,
// the noise's log / sin and the Gaussian terms beyond the host's table differ by a few ulps, which
// test_walk_sim_cuda bounds by 1e-10 relative). Label device-bodies: no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "common/for_each.hpp"
#include "common/philox.hpp"
#include "common/walk_sim_bodies.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/dp/concentration.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "simulation/walk_sim_accounting.hpp"
#include "simulation/walk_sim_statistics.hpp"
#include "walk_sim_bodies_support.hpp"

namespace netdp {
namespace {

using namespace walk_bodies_test;

// The models of test_walk_sim_cuda: every walk kind, a star, and the directed ring.
std::vector<WalkCase> cases() {
  std::vector<WalkCase> c;
  c.push_back({"complete n = 50, node start", complete_walk(50), {StartKind::node, 0}});
  c.push_back({"complete n = 50, uniform start", complete_walk(50), {StartKind::uniform}});
  c.push_back({"complete n = 3", complete_walk(3), {StartKind::node, 2}});
  for (const char* weights : {"uniform", "lazy-uniform", "metropolis"}) {
    c.push_back({std::string(weights) + ", node start",
                 make_walk_model("er:n=60,p=0.1,seed=3", weights),
                 {StartKind::node, 7}});
    c.push_back({std::string(weights) + ", stationary start",
                 make_walk_model("er:n=60,p=0.1,seed=3", weights),
                 {StartKind::stationary}});
  }
  c.push_back({"star, stationary start", make_walk_model("star:n=9", "uniform"), {StartKind::stationary}});
  c.push_back({"directed ring", directed_ring_walk(17), {StartKind::uniform}});
  return c;
}

WalkSimParams with_start(WalkSimParams p, const WalkCase& c) {
  p.start = c.start;
  return p;
}

// ---- Philox streams and step rules ----

TEST(WalkSimBodies, WalkThreadDrawsTheDocumentedStreams) {
  // A walk's words: walk stream (kind 1) from offset 0; a rejected Lemire word of position t: next_below on
  // the retry stream (kind 3) at offset t << 20 (docs/walk_sim.md "Randomness layout").
  const std::uint64_t seed = 99;
  for (std::int64_t run : {0, 3, 1000}) {
    walk::WalkThread w(run - 1, 1, 1, seed, 0);  // walk k = run - 1 of a batch starting at run 1
    PhiloxStream reference(seed, walk_subsequence(WalkStream::walk, static_cast<std::uint64_t>(run)));
    EXPECT_EQ(w.run, static_cast<std::uint64_t>(run));
    for (int i = 0; i < 40; ++i) ASSERT_EQ(w.cursor.words.next_u32(), reference.next_u32()) << "run " << run;
    // draw() with a bound that rejects about 30% of the words.
    int rejected = 0;
    for (std::int64_t t = 1; t < 300; ++t) {
      const std::uint32_t bound = 3'000'000'000u;
      const std::uint32_t word = reference.next_u32();
      std::uint32_t expected = 0;
      if (!kernels::philox::bounded_draw(word, bound, &expected)) {
        ++rejected;
        expected = PhiloxStream(seed, walk_subsequence(WalkStream::retry, static_cast<std::uint64_t>(run)),
                                static_cast<std::uint64_t>(t) << 20)
                       .next_below(bound);
      }
      ASSERT_EQ(walk::draw(w.cursor.words, w.cursor.retry, t, bound), expected)
          << "run " << run << ", t " << t;
    }
    EXPECT_GT(rejected, 40);
  }
}

TEST(WalkSimBodies, StepRulesGiveTheCpuPaths) {
  // next_node<kind> from the walk's own stream (the device's WalkThread) against the CPU's sample_walk.
  for (const WalkCase& c : cases()) {
    const WalkSimParams p = with_start(params(3000, 6, false), c);
    for (std::int64_t run = 0; run < p.runs; ++run) {
      const std::vector<node_t> expected = sample_walk(c.model, p, run);
      std::vector<node_t> path{walk_start(c.model, p, run)};
      walk::WalkThread w(run, 0, 1, p.seed, 0);
      walk::for_kind(c.model.kind, [&](auto kind) {
        for (std::int64_t t = 1; t < p.steps; ++t)
          path.push_back(
              walk::next_node<kind.value>(view(c.model), path.back(), w.cursor.words, w.cursor.retry, t));
      });
      ASSERT_EQ(path, expected) << c.what << ", run " << run;
    }
  }
}

/// The rules as docs/walk_sim.md ("Walks", "Samplers", "Randomness layout") states them, from the raw
/// words: position t reads the w words [w (t - 1), w t) of the walk stream (w = 1, or 2 for weighted rows,
/// low word first), a rejected Lemire word is replaced by next_below on the retry stream at offset t << 20.
/// Written from the text, not from the code: the CPU engine shares next_node with the bodies, so this is what
/// pins the shared rule itself.
node_t documented_next(const WalkModel& m, node_t v, std::uint64_t seed, std::uint64_t run, std::int64_t t) {
  const auto position = static_cast<std::uint64_t>(t - 1);
  const auto bounded = [&](std::uint32_t bound) {
    const std::uint32_t word =
        PhiloxStream(seed, walk_subsequence(WalkStream::walk, run), position).next_u32();
    const std::uint64_t product = std::uint64_t{word} * bound;
    if (static_cast<std::uint32_t>(product) >= (std::uint64_t{1} << 32) % bound)
      return static_cast<std::uint32_t>(product >> 32);
    return PhiloxStream(seed, walk_subsequence(WalkStream::retry, run), static_cast<std::uint64_t>(t) << 20)
        .next_below(bound);
  };
  switch (m.kind) {
    case WalkKind::complete:
      return static_cast<node_t>(bounded(static_cast<std::uint32_t>(m.n)));
    case WalkKind::uniform: {
      const auto d = static_cast<std::uint32_t>(m.offsets[v + 1] - m.offsets[v]);
      return m.targets[m.offsets[v] + bounded(d)];
    }
    case WalkKind::lazy_uniform: {
      const auto d = static_cast<std::uint32_t>(m.offsets[v + 1] - m.offsets[v]);
      const std::uint32_t r = bounded(2 * d);
      return r < d ? m.targets[m.offsets[v] + r] : v;
    }
    case WalkKind::weighted: {
      PhiloxStream words(seed, walk_subsequence(WalkStream::walk, run), 2 * position);
      const std::uint64_t low = words.next_u32(), high = words.next_u32();
      const std::uint64_t u = low | high << 32;
      offset_t k = m.offsets[v];
      while (k + 1 < m.offsets[v + 1] && u >= m.thresholds[k]) ++k;  // first k with u < C_k; the last is 2^64
      return m.targets[k];
    }
    case WalkKind::directed_ring:
      return v + 1 == m.n ? 0 : v + 1;
  }
  return -1;
}

TEST(WalkSimBodies, StepRulesFollowTheDocumentedWordLayout) {
  for (const WalkCase& c : cases()) {
    const WalkSimParams p = with_start(params(2000, 4, false), c);
    for (std::int64_t run = 0; run < p.runs; ++run) {
      walk::WalkThread w(run, 0, 1, p.seed, 0);
      node_t v = walk_start(c.model, p, run);
      walk::for_kind(c.model.kind, [&](auto kind) {
        for (std::int64_t t = 1; t < p.steps; ++t) {
          const node_t expected = documented_next(c.model, v, p.seed, static_cast<std::uint64_t>(run), t);
          v = walk::next_node<kind.value>(view(c.model), v, w.cursor.words, w.cursor.retry, t);
          ASSERT_EQ(v, expected) << c.what << ", run " << run << ", t " << t;
        }
      });
    }
  }
  // The retry path, which the small bounds above practically never take: a complete "graph" of 3e8 nodes
  // (only n is read) rejects 2^32 mod 3e8 / 2^32 = 2.2% of the words, some 44 of these 2000.
  WalkModel big = complete_walk(3);
  big.n = 300'000'000;
  walk::WalkThread w(0, 0, 1, 5, 0);
  for (std::int64_t t = 1; t < 2000; ++t)
    ASSERT_EQ(walk::next_node<WalkKind::complete>(view(big), 0, w.cursor.words, w.cursor.retry, t),
              documented_next(big, 0, 5, 0, t))
        << "t " << t;
}

TEST(WalkSimBodies, StepLoopFollowsTheDocumentedWordLayout) {
  // walk::walk_steps, the one step loop of every engine: K lanes (runs first .. first + K - 1) side by side,
  // run-time and compile-time lane counts, with and without prefetches, over ranges of positions of uneven
  // lengths, against documented_next position by position; the visitor sees (lane, t, p_{t-1}, p_t).
  for (const WalkCase& c : cases()) {
    const WalkSimParams p = with_start(params(700, 5, false), c);
    const walk::ModelView m = view(c.model);
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<walk::WalkCursor> lanes;
      std::vector<node_t> expected;
      for (std::int64_t run = 0; run < p.runs; ++run) {
        lanes.emplace_back(p.seed, static_cast<std::uint64_t>(run), walk_start(c.model, p, run));
        expected.push_back(lanes.back().v);
      }
      std::int64_t visits = 0;
      const auto visit = [&](int j, std::int64_t t, node_t sender, node_t v) {
        ASSERT_EQ(sender, expected[static_cast<std::size_t>(j)]) << c.what << ", lane " << j << ", t " << t;
        expected[static_cast<std::size_t>(j)] =
            documented_next(c.model, sender, p.seed, static_cast<std::uint64_t>(j), t);
        ASSERT_EQ(v, expected[static_cast<std::size_t>(j)]) << c.what << ", lane " << j << ", t " << t;
        ++visits;
      };
      for (std::int64_t t0 = 1, len = 1; t0 < p.steps; t0 += len, len = 2 * len + 1) {
        const std::int64_t t1 = std::min(p.steps, t0 + len);
        walk::for_kind(c.model.kind, [&](auto kind) {
          if (variant == 0)
            walk::walk_steps<kind.value>(m, lanes.data(), static_cast<int>(lanes.size()), t0, t1, visit);
          else if (variant == 1)
            walk::walk_steps<kind.value, true>(m, lanes.data(), static_cast<int>(lanes.size()), t0, t1,
                                               visit);
          else
            walk::walk_steps<kind.value>(m, lanes.data(), std::integral_constant<int, 5>{}, t0, t1, visit);
        });
      }
      EXPECT_EQ(visits, p.runs * (p.steps - 1)) << c.what;
      for (std::size_t j = 0; j < lanes.size(); ++j) EXPECT_EQ(lanes[j].v, expected[j]) << c.what;
    }
  }
}

// ---- the plain-walk statistics against a slow count over the paths ----

/// The statistics of runs 0 .. R-1 counted directly from their paths (sample_walk), node by node: an
/// independent slow implementation of what the engine's bodies tally (docs/walk_sim.md "Statistics").
void path_tallies(const WalkModel& model, const WalkSimParams& p, HostTallies& h,
                  std::map<std::int64_t, std::int64_t>& sparse) {
  const auto n = static_cast<std::size_t>(model.n);
  for (std::int64_t run = 0; run < p.runs; ++run) {
    const std::vector<node_t> path = sample_walk(model, p, run);
    std::vector<std::int64_t> count(n, 0), first(n, 0), last(n, 0);
    for (std::size_t t = 0; t < path.size(); ++t) {
      const auto v = static_cast<std::size_t>(path[t]);
      const auto time = static_cast<std::int64_t>(t);
      if (t > 0 && count[v] > 0)
        ++h.return_counts[static_cast<std::size_t>(std::min(time - last[v], h.time_cap + 1))];
      else if (t > 0)
        ++h.hitting_counts[static_cast<std::size_t>(std::min(time, h.time_cap + 1))];
      if (count[v] == 0) first[v] = time;
      ++count[v];
      last[v] = time;
    }
    for (std::size_t v = 0; v < n; ++v) {
      const std::int64_t c = count[v];
      if (c > 0) {
        h.visits[v] += static_cast<Counter>(c);
        h.returns[v] += static_cast<Counter>(c - 1);
        h.return_sum[v] += static_cast<Counter>(last[v] - first[v]);
        if (first[v] > 0) {
          ++h.hits[v];
          h.hit_sum[v] += static_cast<Counter>(first[v]);
        }
      }
      if (c <= h.visit_cap)
        ++h.visit_dense[static_cast<std::size_t>(c)];
      else
        ++sparse[c];
      if (static_cast<double>(c) >= h.nv) ++h.above_nv[0];
    }
  }
}

TEST(WalkSimBodies, PlainWalkStatisticsAreThePathCounts) {
  for (const WalkCase& c : cases()) {
    const WalkSimParams p = with_start(params(4000, 23, false), c);
    const WalkSimResult cpu = walk_sim(c.model, p);
    const std::int64_t time_cap = std::min(p.steps, kTimeCap), visit_cap = std::min(p.steps, kVisitCap);
    HostTallies h(c.model.n, time_cap, visit_cap, cpu_nv(c.model, p), 0);
    std::map<std::int64_t, std::int64_t> sparse;
    path_tallies(c.model, p, h, sparse);
    expect_cpu_tallies(cpu, h, sparse, c.what);
  }
}

TEST(WalkSimBodies, PlainWalkStatisticsBeyondTheHistogramAndVisitCaps) {
  // Small caps in the slow count: returns above time_cap go to the overflow bin, every visit count (about
  // 1500, T = 3000 on n = 2) is above visit_cap = 1000; the engine's totals are the same.
  const WalkModel m = complete_walk(2);
  const WalkSimParams p = params(3000, 5, false);
  const WalkSimResult cpu = walk_sim(m, p);
  HostTallies h(2, 4, 1000, cpu_nv(m, p), 0);
  std::map<std::int64_t, std::int64_t> sparse;
  path_tallies(m, p, h, sparse);
  EXPECT_EQ(as_int(h.visits), cpu.visits);
  EXPECT_EQ(as_int(h.return_sum), cpu.return_time_sum);
  EXPECT_EQ(sparse.size() + 0, cpu.visit_counts.size());  // every count is above 1000 (T = 3000, n = 2)
  EXPECT_EQ(sparse, cpu.visit_counts);
  std::int64_t returns = 0;
  for (std::int64_t r : cpu.returns) returns += r;
  std::int64_t binned = 0;
  for (std::size_t t = 1; t + 1 < h.return_counts.size(); ++t)
    binned += static_cast<std::int64_t>(h.return_counts[t]);
  EXPECT_EQ(binned + static_cast<std::int64_t>(h.return_counts.back()), returns);
  for (std::size_t t = 1; t <= 4; ++t)
    EXPECT_EQ(static_cast<std::int64_t>(h.return_counts[t]), cpu.return_times.counts[t]) << t;
}

// ---- accounted walks ----

struct AccountedOutputs {
  std::vector<std::int64_t> cycles;
  std::vector<double> shared;
  std::vector<walk::PairLosses> pairs;
  std::vector<double> truth, noise;
  std::vector<std::int64_t> noises;
  std::vector<std::set<node_t>> corrected;  // per (walk, observer): the u with a record
  std::vector<Counter> bins;
  Counter zero_bin = 0;
  std::int64_t first_bin = 0;
  std::vector<std::uint8_t> used_lengths;  // histogram: the first pass's marks
};

/// walk_sim_accounted_cuda's launches on the host for one batch of all runs: AccountedWalkBody (after
/// CycleLengthBody for the histogram mechanism), a stable sort of the records by key (what CUB's stable
/// radix sort gives), PairLossBody, ObserverLossBody. `table_lengths` = the lengths the host tabulates;
/// sigma_loc the utility's noise scale (Gaussian mechanism).
AccountedOutputs run_accounted_bodies(const WalkModel& model, const WalkSimParams& p,
                                      std::int64_t table_lengths, double sigma_loc, HostTallies& h) {
  const std::int64_t n = model.n, batch = p.runs, count = p.runs;
  const bool known = p.view == WalkView::known, gaussian = p.mechanism == WalkMechanism::gaussian;
  const int node_bits = std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n - 1))));
  const std::int64_t capacity = known ? 2 * (p.steps - 1) : 0;
  const walk_detail::CycleEpsilons eps(model.n, p);
  const auto fill = [&](std::int64_t m, walk::CycleTerms& slot) {
    slot = {eps.at(m).zero, eps.terms(m, 1), eps.terms(m, 2)};
  };
  std::vector<walk::CycleTerms> table(static_cast<std::size_t>(table_lengths));
  const auto cells = static_cast<std::size_t>(n * batch);
  std::vector<std::int64_t> first(cells, -7), last(cells, -7), count_run(cells, 0);
  std::vector<node_t> last_send(cells, -1), starts(static_cast<std::size_t>(batch));
  std::vector<double> zero_sum(cells, 0.0), zero_square(cells, 0.0), zero_first(cells, 0.0);
  const auto slots = static_cast<std::size_t>(capacity * batch);
  std::vector<std::uint64_t> keys(slots, 12345), values(slots, 12345);
  const bool utility = gaussian;
  std::vector<double> x;
  if (utility)
    for (node_t v = 0; v < n; ++v)
      x.push_back(
          PhiloxStream(p.seed, walk_subsequence(WalkStream::values, 0), 2 * static_cast<std::uint64_t>(v))
              .next_uniform_double());
  AccountedOutputs out;
  out.truth.assign(static_cast<std::size_t>(batch), 0.0);
  out.noise = out.truth;
  out.noises.assign(static_cast<std::size_t>(batch), 0);
  for (std::int64_t k = 0; k < count; ++k) starts[static_cast<std::size_t>(k)] = walk_start(model, p, k);

  walk::AccountedBatch b;
  b.seed = p.seed;
  b.first_run = 0;
  b.count = count;
  b.stride = batch;
  b.steps = p.steps;
  b.starts = starts.data();
  b.first = first.data();
  b.last = last.data();
  b.count_run = count_run.data();
  b.last_send = last_send.data();
  b.zero_sum = zero_sum.data();
  b.zero_square = zero_square.data();
  b.zero_first = zero_first.data();
  b.keys = keys.data();
  b.values = values.data();
  b.capacity = capacity;
  b.node_bits = node_bits;
  b.sentinel = static_cast<std::uint64_t>(batch) << (2 * node_bits);
  b.values_x = utility ? x.data() : nullptr;
  b.sigma_loc = sigma_loc;
  b.truth = out.truth.data();
  b.noise = out.noise.data();
  b.noises = out.noises.data();

  if (gaussian) {
    for (std::int64_t m = 1; m <= table_lengths; ++m) fill(m, table[static_cast<std::size_t>(m - 1)]);
  } else {
    out.used_lengths.assign(static_cast<std::size_t>(table_lengths) + 1, 0);
    walk::for_kind(model.kind, [&](auto kind) {
      kernels::host_for_each(
          count, walk::CycleLengthBody<kind.value>{view(model), b, table_lengths, out.used_lengths.data()});
    });
    std::fill(count_run.begin(), count_run.end(), 0);
    for (std::int64_t m = 1; m <= table_lengths; ++m)
      if (out.used_lengths[static_cast<std::size_t>(m)] != 0) fill(m, table[static_cast<std::size_t>(m - 1)]);
  }
  const walk::CycleTable cycle_table{table.data(), table_lengths, p.eps0, n};
  walk::for_kind(model.kind, [&](auto kind) {
    if (known)
      kernels::host_for_each(
          count, walk::AccountedWalkBody<kind.value, true>{view(model), b, cycle_table, h.view()});
    else
      kernels::host_for_each(
          count, walk::AccountedWalkBody<kind.value, false>{view(model), b, cycle_table, h.view()});
  });

  // CUB's stable radix sort by key: equal keys keep their slot order (time order within a walk's segment).
  const std::int64_t records = count * capacity;
  std::vector<std::size_t> order(static_cast<std::size_t>(records));
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t c) { return keys[a] < keys[c]; });
  std::vector<std::uint64_t> sorted_keys(order.size()), sorted_values(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted_keys[i] = keys[order[i]];
    sorted_values[i] = values[order[i]];
  }
  std::vector<double> loss(order.size(), -1.0);
  if (records > 0)
    kernels::host_for_each(records, walk::PairLossBody{b, cycle_table, sorted_keys.data(),
                                                       sorted_values.data(), records, p.delta, loss.data()});

  const std::int64_t first_bin = walk::quantile_bin(4.9406564584124654e-324, walk_detail::kLogBase) - 1;
  const std::int64_t bin_count = walk::quantile_bin(DBL_MAX, walk_detail::kLogBase) + 2 - first_bin;
  out.first_bin = first_bin;
  out.bins.assign(static_cast<std::size_t>(bin_count), 0);
  const walk::SketchBins bins{out.bins.data(), &out.zero_bin, first_bin, bin_count, walk_detail::kLogBase};
  const auto observers = static_cast<std::size_t>(count * n);
  out.cycles.assign(observers, -1);
  out.shared.assign(observers, -1.0);
  out.pairs.assign(observers, walk::PairLosses{});
  kernels::host_for_each(count * n,
                         walk::ObserverLossBody{b,
                                                n,
                                                sorted_keys.data(),
                                                loss.data(),
                                                records,
                                                p.delta,
                                                bins,
                                                {out.cycles.data(), out.shared.data(), out.pairs.data()}});
  out.corrected.assign(observers, {});
  const std::uint64_t mask = (std::uint64_t{1} << node_bits) - 1;
  for (std::uint64_t key : sorted_keys) {
    if (key >= b.sentinel) continue;
    const auto k = static_cast<std::int64_t>(key >> (2 * node_bits));
    out.corrected[static_cast<std::size_t>(k * n + static_cast<std::int64_t>((key >> node_bits) & mask))]
        .insert(static_cast<node_t>(key & mask));
  }
  // The unused slots: sentinel key and value 0 (initialised for the sort and compute-sanitizer's initcheck).
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == b.sentinel) {
      EXPECT_EQ(values[i], 0u) << "slot " << i;
    }
  }
  EXPECT_EQ(std::count(keys.begin(), keys.end(), std::uint64_t{12345}), 0) << "a slot was left unwritten";
  return out;
}

void expect_cpu_accounting(const WalkCase& c, WalkSimParams p, std::int64_t table_lengths) {
  p = with_start(p, c);
  const std::string what = c.what + (p.view == WalkView::known ? ", known" : ", hidden") +
                           (p.mechanism == WalkMechanism::gaussian ? ", gaussian" : ", histogram");
  const std::int64_t n = c.model.n;
  const std::int64_t time_cap = std::min(p.steps, kTimeCap), visit_cap = std::min(p.steps, kVisitCap);
  HostTallies h(n, time_cap, visit_cap, cpu_nv(c.model, p), 0);
  const WalkSimResult engine = walk_sim(c.model, p);
  const AccountedOutputs out = run_accounted_bodies(c.model, p, table_lengths, engine.sigma_loc, h);
  expect_cpu_tallies(engine, h, {}, what);  // the accounted walks' visit tallies
  if (p.mechanism == WalkMechanism::gaussian) {
    ASSERT_EQ(engine.utility.size(), static_cast<std::size_t>(p.runs)) << what;
    for (std::size_t r = 0; r < engine.utility.size(); ++r) {
      EXPECT_EQ(out.truth[r], engine.utility[r].truth) << what << ", run " << r;
      EXPECT_EQ(out.noises[r], engine.utility[r].noises) << what << ", run " << r;
      EXPECT_EQ(out.truth[r] + out.noise[r], engine.utility[r].estimate) << what << ", run " << r;
    }
  }

  std::vector<Counter> expected_bins(out.bins.size(), 0);
  Counter expected_zero = 0;
  std::vector<std::uint8_t> lengths(out.used_lengths.size(), 0);
  for (std::int64_t run = 0; run < p.runs; ++run) {
    const std::vector<node_t> path = sample_walk(c.model, p, run);
    const PathAccounting cpu = account_path(path, static_cast<node_t>(n), p);
    for (node_t v = 0; v < n; ++v) {
      const auto i = static_cast<std::size_t>(run * n + v);
      const std::string label = what + ", run " + std::to_string(run) + ", observer " + std::to_string(v);
      ASSERT_EQ(out.cycles[i], cpu.cycles[v]) << label;
      // Pairs without a record share the loss; those with one have their own, added in increasing u.
      walk::PairLosses expected;
      for (node_t u = 0; u < n; ++u) {
        if (u == v) continue;
        const double l = cpu.loss[static_cast<std::size_t>(u) * n + v];
        if (out.corrected[i].count(u) != 0) {
          expected.add(l);
        } else {
          ASSERT_EQ(out.shared[i], l) << label << ", u " << u << " (0 ulps on the host)";
        }
        if (l <= 0)
          ++expected_zero;
        else
          ++expected_bins[static_cast<std::size_t>(
              std::clamp<std::int64_t>(walk::quantile_bin(l, walk_detail::kLogBase) - out.first_bin, 0,
                                       static_cast<std::int64_t>(out.bins.size()) - 1))];
      }
      ASSERT_EQ(out.pairs[i].count, expected.count) << label;
      ASSERT_EQ(out.pairs[i].sum, expected.sum) << label;
      ASSERT_EQ(out.pairs[i].compensation, expected.compensation) << label;
      ASSERT_EQ(out.pairs[i].min, expected.min) << label;
      ASSERT_EQ(out.pairs[i].max, expected.max) << label;
    }
    if (p.mechanism == WalkMechanism::histogram) {
      // Cycle lengths: t - (previous visit, or 0); the start's position 0 is a visit.
      std::map<node_t, std::int64_t> previous{{path[0], 0}};
      for (std::size_t t = 1; t < path.size(); ++t) {
        const auto it = previous.find(path[t]);
        lengths[static_cast<std::size_t>(std::int64_t(t) - (it == previous.end() ? 0 : it->second))] = 1;
        previous[path[t]] = std::int64_t(t);
      }
    }
  }
  EXPECT_EQ(out.used_lengths, lengths) << what << ": the first pass marks exactly the walks' cycle lengths";
  EXPECT_EQ(out.bins, expected_bins) << what;
  EXPECT_EQ(out.zero_bin, expected_zero) << what;
  if (p.view == WalkView::hidden) {
    for (const auto& s : out.corrected) EXPECT_TRUE(s.empty()) << what;
  }
}

TEST(WalkSimBodies, AccountedWalkAndPairAndObserverBodiesGiveTheCpuLosses) {
  WalkSimParams p = params(3000, 9, true);
  for (const WalkCase& c : cases()) {
    p.view = WalkView::known;
    expect_cpu_accounting(c, p, p.steps - 1);
    if (c.model.kind == WalkKind::complete) {
      p.view = WalkView::hidden;
      expect_cpu_accounting(c, p, p.steps - 1);
    }
  }
  // Histogram: the first pass marks the lengths, only those are tabulated.
  WalkSimParams histogram = params(600, 4, true);
  histogram.mechanism = WalkMechanism::histogram;
  expect_cpu_accounting(cases()[1], histogram, 599);
  expect_cpu_accounting(cases()[2], histogram, 599);
}

TEST(WalkSimBodies, CycleTermsBeyondTheTableAreTheGaussianFormula) {
  // A short table: cycles longer than it take gaussian_cycle_terms on this side's libm (on the host the
  // CPU's, so the C4 terms agree with CycleEpsilons to the few ulps test_walk_sim_math allows).
  const walk_detail::CycleEpsilons eps(50, params(5000, 1, true));
  const walk::CycleTable table{nullptr, 0, 0.1, 50};
  for (std::int64_t m : {1, 2, 17, 333, 4999}) {
    const walk::CycleTerms t = walk::cycle_terms(table, m);
    EXPECT_NEAR(t.zero.eps, eps.at(m).zero.eps, 4 * DBL_EPSILON * eps.at(m).zero.eps) << m;
    EXPECT_NEAR(t.one.eps, eps.terms(m, 1).eps, 4 * DBL_EPSILON * eps.terms(m, 1).eps) << m;
    EXPECT_NEAR(t.two.first, eps.terms(m, 2).first, 8 * DBL_EPSILON * eps.terms(m, 2).first) << m;
  }
}

TEST(WalkSimBodies, PositionNoiseIsTheCpusNormal) {
  // position_noise = next_normal_pair().first at offset 4 t of the run's noise stream; the accounted body's
  // sums of sigma_loc z_t are compared with walk_sim's utility in the test above.
  for (std::uint64_t run : {0u, 7u, 123456u})
    for (std::int64_t t : {0, 1, 17, 1 << 20})
      EXPECT_EQ(walk::position_noise(42, run, t),
                PhiloxStream(42, walk_subsequence(WalkStream::noise, run), 4 * static_cast<std::uint64_t>(t))
                    .next_normal_pair()
                    .first);
}

}  // namespace
}  // namespace netdp
