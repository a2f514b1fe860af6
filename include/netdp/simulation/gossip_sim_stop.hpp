#pragma once
// Privacy at equal accuracy (docs/gossip_sim.md "Stopping at an accuracy rule"): each run of the gossip
// simulator stops at the first round t whose consensus error meets a rule, and its pairwise losses are those
// of its first t rounds (the messages t_start .. t - 1 of its schedule, docs/math.md §6.1, 6.9). The thesis
// compares dropout levels this way (App C.8.6, Table C.2): stopping each run at
//   (1/n) ||x^t - xbar_noisy||^2 < c (xbar_noisy - xbar)^2,
// xbar_noisy the mean of the (clipped) noisy start x^0 and xbar that of the private values x.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/gossip_sim_privacy.hpp"

namespace netdp {

enum class StopRuleKind {
  thesis,  // e_noisy(t) < c ||xbar_noisy - xbar||^2 (the thesis' rule with c = 3)
  error,   // e_noisy(t) < target
};

/// "thesis:C" (C > 0) or "error:E" (E > 0); InvalidParameter "stop-at" otherwise.
struct StopRule {
  StopRuleKind kind = StopRuleKind::thesis;
  double value = 3;  // c, or the target
};
StopRule parse_stop_rule(std::string_view text);
std::string to_string(const StopRule& rule);

/// Where one run meets the rule. e_noisy(t) = (1/n) sum_v ||x_v^t - xbar_noisy||^2 (mse.csv's noisy_mean for
/// one run), bias = ||xbar_noisy - xbar||^2 (summed over the D coordinates).
struct GossipStopPoint {
  std::optional<int> stop;  // the first t in 0 .. T with e_noisy(t) < threshold; none within T
  double threshold = 0;     // c bias, or the target
  double bias = 0;
  double error = 0;  // e_noisy at the stop, or at T when the rule is never met
};

/// The stop point of every run, from the same states as gossip_sim (every round looked at, whatever
/// p.record_every; on the CPU, so clip_start is honoured).
std::vector<GossipStopPoint> gossip_sim_stop_points(const Graph& g, const CsrMatrix& w,
                                                    std::span<const double> x, const GossipSimParams& p,
                                                    const StopRule& rule);

/// One run's losses over its first `rounds` rounds, over the ordered pairs u != v of the rows computed (all,
/// or the row of the source).
struct GossipStopRun {
  GossipStopPoint point;
  int rounds = 0;  // the stop, or T when the rule is never met (then not in the statistics below)
  double mean_loss = 0, max_loss = 0;
};

/// Mean and sample standard deviation (NaN for fewer than 2 values) of the runs that met the rule.
struct StopStatistics {
  std::int64_t count = 0;
  double mean = 0, std = 0, min = 0, max = 0;
};

struct GossipStopResult {
  StopRule rule;
  std::vector<GossipStopRun> runs;           // in run order, every run
  std::vector<std::int64_t> not_met;         // the runs that never met the rule within T
  StopStatistics stop, mean_loss, max_loss;  // over the runs that met it
  double seconds = 0;
};

/// Stop points, then the accountant (the parameters q: exact or theorem, source, t_start) on each run's
/// schedule cut at its stop (a run never meeting the rule is accounted over all T rounds and listed in
/// not_met). Zero messages (stop <= t_start) give zero losses. Results do not depend on the thread count.
GossipStopResult gossip_sim_stop(const Graph& g, const CsrMatrix& w, std::span<const double> x,
                                 const GossipSimParams& p, const GossipPrivacyParams& q, const StopRule& rule,
                                 const GossipSimProgress& progress = {});

}  // namespace netdp
