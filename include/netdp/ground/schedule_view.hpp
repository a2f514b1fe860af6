#pragma once
// The ground (docs/design.md "The ground"): a non-owning view of who talks to whom in one run of a gossip
// protocol (docs/math.md §6.1, 6.3, 6.4, 6.8), for the backends' time-varying accountants. Built from any
// schedule type with the library's GossipSchedule members (n, steps, activations, round(t) with w and graph);
// round(t) views that schedule's round t, so the schedule must outlive the view.
#include <span>
#include <utility>

#include "netdp/ground/types.hpp"
#include "netdp/ground/views.hpp"

namespace netdp {

struct ScheduleView {
  node_t n = 0;
  int steps = 0;  // T: rounds or ticks
  /// Randomized gossip: the edge {v, w} activated at each tick (v == w: nobody talks); empty otherwise.
  std::span<const std::pair<node_t, node_t>> activations;

  template <class S>
  requires requires(const S& s) { s.round(0).w, s.round(0).graph, s.activations.data(), s.steps; }
  ScheduleView(const S& s)
      : n(s.n), steps(s.steps), activations(s.activations), schedule_(&s), round_(&round_of<S>) {}

  bool randomized() const { return !activations.empty(); }
  /// Round t (t < steps) of a synchronous schedule.
  RoundView round(int t) const { return round_(schedule_, t); }

 private:
  template <class S>
  static RoundView round_of(const void* schedule, int t) {
    const auto& r = static_cast<const S*>(schedule)->round(t);
    return {r.w, r.graph};
  }
  const void* schedule_ = nullptr;
  RoundView (*round_)(const void*, int) = nullptr;
};

}  // namespace netdp
