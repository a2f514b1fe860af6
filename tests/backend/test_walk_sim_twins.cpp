// The walk engine's twins byte for byte (docs/walk_sim.md "CPU and CUDA twins"): the CPU twin
// (kernels/cpu/walk_sim_cpu*.cpp: WalkPlainCpuEngine, its fast path WalkInterleavedCpuEngine and
// WalkAccountedCpuEngine) against the CUDA twin (kernels/cuda/walk_sim_cuda.cu, walk_sim_accounting_cuda.cu)
// on the same plain views, for several graphs, seeds, batch sizes and thread counts: every tally vector, the
// visit-count map, every per-observer output (memcmp of the doubles) and the sketch's bins must be equal.
// Built twice: against the backend of the build (the CUDA cases skip where no device answers; a real GPU's
// libm moves the accounted doubles by ulps, compared there to 1e-10) and as test_walk_sim_twins_emulated
// against the emulated device (the .cu source built for the host, docs/cuda_backend.md "The emulated
// device"), so CI compares the twins byte for byte without a GPU. Label twins.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "netdp/core/philox.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "simulation/walk_sim_accounting.hpp"
#include "simulation/walk_sim_statistics.hpp"
#include "support/cuda_required.hpp"
#include "walk_sim_kernels.hpp"

namespace netdp {
namespace {

constexpr std::int64_t kTimeCap = std::int64_t{1} << 16;   // the driver's histogram caps
constexpr std::int64_t kVisitCap = std::int64_t{1} << 20;  // (src/simulation/walk_sim.cpp)

struct TwinCase {
  std::string what;
  WalkModel model;
  WalkStart start;
  std::int64_t steps, runs;
};

std::vector<TwinCase> cases() {
  std::vector<TwinCase> c;
  c.push_back({"complete n = 50", complete_walk(50), {StartKind::node, 0}, 3000, 23});
  // n = 3: Lemire rejections (the retry stream) and visit counts far above the window of the block bins.
  c.push_back({"complete n = 3, uniform start", complete_walk(3), {StartKind::uniform}, 40000, 5});
  c.push_back({"directed ring", directed_ring_walk(17), {StartKind::uniform}, 1000, 9});
  c.push_back({"star", make_walk_model("star:n=9", "uniform"), {StartKind::stationary}, 2000, 11});
  for (const char* weights : {"uniform", "lazy-uniform", "metropolis"})
    c.push_back({std::string("ER ") + weights,
                 make_walk_model("er:n=60,p=0.1,seed=3", weights),
                 {StartKind::stationary},
                 4000,
                 17});
  // n > 2 T: hashed visit tables.
  c.push_back({"ER n = 3000, hashed tables",
               make_walk_model("er:n=3000,p=0.003,seed=5", "uniform"),
               {StartKind::node, 4},
               400,
               13});
  return c;
}

kernels::WalkTables tables_of(const WalkModel& m) {
  return {m.kind, m.n, m.offsets, m.targets, m.thresholds};
}

WalkSimParams params_of(const TwinCase& c, std::uint64_t seed) {
  WalkSimParams p;
  p.steps = c.steps;
  p.runs = c.runs;
  p.seed = seed;
  p.accounting = false;
  p.start = c.start;
  return p;
}

kernels::WalkRunSpec spec_of(const WalkSimParams& p, std::int64_t batch) {
  return {p.seed, p.steps, p.runs, batch, p.start.kind != StartKind::node, p.start.node, p.eps0, p.delta};
}

double nv_of(const TwinCase& c, const WalkSimParams& p) {
  // Any bound works for the comparison; the complete graph's is CB1's in the driver. Here a middle value,
  // so that the count above it is neither 0 nor everything.
  return double(p.steps) / double(c.model.n);
}

std::vector<node_t> starts_of(const TwinCase& c, const WalkSimParams& p, std::int64_t first,
                              std::int64_t count) {
  std::vector<node_t> s;
  if (p.start.kind == StartKind::node) return s;
  for (std::int64_t k = 0; k < count; ++k) s.push_back(walk_start(c.model, p, first + k));
  return s;
}

kernels::WalkVisitTallies cpu_twin(const TwinCase& c, const WalkSimParams& p, std::int64_t batch,
                                   int threads) {
  kernels::WalkPlainCpuEngine engine(tables_of(c.model), spec_of(p, batch), threads,
                                     std::min(p.steps, kTimeCap), std::min(p.steps, kVisitCap), nv_of(c, p));
  for (std::int64_t first = 0; first < p.runs; first += batch) {
    const std::int64_t count = std::min(batch, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    engine.run_batch(first, count, starts);
  }
  kernels::WalkVisitTallies t;
  engine.finish(t);
  return t;
}

kernels::WalkVisitTallies cuda_twin(const TwinCase& c, const WalkSimParams& p, std::int64_t batch) {
  const auto engine =
      kernels::walk_sim_cuda(tables_of(c.model), spec_of(p, batch), 0, std::min(p.steps, kTimeCap),
                             std::min(p.steps, kVisitCap), nv_of(c, p));
  const std::int64_t size = engine->plan().batch_runs;
  kernels::WalkVisitTallies t;
  for (std::int64_t first = 0; first < p.runs; first += size) {
    const std::int64_t count = std::min(size, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    engine->run_batch(first, count, starts, t);
  }
  engine->finish(t);
  return t;
}

/// Byte for byte: same sizes and memcmp of every vector, the same visit-count map.
void expect_same_bytes(const kernels::WalkVisitTallies& a, const kernels::WalkVisitTallies& b,
                       const std::string& what) {
  const auto same = [&](const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y,
                        const char* name) {
    ASSERT_EQ(x.size(), y.size()) << what << ": " << name;
    if (x.empty()) return;  // memcmp takes no null pointer, even for 0 bytes (UBSan)
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(std::int64_t)), 0) << what << ": " << name;
    EXPECT_EQ(x, y) << what << ": " << name;  // names the first differing entry
  };
  same(a.visits, b.visits, "visits");
  same(a.returns, b.returns, "returns");
  same(a.return_time_sum, b.return_time_sum, "return_time_sum");
  same(a.hits, b.hits, "hits");
  same(a.hitting_time_sum, b.hitting_time_sum, "hitting_time_sum");
  same(a.return_counts, b.return_counts, "return_counts");
  same(a.hitting_counts, b.hitting_counts, "hitting_counts");
  EXPECT_EQ(a.visit_counts, b.visit_counts) << what << ": visit_counts";
  EXPECT_EQ(a.above_nv, b.above_nv) << what << ": above_nv";
}

/// What any correct run satisfies, so that two empty or equally broken results cannot pass: R T visits, R
/// hits-or-starts per visited node and run, returns = visits - (node, run) pairs visited.
void expect_consistent(const kernels::WalkVisitTallies& t, const WalkSimParams& p, node_t n,
                       const std::string& what) {
  std::int64_t visits = 0, returns = 0, hits = 0, pairs = 0, unvisited = 0;
  for (node_t v = 0; v < n; ++v) {
    visits += t.visits[v];
    returns += t.returns[v];
    hits += t.hits[v];
  }
  for (const auto& [c, count] : t.visit_counts) {
    pairs += count;
    if (c == 0) unvisited = count;
  }
  EXPECT_EQ(visits, p.steps * p.runs) << what;
  EXPECT_EQ(pairs, std::int64_t{n} * p.runs) << what;
  EXPECT_EQ(hits + p.runs, std::int64_t{n} * p.runs - unvisited) << what;  // the start is no hit
  EXPECT_EQ(returns, visits - (std::int64_t{n} * p.runs - unvisited)) << what;
  std::int64_t binned = 0;
  for (std::int64_t c : t.return_counts) binned += c;
  EXPECT_EQ(binned, returns) << what;
}

TEST(WalkSimTwins, PlainWalksCpuTwinEqualsCudaTwin) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const TwinCase& c : cases()) {
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{20240611}}) {
      const WalkSimParams p = params_of(c, seed);
      for (std::int64_t batch : {std::int64_t{1}, std::int64_t{7}, p.runs}) {
        const std::string what =
            c.what + ", seed " + std::to_string(seed) + ", batch " + std::to_string(batch);
        const kernels::WalkVisitTallies gpu = cuda_twin(c, p, batch);
        const kernels::WalkVisitTallies cpu = cpu_twin(c, p, batch, 2);
        expect_consistent(cpu, p, c.model.n, what + ", CPU twin");
        expect_same_bytes(cpu, gpu, what);
      }
    }
  }
}

kernels::WalkVisitTallies interleaved_twin(const TwinCase& c, const WalkSimParams& p, std::int64_t batch,
                                           std::int64_t lanes, int threads, bool huge_page_rows) {
  kernels::WalkInterleavedCpuEngine engine(tables_of(c.model), spec_of(p, batch), threads,
                                           std::min(p.steps, kTimeCap), std::min(p.steps, kVisitCap),
                                           nv_of(c, p), huge_page_rows);
  for (std::int64_t first = 0; first < p.runs; first += batch) {
    const std::int64_t count = std::min(batch, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    engine.run_batch(first, count, lanes, starts);
  }
  kernels::WalkVisitTallies t;
  engine.finish(t);
  return t;
}

TEST(WalkSimTwins, InterleavedFastPathEqualsCudaTwin) {
  // The CPU twin's fast path for CSR walks (its own loop on the common per-step maths) against the CUDA
  // twin's bodies.
  NETDP_NEEDS_CUDA_DEVICE();
  for (const TwinCase& c : cases()) {
    if (c.model.kind == WalkKind::complete || c.model.kind == WalkKind::directed_ring) continue;
    for (std::uint64_t seed : {std::uint64_t{2}, std::uint64_t{31}}) {
      const WalkSimParams p = params_of(c, seed);
      const kernels::WalkVisitTallies gpu = cuda_twin(c, p, p.runs);
      for (auto [batch, lanes, threads, huge] : {std::tuple{p.runs, std::int64_t{4}, 2, true},
                                                 {std::int64_t{5}, std::int64_t{2}, 1, false},
                                                 {std::int64_t{7}, std::int64_t{32}, 2, false}}) {
        const std::string what = c.what + ", seed " + std::to_string(seed) + ", batch " +
                                 std::to_string(batch) + ", " + std::to_string(lanes) + " lanes";
        const kernels::WalkVisitTallies cpu = interleaved_twin(c, p, batch, lanes, threads, huge);
        expect_consistent(cpu, p, c.model.n, what);
        expect_same_bytes(cpu, gpu, what);
      }
    }
  }
}

TEST(WalkSimTwins, CpuTwinIsTheSameForAnyThreadCount) {
  for (const TwinCase& c : cases()) {
    const WalkSimParams p = params_of(c, 9);
    const kernels::WalkVisitTallies one = cpu_twin(c, p, p.runs, 1);
    expect_consistent(one, p, c.model.n, c.what);
    expect_same_bytes(one, cpu_twin(c, p, 3, 3), c.what + ", 3 threads, batch 3");
    expect_same_bytes(one, cpu_twin(c, p, 5, 2), c.what + ", 2 threads, batch 5");
  }
}

TEST(WalkSimTwins, CpuTwinStopsWhenProgressSaysSo) {
  // A false answer skips the walks not started: fewer than R T visits, and every one of a whole walk.
  const TwinCase c{"complete n = 10", complete_walk(10), {StartKind::node, 0}, 1 << 20, 8};
  const WalkSimParams p = params_of(c, 3);
  kernels::WalkPlainCpuEngine engine(tables_of(c.model), spec_of(p, p.runs), 1, kTimeCap, kVisitCap, 1e300);
  std::int64_t reported = 0;
  engine.run_batch(0, p.runs, {}, [&](std::int64_t positions) {
    reported += positions;
    return reported < 3 * p.steps;
  });
  kernels::WalkVisitTallies t;
  engine.finish(t);
  std::int64_t visits = 0;
  for (std::int64_t v : t.visits) visits += v;
  EXPECT_EQ(visits, 3 * p.steps);
  EXPECT_EQ(reported, 3 * p.steps);
}

// ---- accounted walks ----

/// What a twin's accounted runs give, concatenated over its batches (run-major), and its final tallies.
struct AccountedRuns {
  std::vector<std::int64_t> cycles, noises;
  std::vector<double> shared, truth, noise;
  std::vector<kernels::walk::PairLosses> pairs;
  std::vector<double> node0;  // the reference bookkeeping's far node-0 pairs (-1: none)
  kernels::WalkVisitTallies tallies;
  std::map<std::int64_t, std::uint64_t> bins;  // the sketch's nonzero bins
  std::uint64_t zero = 0;
};

/// The driver's inputs (src/simulation/walk_sim_observers.cpp accounting_inputs), made here from the
/// library's CycleEpsilons: the table of every length up front for the Gaussian mechanism, on demand for the
/// histogram.
struct AccountingSetup {
  WalkSimParams p;
  std::unique_ptr<walk_detail::CycleEpsilons> eps;
  std::vector<kernels::walk::CycleTerms> table;
  std::vector<double> values;
  kernels::WalkAccountingInputs in;

  AccountingSetup(const WalkModel& m, const WalkSimParams& params) : p(params) {
    eps = std::make_unique<walk_detail::CycleEpsilons>(m.n, p);
    in.table_lengths = std::min<std::int64_t>(p.steps - 1, std::int64_t{1} << 20);
    in.gaussian = p.mechanism == WalkMechanism::gaussian;
    if (in.gaussian) {
      for (std::int64_t len = 1; len <= in.table_lengths; ++len) table.push_back(terms(len));
      in.table = table;
      for (node_t v = 0; v < m.n; ++v)
        values.push_back(
            PhiloxStream(p.seed, walk_subsequence(WalkStream::values, 0), 2 * static_cast<std::uint64_t>(v))
                .next_uniform_double());
      in.utility = true;
      in.sigma_loc = dp::gaussian_sigma_classic(p.eps0, p.delta, 1.0);
      in.values = values;
    }
    in.known = p.view == WalkView::known;
    in.eps0 = p.eps0;
    in.delta = p.delta;
    in.log_base = walk_detail::kLogBase;
  }
  kernels::walk::CycleTerms terms(std::int64_t len) const {
    return {eps->at(len).zero, eps->terms(len, 1), eps->terms(len, 2)};
  }
  std::vector<kernels::walk::CycleTerms> terms(const std::vector<std::int64_t>& lengths) const {
    std::vector<kernels::walk::CycleTerms> t;
    for (std::int64_t len : lengths) t.push_back(terms(len));
    return t;
  }
};

template <class T>
void append(std::vector<T>& to, std::span<const T> from) {
  to.insert(to.end(), from.begin(), from.end());
}

void append(AccountedRuns& r, const kernels::WalkAccountedBatch& b) {
  append(r.cycles, b.cycles);
  append(r.shared, b.shared);
  append(r.pairs, b.pairs);
  append(r.truth, b.truth);
  append(r.noise, b.noise);
  append(r.noises, b.noises);
  append(r.node0, b.node0);
}

void take_bins(AccountedRuns& r, const kernels::WalkSketchBins& bins) {
  for (std::size_t i = 0; i < bins.counts.size(); ++i)
    if (bins.counts[i] > 0) r.bins[bins.first_bin + std::int64_t(i)] = bins.counts[i];
  r.zero = bins.zero;
}

AccountedRuns cpu_accounted(const TwinCase& c, const AccountingSetup& a, std::int64_t batch, int threads) {
  const WalkSimParams& p = a.p;
  kernels::WalkAccountedCpuEngine engine(tables_of(c.model), spec_of(p, batch), threads,
                                         std::min(p.steps, kTimeCap), std::min(p.steps, kVisitCap),
                                         nv_of(c, p), a.in);
  AccountedRuns r;
  for (std::int64_t first = 0; first < p.runs; first += batch) {
    const std::int64_t count = std::min(batch, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    const std::vector<std::int64_t> missing = engine.missing_cycle_lengths(first, count, starts);
    if (!missing.empty()) engine.set_cycle_terms(missing, a.terms(missing));
    append(r, engine.run_batch(first, count, starts));
  }
  kernels::WalkSketchBins bins;
  engine.finish(r.tallies, bins);
  take_bins(r, bins);
  return r;
}

AccountedRuns cuda_accounted(const TwinCase& c, const AccountingSetup& a, std::int64_t batch) {
  const WalkSimParams& p = a.p;
  const auto engine =
      kernels::walk_sim_accounted_cuda(tables_of(c.model), spec_of(p, batch), 0, std::min(p.steps, kTimeCap),
                                       std::min(p.steps, kVisitCap), nv_of(c, p), a.in);
  const std::int64_t size = engine->plan().batch_runs;
  AccountedRuns r;
  for (std::int64_t first = 0; first < p.runs; first += size) {
    const std::int64_t count = std::min(size, p.runs - first);
    const std::vector<node_t> starts = starts_of(c, p, first, count);
    const std::vector<std::int64_t> missing = engine->missing_cycle_lengths(first, count, starts);
    if (!missing.empty()) engine->set_cycle_terms(missing, a.terms(missing));
    append(r, engine->run_batch(first, count, starts, r.tallies));
  }
  kernels::WalkSketchBins bins;
  engine->finish(r.tallies, bins);
  take_bins(r, bins);
  return r;
}

template <class T>
void expect_same_memory(const std::vector<T>& x, const std::vector<T>& y, const std::string& what) {
  ASSERT_EQ(x.size(), y.size()) << what;
  if (x.empty()) return;  // memcmp takes no null pointer, even for 0 bytes (UBSan)
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(T)), 0) << what;
}

/// On the emulated device every double is the CPU twin's bit for bit; a real GPU's libm (C4's log and sqrt,
/// the noise's log and sin) moves them by a few ulps (docs/walk_sim.md "CUDA (accounted walks)"), so there
/// the doubles are compared to 1e-10 relative and only the integers byte for byte.
void expect_same_accounting(const AccountedRuns& cpu, const AccountedRuns& gpu, const std::string& what) {
  expect_same_bytes(cpu.tallies, gpu.tallies, what);
  expect_same_memory(cpu.cycles, gpu.cycles, what + ": cycles");
  expect_same_memory(cpu.noises, gpu.noises, what + ": noises");
#if defined(NETDP_EMULATED_DEVICE)
  expect_same_memory(cpu.shared, gpu.shared, what + ": shared losses");
  expect_same_memory(cpu.pairs, gpu.pairs, what + ": corrected pairs");
  expect_same_memory(cpu.truth, gpu.truth, what + ": utility truth");
  expect_same_memory(cpu.noise, gpu.noise, what + ": utility noise");
  EXPECT_EQ(cpu.bins, gpu.bins) << what << ": sketch bins";
  EXPECT_EQ(cpu.zero, gpu.zero) << what << ": sketch zero bin";
#else
  const auto near = [&](const std::vector<double>& x, const std::vector<double>& y, const char* name) {
    ASSERT_EQ(x.size(), y.size()) << what << ": " << name;
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_NEAR(x[i], y[i], 1e-10 * std::max(1.0, std::abs(x[i]))) << what << ": " << name << " " << i;
  };
  near(cpu.shared, gpu.shared, "shared losses");
  near(cpu.truth, gpu.truth, "utility truth");
  near(cpu.noise, gpu.noise, "utility noise");
  for (std::size_t i = 0; i < cpu.pairs.size(); ++i)
    ASSERT_EQ(cpu.pairs[i].count, gpu.pairs[i].count) << what;
#endif
}

struct AccountedCase {
  TwinCase walk;
  WalkMechanism mechanism;
  WalkView view;
};

std::vector<AccountedCase> accounted_cases() {
  using M = WalkMechanism;
  using V = WalkView;
  std::vector<AccountedCase> c;
  c.push_back({{"complete n = 30", complete_walk(30), {StartKind::node, 0}, 3000, 9}, M::gaussian, V::known});
  c.push_back({{"complete n = 20, histogram", complete_walk(20), {StartKind::uniform}, 1500, 6},
               M::histogram,
               V::known});
  c.push_back(
      {{"directed ring, utility every n - 1 hops", directed_ring_walk(13), {StartKind::uniform}, 800, 5},
       M::gaussian,
       V::known});
  c.push_back({{"star, lazy", make_walk_model("star:n=9", "lazy-uniform"), {StartKind::stationary}, 2000, 7},
               M::gaussian,
               V::known});
  c.push_back({{"ER metropolis",
                make_walk_model("er:n=60,p=0.1,seed=3", "metropolis"),
                {StartKind::node, 7},
                2500,
                8},
               M::gaussian,
               V::known});
  c.push_back({{"ER uniform, hidden view",
                make_walk_model("er:n=60,p=0.1,seed=3", "uniform"),
                {StartKind::stationary},
                2500,
                8},
               M::gaussian,
               V::hidden});
  c.push_back({{"ER uniform, histogram, hidden",
                make_walk_model("er:n=40,p=0.15,seed=2", "uniform"),
                {StartKind::uniform},
                1200,
                5},
               M::histogram,
               V::hidden});
  return c;
}

/// The accounted run of case `c` with `seed`: its walk's parameters, accounting on, its mechanism and view.
WalkSimParams accounted_params(const AccountedCase& c, std::uint64_t seed) {
  WalkSimParams p = params_of(c.walk, seed);
  p.accounting = true;
  p.mechanism = c.mechanism;
  p.view = c.view;
  return p;
}

TEST(WalkSimTwins, AccountedWalksCpuTwinEqualsCudaTwin) {
  NETDP_NEEDS_CUDA_DEVICE();
  for (const AccountedCase& c : accounted_cases()) {
    for (std::uint64_t seed : {std::uint64_t{3}, std::uint64_t{77}}) {
      const WalkSimParams p = accounted_params(c, seed);
      const AccountingSetup a(c.walk.model, p);
      for (std::int64_t batch : {std::int64_t{1}, std::int64_t{3}, p.runs}) {
        const std::string what =
            c.walk.what + ", seed " + std::to_string(seed) + ", batch " + std::to_string(batch);
        const AccountedRuns cpu = cpu_accounted(c.walk, a, batch, 2);
        expect_consistent(cpu.tallies, p, c.walk.model.n, what + ", CPU twin");
        ASSERT_EQ(cpu.cycles.size(), static_cast<std::size_t>(p.runs * c.walk.model.n)) << what;
        EXPECT_FALSE(cpu.bins.empty()) << what;
        expect_same_accounting(cpu, cuda_accounted(c.walk, a, batch), what);
      }
    }
  }
}

TEST(WalkSimTwins, AccountedCpuTwinIsTheSameForAnyThreadCountAndBatch) {
  for (const AccountedCase& c : accounted_cases()) {
    const WalkSimParams p = accounted_params(c, 5);
    const AccountingSetup a(c.walk.model, p);
    const AccountedRuns one = cpu_accounted(c.walk, a, p.runs, 1);
    const AccountedRuns three = cpu_accounted(c.walk, a, 2, 3);
    expect_same_bytes(one.tallies, three.tallies, c.walk.what);
    expect_same_memory(one.cycles, three.cycles, c.walk.what + ": cycles");
    expect_same_memory(one.shared, three.shared, c.walk.what + ": shared");
    expect_same_memory(one.pairs, three.pairs, c.walk.what + ": pairs");
    expect_same_memory(one.noise, three.noise, c.walk.what + ": noise");
    EXPECT_EQ(one.bins, three.bins) << c.walk.what;
  }
}

// ---- what runs in the CPU twin only (docs/walk_sim.md "CPU and CUDA twins": CPU twin only) ----

/// Hop distances from node 0 by BFS over the model's rows (the complete graph: 1 for every other node).
std::vector<std::int64_t> hops_from_node0(const WalkModel& m) {
  std::vector<std::int64_t> d(static_cast<std::size_t>(m.n), m.offsets.empty() ? 1 : -1);
  d[0] = 0;
  if (m.offsets.empty()) return d;
  std::vector<node_t> queue{0};
  for (std::size_t i = 0; i < queue.size(); ++i)
    for (offset_t e = m.offsets[queue[i]]; e < m.offsets[queue[i] + 1]; ++e)
      if (d[m.targets[e]] < 0) {
        d[m.targets[e]] = d[queue[i]] + 1;
        queue.push_back(m.targets[e]);
      }
  return d;
}

TEST(WalkSimTwins, ReferenceBookkeepingCpuTwinIsThePathAccountant) {
  // The CPU twin with WalkAccountingInputs::reference against account_path (RunAccountant's reference
  // bookkeeping on the path sample_walk gives) per run and observer: k_v, the shared loss, the corrected
  // pairs in increasing u (PairLosses bit for bit) and node 0's pair kept apart where it is no neighbour.
  for (const TwinCase& c :
       {TwinCase{"complete n = 10", complete_walk(10), {StartKind::node, 0}, 1000, 6},
        TwinCase{
            "ER uniform", make_walk_model("er:n=60,p=0.1,seed=3", "uniform"), {StartKind::node, 7}, 1500, 5},
        TwinCase{"ER lazy (self-loops)",
                 make_walk_model("er:n=40,p=0.12,seed=4", "lazy-uniform"),
                 {StartKind::stationary},
                 1200,
                 5}}) {
    for (WalkMechanism mechanism : {WalkMechanism::gaussian, WalkMechanism::histogram}) {
      WalkSimParams p = params_of(c, 13);
      p.accounting = true;
      p.mechanism = mechanism;
      p.bookkeeping = WalkBookkeeping::reference;
      AccountingSetup a(c.model, p);
      a.in.reference = true;
      const std::vector<std::int64_t> hops = hops_from_node0(c.model);
      std::vector<std::uint8_t> far(hops.size());
      for (std::size_t v = 0; v < hops.size(); ++v) far[v] = hops[v] > 1 ? 1 : 0;
      a.in.node0_far = far;
      const std::string what = c.what + (mechanism == WalkMechanism::gaussian ? ", gaussian" : ", histogram");
      const AccountedRuns cpu = cpu_accounted(c, a, 2, 2);
      std::int64_t apart = 0;
      const auto n = static_cast<std::size_t>(c.model.n);
      for (std::int64_t run = 0; run < p.runs; ++run) {
        const PathAccounting ref = account_path(sample_walk(c.model, p, run), c.model.n, p);
        for (std::size_t v = 0; v < n; ++v) {
          const std::size_t i = static_cast<std::size_t>(run) * n + v;
          ASSERT_EQ(cpu.cycles[i], ref.cycles[v]) << what << ", run " << run << ", v " << v;
          kernels::walk::PairLosses pairs;
          double node0 = -1, shared = cpu.shared[i];
          for (std::size_t u = 0; u < n; ++u) {
            const double loss = ref.loss[u * n + v];
            if (u == v || loss == shared) continue;
            if (u == 0 && far[v]) {
              node0 = loss;
              ++apart;
            } else {
              pairs.add(loss);
            }
          }
          EXPECT_EQ(std::memcmp(&pairs, &cpu.pairs[i], sizeof pairs), 0)
              << what << ", run " << run << ", v " << v;
          EXPECT_EQ(cpu.node0.empty() ? -1.0 : cpu.node0[i], node0) << what << ", run " << run << ", v " << v;
        }
      }
      if (c.model.kind != WalkKind::complete) {
        EXPECT_GT(apart, 0) << what;
      }
    }
  }
}

/// The terms beyond a short table from the host (the CPU twin's histogram cycles past 2^20).
struct HostTerms final : kernels::walk::HostCycleTerms {
  const AccountingSetup* a = nullptr;
  kernels::walk::CycleTerms terms(std::int64_t m) const override { return a->terms(m); }
};

TEST(WalkSimTwins, CyclesBeyondTheTableTakeTheHostTerms) {
  // The split the CPU twin makes at 2^20 lengths, made at 8 here: the cycles longer than the table take
  // WalkAccountingInputs::beyond; every output is the same bytes as with the whole table.
  for (const AccountedCase& c : accounted_cases()) {
    const WalkSimParams p = accounted_params(c, 21);
    const AccountingSetup whole(c.walk.model, p);
    AccountingSetup split(c.walk.model, p);
    HostTerms host;
    host.a = &split;
    split.in.table_lengths = 8;
    if (split.in.gaussian) split.in.table = std::span(split.table).first(8);
    split.in.beyond = &host;
    const AccountedRuns x = cpu_accounted(c.walk, whole, 3, 2), y = cpu_accounted(c.walk, split, 3, 2);
    expect_same_bytes(x.tallies, y.tallies, c.walk.what);
    expect_same_memory(x.cycles, y.cycles, c.walk.what + ": cycles");
    expect_same_memory(x.shared, y.shared, c.walk.what + ": shared");
    expect_same_memory(x.pairs, y.pairs, c.walk.what + ": pairs");
    EXPECT_EQ(x.bins, y.bins) << c.walk.what;
  }
}

TEST(WalkSimTwins, SavedPathsAreTheStepRulePaths) {
  // --save-paths (walk_path_cpu, the one step loop with a recording visitor) against next_node applied
  // position by position, for every walk kind and start rule.
  for (const TwinCase& c : cases()) {
    WalkSimParams p = params_of(c, 4);
    p.steps = std::min<std::int64_t>(p.steps, 500);
    p.runs = std::min<std::int64_t>(p.runs, 4);
    p.save_paths = true;
    const WalkSimResult r = walk_sim(c.model, p);
    ASSERT_EQ(r.paths.size(), static_cast<std::size_t>(p.runs)) << c.what;
    const kernels::walk::ModelView m{c.model.n, c.model.offsets.data(), c.model.targets.data(),
                                     c.model.thresholds.data()};
    for (std::int64_t run = 0; run < p.runs; ++run) {
      std::vector<node_t> path{walk_start(c.model, p, run)};
      kernels::walk::WalkCursor w(p.seed, static_cast<std::uint64_t>(run), path[0]);
      kernels::walk::for_kind(c.model.kind, [&](auto kind) {
        for (std::int64_t t = 1; t < p.steps; ++t)
          path.push_back(kernels::walk::next_node<kind.value>(m, path.back(), w.words, w.retry, t));
      });
      EXPECT_EQ(r.paths[static_cast<std::size_t>(run)], path) << c.what << ", run " << run;
    }
  }
}

}  // namespace
}  // namespace netdp
