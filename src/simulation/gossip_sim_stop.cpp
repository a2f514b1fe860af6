// Privacy at equal accuracy (docs/gossip_sim.md "Stopping at an accuracy rule"; thesis App C.8.6): each run
// stops at the first round meeting the rule, and the accountant runs on its schedule cut there.
#include "netdp/simulation/gossip_sim_stop.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_statistics.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp {

namespace {

/// The losses of the pairs u != v of the rows that stream out of the accountant.
class PairSink final : public LossRowSink {
 public:
  explicit PairSink(node_t n) : n_(n) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override {
    for (node_t i = 0; i < count; ++i)
      for (node_t v = 0; v < n_; ++v)
        if (v != first_source + i) pairs.add(rows[static_cast<std::size_t>(i) * n_ + v]);
  }
  LossAggregate pairs;

 private:
  node_t n_;
};

/// Mean, sample sd, min and max of values (in order: thread-independent).
StopStatistics statistics(const std::vector<double>& values) {
  StopStatistics s;
  s.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) {
    s.mean = s.std = s.min = s.max = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / double(values.size());
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.std = values.size() > 1 ? std::sqrt(squares / double(values.size() - 1))
                            : std::numeric_limits<double>::quiet_NaN();
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

}  // namespace

StopRule parse_stop_rule(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  StopRule rule;
  bool ok = colon != std::string_view::npos && (kind == "thesis" || kind == "error");
  if (ok) {
    rule.kind = kind == "thesis" ? StopRuleKind::thesis : StopRuleKind::error;
    const std::string_view number = text.substr(colon + 1);
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), rule.value);
    ok = ec == std::errc() && end == number.data() + number.size() && std::isfinite(rule.value) &&
         rule.value > 0;
  }
  if (!ok)
    throw InvalidParameter(
        "stop-at",
        "stop-at: expected thesis:C or error:E with a finite number > 0, got '" + std::string(text) + "'");
  return rule;
}

std::string to_string(const StopRule& rule) {
  return std::string(rule.kind == StopRuleKind::thesis ? "thesis:" : "error:") + format_double(rule.value);
}

GossipStopResult gossip_sim_stop(const Graph& g, const CsrMatrix& w, std::span<const double> x,
                                 const GossipSimParams& p, const GossipPrivacyParams& q, const StopRule& rule,
                                 const GossipSimProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  validate(q, p, g.n);
  GossipStopResult r;
  r.rule = rule;
  const std::vector<GossipStopPoint> points = gossip_sim_stop_points(g, w, x, p, rule);
  const GossipLossParams lp = gossip_privacy_loss_params(q, p);
  std::vector<double> stops, means, maxima;
  for (std::int64_t run = 0; run < p.runs; ++run) {
    GossipStopRun out;
    out.point = points[static_cast<std::size_t>(run)];
    out.rounds = out.point.stop.value_or(p.steps);
    // The schedule of the first `rounds` rounds is the prefix of the run's T rounds: every round is drawn
    // from (seed, run, round) alone (the layout of gossip_sim.hpp).
    if (out.rounds - q.t_start >= 1) {
      GossipSimParams cut = p;
      cut.steps = out.rounds;
      const GossipSchedule s = uses_graph_weights(p.protocol) ? sample_gossip_schedule(g, w, cut, run)
                                                              : sample_gossip_schedule(g, cut, run);
      PairSink sink(g.n);
      gossip_loss_sequence(s, lp, sink);
      out.mean_loss = sink.pairs.mean();
      out.max_loss = sink.pairs.count ? sink.pairs.max : 0.0;
    }  // else no message was sent: every loss is 0
    if (out.point.stop) {
      stops.push_back(double(out.rounds));
      means.push_back(out.mean_loss);
      maxima.push_back(out.max_loss);
    } else {
      r.not_met.push_back(run);
    }
    r.runs.push_back(out);
    if (progress) progress(double(run + 1) / double(p.runs));
  }
  r.stop = statistics(stops);
  r.mean_loss = statistics(means);
  r.max_loss = statistics(maxima);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace netdp
