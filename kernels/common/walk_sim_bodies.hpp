#pragma once
// Single-source bodies of the walk engine's twins (docs/walk_sim.md "CPU and CUDA twins",
// docs/cuda_backend.md "Single-source bodies and the device-bodies tests"): every per-thread body of
// kernels/cuda/walk_sim_cuda.cu and walk_sim_accounting_cuda.cu, written once over plain pointers. The CUDA
// files launch them with device_for_each (common/for_each.hpp); the CPU twin (kernels/cpu/walk_sim_cpu.cpp)
// runs them per walk on OpenMP threads; tests/backend/test_walk_sim_bodies.cpp runs the same functors on the
// host against slow counts over sample_walk's paths and the library's path accountant (account_path). Every
// body walks through the one step loop, walk::walk_steps (common/walk_sim_steps.hpp), with its own visitor.
//
// Per-walk node state: walk k of a batch keeps node v's entries at index v * stride + k.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/dp_math.hpp"
#include "common/for_each.hpp"
#include "common/hd.hpp"
#include "common/philox.hpp"
#include "common/rounding.hpp"
#include "common/walk_sim_layout.hpp"
#include "common/walk_sim_math.hpp"
#include "common/walk_sim_steps.hpp"
#include "netdp/ground/types.hpp"

namespace netdp::kernels::walk {

using Counter = unsigned long long;  // atomicAdd's 64-bit type; every tally is >= 0

/// One walk of a batch: walk k (run first_run + k), its cursor at position 0 on `start` (walk_steps) and
/// its column of the per-node state.
struct WalkThread {
  std::int64_t k;
  std::uint64_t run;
  std::size_t stride;
  WalkCursor cursor;

  NETDP_HD WalkThread(std::int64_t k_, std::int64_t first_run, std::int64_t stride_, std::uint64_t seed,
                      node_t start)
      : k(k_),
        run(static_cast<std::uint64_t>(first_run + k_)),
        stride(static_cast<std::size_t>(stride_)),
        cursor(seed, run, start) {}
  NETDP_HD std::size_t cell(node_t v) const {
    return static_cast<std::size_t>(v) * stride + static_cast<std::size_t>(k);
  }
};

// ---- visit tallies (64-bit integer atomics: exact, order free) ----

struct TallyView {
  Counter *visits = nullptr, *returns = nullptr, *return_sum = nullptr, *hits = nullptr, *hit_sum = nullptr;
  Counter *return_counts = nullptr, *hitting_counts = nullptr, *visit_dense = nullptr, *above_nv = nullptr;
  std::int64_t* overflow = nullptr;  // visit counts above visit_cap (appended)
  Counter* overflow_used = nullptr;
  std::int64_t overflow_capacity = 0, time_cap = 0, visit_cap = 0;
  double nv = 0;
  bool exclusive = false;  // one host thread owns these tallies (the CPU twin's): plain additions
};

/// A 64-bit tally addition; returns the previous value. An atomic on the device and wherever threads share
/// the tallies; a plain addition where one host thread owns them (kernels/cpu/walk_sim_cpu.cpp keeps one set
/// per thread and sums them at the end), the same integers either way.
NETDP_HD inline Counter tally_add(const TallyView& out, Counter* target, Counter value) {
#if !defined(__CUDA_ARCH__)
  if (out.exclusive) {
    const Counter old = *target;
    *target = old + value;
    return old;
  }
#endif
  return atomic_add(target, value);
}

/// The view of an owner of the tally arrays (TallyBuffers on the device, HostTallies in
/// tests/backend/test_walk_sim_bodies.cpp): members visits .. overflow_used with data() (above_nv and
/// overflow_used of one element, overflow of overflow_capacity), time_cap, visit_cap and nv.
template <class Arrays>
TallyView tally_view(Arrays& a) {
  return {a.visits.data(),
          a.returns.data(),
          a.return_sum.data(),
          a.hits.data(),
          a.hit_sum.data(),
          a.return_counts.data(),
          a.hitting_counts.data(),
          a.visit_dense.data(),
          a.above_nv.data(),
          a.overflow.data(),
          a.overflow_used.data(),
          static_cast<std::int64_t>(a.overflow.size()),
          a.time_cap,
          a.visit_cap,
          a.nv};
}

/// The visit at t of a node seen `seen` times before in the run, last at `last`: a return of length t - last,
/// or the first hit at t.
NETDP_HD inline void tally_visit(const TallyView& out, std::int64_t seen, std::int64_t last, std::int64_t t) {
  if (seen > 0) {
    const std::int64_t gap = t - last;
    tally_add(out, &out.return_counts[gap <= out.time_cap ? gap : out.time_cap + 1], Counter{1});
  } else {
    tally_add(out, &out.hitting_counts[t <= out.time_cap ? t : out.time_cap + 1], Counter{1});
  }
}

/// Node v's totals at the end of a run with c >= 1 visits, the first at `first` and the last at `last`
/// (docs/walk_sim.md "Statistics"): returns = c - 1, return-time sum = last - first, a hit at `first` unless
/// v is the start (first = 0). Returns 1 when c >= nv (CB1), else 0.
NETDP_HD inline Counter fold_node(const TallyView& out, node_t v, std::int64_t c, std::int64_t first,
                                  std::int64_t last) {
  tally_add(out, &out.visits[v], static_cast<Counter>(c));
  tally_add(out, &out.returns[v], static_cast<Counter>(c - 1));
  tally_add(out, &out.return_sum[v], static_cast<Counter>(last - first));
  if (first > 0) {
    tally_add(out, &out.hits[v], Counter{1});
    tally_add(out, &out.hit_sum[v], static_cast<Counter>(first));
  }
  if (c <= out.visit_cap) {
    tally_add(out, &out.visit_dense[c], Counter{1});
  } else {
    const Counter slot = tally_add(out, out.overflow_used, Counter{1});
    if (slot < static_cast<Counter>(out.overflow_capacity)) out.overflow[slot] = c;
  }
  return static_cast<double>(c) >= out.nv ? 1 : 0;
}

/// The nodes a run never visited: visit count 0 (and >= nv only when nv <= 0).
NETDP_HD inline Counter fold_unvisited(const TallyView& out, std::int64_t unvisited) {
  if (unvisited == 0) return 0;
  tally_add(out, &out.visit_dense[0], static_cast<Counter>(unvisited));
  return 0.0 >= out.nv ? static_cast<Counter>(unvisited) : 0;
}

// ---- accounted walks (walk_sim_accounting_cuda.cu; docs/math.md §4.1.3) ----

/// Where the CPU twin finds the C4 terms of cycles longer than its table (the histogram mechanism's SH3
/// levels past 2^20, which have no closed form for the device): the host's CycleEpsilons. Host only.
struct HostCycleTerms {
  virtual CycleTerms terms(std::int64_t m) const = 0;

 protected:
  ~HostCycleTerms() = default;
};

/// The C4 terms of the cycle lengths m = 1 .. size, made on the host by the CPU's CycleEpsilons.
struct CycleTable {
  const CycleTerms* terms = nullptr;  // m = 1 .. size
  std::int64_t size = 0;
  double eps0 = 0;
  std::int64_t n = 0;
  const HostCycleTerms* host =
      nullptr;  // host only: lengths beyond the table (nullptr: Gaussian closed form)
};

/// The C4 terms of a cycle of length m: the host's table; beyond it the host's terms when given (CPU twin),
/// else (Gaussian mechanism only) gaussian_cycle_terms with this side's libm (on the device, a few ulps from
/// the CPU).
NETDP_HD inline CycleTerms cycle_terms(const CycleTable& t, std::int64_t m) {
  if (m <= t.size) return t.terms[m - 1];
#if !defined(__CUDA_ARCH__)
  if (t.host != nullptr) return t.host->terms(m);
#endif
  return gaussian_cycle_terms(t.eps0, m, t.n);
}

/// PhiloxStream::next_normal_pair().first at offset 4 t of the run's noise stream (docs/walk_sim.md
/// "Randomness layout").
NETDP_HD inline double position_noise(std::uint64_t seed, std::uint64_t run, std::int64_t t) {
  philox::Stream s(seed, walk_subsequence(WalkStream::noise, run), 4 * static_cast<std::uint64_t>(t));
  return s.next_normal_pair().first;
}

/// Walks first_run .. first_run + count - 1 with their accounting state; per-node state at v * stride + k.
struct AccountedBatch {
  std::uint64_t seed = 0;
  std::int64_t first_run = 0, count = 0, stride = 0, steps = 0;
  const node_t* starts = nullptr;  // per walk; nullptr: every walk starts at start_node
  node_t start_node = 0;
  std::int64_t *first = nullptr, *last = nullptr, *count_run = nullptr;  // as the plain walks
  node_t* last_send = nullptr;  // whom v sent the token to at its last visit (-1: nobody yet; reference: 0)
  double *zero_sum = nullptr, *zero_square = nullptr, *zero_first = nullptr;  // c = 0 sums per observer
  std::uint64_t *keys = nullptr, *values = nullptr;  // records: walk k's segment [k capacity, (k+1) capacity)
  std::int64_t capacity = 0;
  int node_bits = 1;                 // key = k << 2 node_bits | v << node_bits | u
  std::uint64_t sentinel = 0;        // key of an unused slot (k = stride): after every real key
  const double* values_x = nullptr;  // utility: x_v (nullptr: no utility)
  double sigma_loc = 0;
  double *truth = nullptr, *noise = nullptr;
  std::int64_t* noises = nullptr;
  bool reference = false;  // WalkBookkeeping::reference (CPU twin): receiver read before the send is recorded

  NETDP_HD node_t start(std::int64_t k) const { return starts != nullptr ? starts[k] : start_node; }
  NETDP_HD std::uint64_t key(std::int64_t k, node_t v, node_t u) const {
    return static_cast<std::uint64_t>(k) << (2 * node_bits) | static_cast<std::uint64_t>(v) << node_bits |
           static_cast<std::uint64_t>(u);
  }
  NETDP_HD std::size_t cell(std::int64_t k, node_t v) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(k);
  }
  /// v's cycles in walk k: its visits but the start's position 0.
  NETDP_HD double cycles_of(std::int64_t k, node_t v) const {
    return static_cast<double>(count_run[cell(k, v)] - (v == start(k) ? 1 : 0));
  }
};

/// Private real summation of one walk (docs/math.md §4.1 / 3.1): every position adds x_v; noise at every
/// position, or on the directed ring once every n - 1 hops (Alg 5.1), summed as the CPU does.
struct WalkUtility {
  double truth = 0, noise = 0;
  std::int64_t noises = 0;

  NETDP_HD void position(const AccountedBatch& b, bool ring, node_t n, std::uint64_t run, std::int64_t t,
                         node_t v) {
    if (b.values_x == nullptr) return;
    truth += b.values_x[v];
    if (ring && t % (n - 1) != 0) return;
    ++noises;
    noise = rn_add(noise, rn_mul(b.sigma_loc, position_noise(b.seed, run, t)));
  }
};

/// Walk k: the path and visit tallies of the plain walks, per observer v the sums of the c = 0 terms of v's
/// cycles in time order (RunAccountant::cycle's order, so the sums are account_path's bit for bit), and in
/// the known view one record per boundary participant in the walk's segment (definition bookkeeping, or with
/// b.reference the reference code's); the unused slots get the sentinel key (after every real key) and 0.
template <WalkKind kKind, bool kKnown>
struct AccountedWalkBody {
  ModelView m;
  AccountedBatch b;
  CycleTable table;
  TallyView out;

  NETDP_HD void operator()(std::int64_t k) const {
    WalkThread w(k, b.first_run, b.stride, b.seed, b.start(k));
    constexpr bool kRing = kKind == WalkKind::directed_ring;
    WalkUtility utility;
    std::uint64_t* keys = b.keys + k * b.capacity;
    std::uint64_t* values = b.values + k * b.capacity;
    std::int64_t used = 0;

    std::size_t at = w.cell(w.cursor.v);
    b.first[at] = 0;
    b.last[at] = 0;
    b.count_run[at] = 1;
    utility.position(b, kRing, m.n, w.run, 0, w.cursor.v);
    walk_steps<kKind>(m, &w.cursor, std::integral_constant<int, 1>{}, 1, b.steps,
                      [&](int, std::int64_t t, node_t sender, node_t v) {
                        at = w.cell(v);
                        const std::int64_t seen = b.count_run[at];
                        const std::int64_t previous = seen > 0 ? b.last[at] : 0;
                        tally_visit(out, seen, previous, t);
                        if (seen == 0) b.first[at] = t;
                        b.count_run[at] = seen + 1;
                        b.last[at] = t;
                        // The visit closes v's cycle of m = t - (previous visit, or 0) positions.
                        const std::int64_t length = t - previous;
                        const CycleTerms terms = cycle_terms(table, length);
                        b.zero_sum[at] += terms.zero.eps;
                        b.zero_square[at] += terms.zero.square;
                        b.zero_first[at] += terms.zero.first;
                        if constexpr (kKnown) {
                          node_t receiver;
                          if (!b.reference) {
                            b.last_send[w.cell(sender)] = v;  // first: after a self-loop, v's receiver is v
                            receiver = b.last_send[at];
                          } else {
                            // The reference code (docs/math.md §4.1.3): read, then record the send that
                            // brought the token here (after a self-loop v keeps its previous receiver).
                            receiver = b.last_send[at];
                            b.last_send[w.cell(sender)] = v;
                          }
                          if (receiver >= 0 && receiver != v) {
                            keys[used] = b.key(k, v, receiver);
                            values[used++] =
                                static_cast<std::uint64_t>(length) << 2 | (receiver == sender ? 2u : 1u);
                          }
                          if (sender != v && sender != receiver) {
                            keys[used] = b.key(k, v, sender);
                            values[used++] = static_cast<std::uint64_t>(length) << 2 | 1u;
                          }
                        }
                        utility.position(b, kRing, m.n, w.run, t, v);
                      });
    for (std::int64_t i = used; i < b.capacity; ++i) {
      keys[i] = b.sentinel;
      values[i] = 0;
    }
    if (b.values_x != nullptr) {
      b.truth[k] = utility.truth;
      b.noise[k] = utility.noise;
      b.noises[k] = utility.noises;
    }
    std::int64_t unvisited = 0;
    Counter above = 0;
    for (node_t v = 0; v < m.n; ++v) {  // the visit tallies; the per-node state stays for the next bodies
      at = w.cell(v);
      const std::int64_t c = b.count_run[at];
      if (c == 0)
        ++unvisited;
      else
        above += fold_node(out, v, c, b.first[at], b.last[at]);
    }
    above += fold_unvisited(out, unvisited);
    if (above > 0) tally_add(out, out.above_nv, above);
  }
};

/// First pass of a histogram batch, walk k: the same walk, marking every cycle length that occurs (up to
/// `lengths`) in `used`, so that the host computes the SH3 levels of those lengths only. Reads and leaves
/// count_run (zero on entry) and last.
template <WalkKind kKind>
struct CycleLengthBody {
  ModelView m;
  AccountedBatch b;
  std::int64_t lengths;
  std::uint8_t* used;

  NETDP_HD void operator()(std::int64_t k) const {
    WalkThread w(k, b.first_run, b.stride, b.seed, b.start(k));
    b.count_run[w.cell(w.cursor.v)] = 1;
    b.last[w.cell(w.cursor.v)] = 0;
    walk_steps<kKind>(m, &w.cursor, std::integral_constant<int, 1>{}, 1, b.steps,
                      [&](int, std::int64_t t, node_t, node_t v) {
                        const std::size_t at = w.cell(v);
                        const std::int64_t length = t - (b.count_run[at] > 0 ? b.last[at] : 0);
                        if (length <= lengths) set_flag(&used[length]);  // racing threads store one value
                        b.count_run[at] = 1;
                        b.last[at] = t;
                      });
  }
};

/// Record i of the records sorted by key (stable: a pair's records in time order): the first record of each
/// pair adds the pair's corrections onto v's shared sums, in that order (RunAccountant::finish), and writes
/// the pair's C4 loss at its own index of `loss`.
struct PairLossBody {
  AccountedBatch b;
  CycleTable table;
  const std::uint64_t* keys;
  const std::uint64_t* values;
  std::int64_t records;
  double delta;
  double* loss;

  NETDP_HD void operator()(std::int64_t i) const {
    const std::uint64_t key = keys[i];
    if (key >= b.sentinel || (i > 0 && keys[i - 1] == key)) return;
    const std::uint64_t mask = (std::uint64_t{1} << b.node_bits) - 1;
    const auto k = static_cast<std::int64_t>(key >> (2 * b.node_bits));
    const auto v = static_cast<node_t>((key >> b.node_bits) & mask);
    const std::size_t at = b.cell(k, v);
    double sum = b.zero_sum[at], square = b.zero_square[at], first = b.zero_first[at];
    for (std::int64_t j = i; j < records && keys[j] == key; ++j) {
      const CycleTerms terms = cycle_terms(table, static_cast<std::int64_t>(values[j] >> 2));
      const EpsTerms& known = (values[j] & 3) == 1 ? terms.one : terms.two;
      sum += known.eps - terms.zero.eps;
      square += known.square - terms.zero.square;
      first += known.first - terms.zero.first;
    }
    loss[i] = dp_math::heterogeneous_epsilon(b.cycles_of(k, v), sum, square, first, delta);
  }
};

/// First index in [0, size) whose key is >= key.
NETDP_HD inline std::int64_t lower_bound(const std::uint64_t* keys, std::int64_t size, std::uint64_t key) {
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

/// Where a host thread of the CPU twin collects its sketch bins (kernels/cpu/walk_sim_cpu.cpp): sparse, since
/// the device's dense array over every positive double would take 58 MB per thread. Host only.
struct HostBinSink {
  virtual void add(std::int64_t bin, Counter weight) = 0;
  virtual void add_zero(Counter weight) = 0;

 protected:
  ~HostBinSink() = default;
};

/// The quantile sketch's bins as integer weights: bins first_bin .. first_bin + size - 1 (clamped) and x <=
/// 0; on the host, into `host` instead when it is set (the same bins, unclamped).
struct SketchBins {
  Counter* counts = nullptr;
  Counter* zero = nullptr;
  std::int64_t first_bin = 0, size = 0;
  double log_base = 0;
  HostBinSink* host = nullptr;

  NETDP_HD void add(double x, Counter weight) const {
    if (weight == 0) return;
#if !defined(__CUDA_ARCH__)
    if (host != nullptr) {
      if (x <= 0)
        host->add_zero(weight);
      else
        host->add(quantile_bin(x, log_base), weight);
      return;
    }
#endif
    if (x <= 0) {
      atomic_add(zero, weight);
      return;
    }
    const std::int64_t bin = quantile_bin(x, log_base) - first_bin;
    atomic_add(&counts[bin < 0 ? 0 : (bin >= size ? size - 1 : bin)], weight);
  }
};

/// Per (walk k, observer v), index k n + v: k_v, the loss shared by the u without a correction, and the
/// corrected pairs' losses (the CPU's RunAccountant::finish for one observer).
struct ObserverOutputs {
  std::int64_t* cycles = nullptr;
  double* shared = nullptr;
  PairLosses* pairs = nullptr;
  // The reference bookkeeping's initial receiver, node 0, where it is no neighbour of v (node0_far[v] != 0):
  // its pair's loss apart in node0_loss (-1: no such pair; losses are >= 0), not among `pairs`.
  const std::uint8_t* node0_far = nullptr;
  double* node0_loss = nullptr;
};

/// (walk k, observer v) at index k n + v: v's shared loss C4(S_v), its corrected pairs found by binary
/// search on the sorted keys and added in increasing u (PairLosses, the CPU's order), the sketch's bins.
struct ObserverLossBody {
  AccountedBatch b;
  std::int64_t n;
  const std::uint64_t* keys;
  const double* loss;
  std::int64_t records;
  double delta;
  SketchBins bins;
  ObserverOutputs out;

  NETDP_HD void operator()(std::int64_t index) const {
    const std::int64_t k = index / n;
    const auto v = static_cast<node_t>(index % n);
    const std::size_t at = b.cell(k, v);
    const double cycles = b.cycles_of(k, v);
    const double shared =
        dp_math::heterogeneous_epsilon(cycles, b.zero_sum[at], b.zero_square[at], b.zero_first[at], delta);
    PairLosses pairs;
    const bool apart = out.node0_far != nullptr && out.node0_far[v] != 0;
    std::int64_t distant = 0;
    if (apart) out.node0_loss[index] = -1;
    if (records > 0) {
      const std::uint64_t low = b.key(k, v, 0), high = low + (std::uint64_t{1} << b.node_bits);
      const std::int64_t end = lower_bound(keys, records, high);
      for (std::int64_t j = lower_bound(keys, records, low); j < end; ++j) {
        if (j > 0 && keys[j - 1] == keys[j]) continue;  // not the first record of its pair
        bins.add(loss[j], 1);
        if (apart && keys[j] == low) {  // u = 0
          out.node0_loss[index] = loss[j];
          distant = 1;
          continue;
        }
        pairs.add(loss[j]);
      }
    }
    bins.add(shared, static_cast<Counter>(n - 1 - static_cast<std::int64_t>(pairs.count) - distant));
    out.cycles[index] = static_cast<std::int64_t>(cycles);
    out.shared[index] = shared;
    out.pairs[index] = pairs;
  }
};

}  // namespace netdp::kernels::walk
