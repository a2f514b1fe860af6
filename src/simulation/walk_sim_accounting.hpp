#pragma once
// Empirical per-walk accounting of docs/math.md §4.1.3 by sufficient statistics (docs/walk_sim.md "Accounting").
// Every cycle of observer v (m positions since its previous visit) adds one entry to the list of every u !=
// v: the c = 0 value (SS2) for all u except the cycle's two boundary participants (the node v last sent to
// and the node that just sent to v), which get c >= 1. C4 needs a list only through its length and three
// sums, so a run keeps per v the sums of the c = 0 entries (shared by all u) and one correction record per
// boundary participant: O(n + T) memory instead of n^2 lists.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "common/walk_sim_math.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace netdp::walk_detail {

using kernels::walk::EpsTerms;

/// A cycle of length m: its mass (eps0 / sqrt(m), G6; or the SH3 shuffling level for histograms) and the
/// c = 0 terms of ln(1 + (1 - (1 - 1/n)^m)(e^mass - 1)) (SS2).
struct CycleEntry {
  double mass = 0;
  EpsTerms zero;
};

/// Memoised per-cycle values for m <= min(T, 2^20) (filled lazily, thread-safe), computed beyond.
class CycleEpsilons {
 public:
  CycleEpsilons(node_t n, const WalkSimParams& p);
  CycleEntry at(std::int64_t m) const;
  /// The C4 terms of the entry with c boundary participants equal to u: c = 0 SS2, 1 mass, 2 2 mass.
  EpsTerms terms(std::int64_t m, int c) const;
  /// The per-cycle epsilon itself.
  double epsilon(std::int64_t m, int c) const { return terms(m, c).eps; }

 private:
  CycleEntry compute(std::int64_t m) const;
  node_t n_;
  WalkMechanism mechanism_;
  double eps0_, delta_;
  std::int64_t cap_;
  mutable std::vector<CycleEntry> table_;
  std::unique_ptr<std::atomic<std::uint8_t>[]> state_;  // 0 empty, 1 being computed, 2 ready
};

/// One correction: cycle length m of observer v (key high word) with c in {1, 2} for u (key low word).
struct Correction {
  std::uint64_t key;
  std::uint32_t m, c;
};

struct PairLoss {
  node_t u;
  double loss;
};

/// The accounting state of one run (per thread, reused between runs).
class RunAccountant {
 public:
  /// O(n). `bookkeeping`: how the receiver of a cycle is kept (docs/math.md §4.1.3; WalkBookkeeping).
  void reset(node_t n, WalkBookkeeping bookkeeping = WalkBookkeeping::definition);

  /// A cycle of v of length m closed by `sender` (the previous position). kKnown: v knows its receiver and
  /// sender (docs/math.md §4.1.3); otherwise c = 0 for every u (docs/math.md §12 item 22).
  template <bool kKnown>
  void cycle(node_t v, std::int64_t m, node_t sender, const CycleEpsilons& eps) {
    const CycleEntry e = eps.at(m);
    dp::HeterogeneousSums& s = shared_[v];
    s.count += 1;
    s.sum += e.zero.eps;
    s.sum_squares += e.zero.square;
    s.sum_first += e.zero.first;
    if constexpr (kKnown) {
      node_t receiver;
      if (!reference_) {
        last_send_[sender] = v;    // first: after a self-loop, v's receiver is v itself
        receiver = last_send_[v];  // whom v sent to at its previous visit (none before it)
      } else {
        // The reference code (docs/math.md §4.1.3): read, then record the send that brought the token here,
        // so after a self-loop v keeps the receiver of its previous-but-one visit (node 0 initially).
        receiver = last_send_[v];
        last_send_[sender] = v;
      }
      const auto length = static_cast<std::uint32_t>(m);
      if (receiver >= 0 && receiver != v)
        corrections_.push_back({key(v, receiver), length, receiver == sender ? 2u : 1u});
      if (sender != v && sender != receiver) corrections_.push_back({key(v, sender), length, 1u});
    }
  }

  /// For v = 0 .. n-1: observer(v, cycles k_v, loss shared by the u != v without a correction, the corrected
  /// pairs (u, loss) in increasing u). Losses are C4 with delta (docs/math.md §1.4).
  using Observer = std::function<void(node_t, double, double, std::span<const PairLoss>)>;
  void finish(const CycleEpsilons& eps, double delta, const Observer& observer);

 private:
  static std::uint64_t key(node_t v, node_t u) {
    return std::uint64_t(std::uint32_t(v)) << 32 | std::uint32_t(u);
  }
  std::vector<dp::HeterogeneousSums> shared_;
  std::vector<node_t> last_send_;
  bool reference_ = false;  // WalkBookkeeping::reference
  std::vector<Correction> corrections_;
  std::vector<PairLoss> pairs_;
};

}  // namespace netdp::walk_detail
