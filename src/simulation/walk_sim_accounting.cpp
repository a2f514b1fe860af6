// Per-cycle epsilons and the sufficient-statistics composition of docs/math.md §4.1.3 (docs/walk_sim.md
// "Accounting").
#include "simulation/walk_sim_accounting.hpp"

#include <algorithm>

#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/shuffling.hpp"
#include "netdp/dp/subsampling.hpp"

namespace netdp::walk_detail {

namespace {
constexpr std::int64_t kTableCap = std::int64_t{1} << 20;
}

CycleEpsilons::CycleEpsilons(node_t n, const WalkSimParams& p)
    : n_(n),
      mechanism_(p.mechanism),
      eps0_(p.eps0),
      delta_(p.delta),
      cap_(std::min(p.steps, kTableCap)),
      table_(static_cast<std::size_t>(cap_) + 1),
      state_(new std::atomic<std::uint8_t>[static_cast<std::size_t>(cap_) + 1]) {
  for (std::int64_t m = 0; m <= cap_; ++m) state_[m].store(0, std::memory_order_relaxed);
}

CycleEntry CycleEpsilons::compute(std::int64_t m) const {
  CycleEntry e;
  // mass: G6 aggregation eps0 / sqrt(m), or for histograms min(Hoeffding, Bennett, Erlingsson) of SH3 with m
  // shuffled randomisers; c = 0: SS2, m draws with replacement from n.
  e.mass = mechanism_ == WalkMechanism::gaussian ? dp::aggregated_gaussian_epsilon(eps0_, double(m))
                                                 : dp::shuffle_epsilon(eps0_, m, delta_);
  e.zero = kernels::walk::eps_terms(dp::with_replacement_epsilon(e.mass, m, n_));
  return e;
}

CycleEntry CycleEpsilons::at(std::int64_t m) const {
  if (m > cap_) return compute(m);
  std::atomic<std::uint8_t>& state = state_[m];
  if (state.load(std::memory_order_acquire) == 2) return table_[m];
  std::uint8_t expected = 0;
  if (!state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return compute(m);  // busy
  table_[m] = compute(m);
  state.store(2, std::memory_order_release);
  return table_[m];
}

EpsTerms CycleEpsilons::terms(std::int64_t m, int c) const {
  const CycleEntry e = at(m);
  if (c == 0) return e.zero;
  return kernels::walk::eps_terms(c == 1 ? e.mass : 2 * e.mass);
}

void RunAccountant::reset(node_t n, WalkBookkeeping bookkeeping) {
  reference_ = bookkeeping == WalkBookkeeping::reference;
  shared_.assign(static_cast<std::size_t>(n), dp::HeterogeneousSums{});
  // -1: no receiver before a node's first send; the reference code starts every node's at node 0.
  last_send_.assign(static_cast<std::size_t>(n), reference_ ? 0 : -1);
  corrections_.clear();
}

void RunAccountant::finish(const CycleEpsilons& eps, double delta, const Observer& observer) {
  // Stable by pair: a pair's corrections stay in time order (the CUDA backend's radix sort gives the same
  // order, so both add them to the shared sums identically).
  std::stable_sort(corrections_.begin(), corrections_.end(),
                   [](const Correction& a, const Correction& b) { return a.key < b.key; });
  std::size_t i = 0;
  const auto n = static_cast<node_t>(shared_.size());
  for (node_t v = 0; v < n; ++v) {
    const dp::HeterogeneousSums& s = shared_[v];
    const double shared_loss = dp::heterogeneous_composition(s, delta).epsilon;
    pairs_.clear();
    while (i < corrections_.size() && (corrections_[i].key >> 32) == std::uint64_t(v)) {
      const std::uint64_t key = corrections_[i].key;
      dp::HeterogeneousSums pair = s;  // the shared list with this u's boundary entries replaced
      for (; i < corrections_.size() && corrections_[i].key == key; ++i) {
        const EpsTerms zero = eps.at(corrections_[i].m).zero;
        const EpsTerms known = eps.terms(corrections_[i].m, int(corrections_[i].c));
        pair.sum += known.eps - zero.eps;
        pair.sum_squares += known.square - zero.square;
        pair.sum_first += known.first - zero.first;
      }
      pairs_.push_back(
          {static_cast<node_t>(key & 0xffffffffu), dp::heterogeneous_composition(pair, delta).epsilon});
    }
    observer(v, s.count, shared_loss, pairs_);
  }
}

}  // namespace netdp::walk_detail
