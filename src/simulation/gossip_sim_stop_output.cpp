// privacy_stop.csv and summary.json's "stop" object of `netdp gossip-sim --privacy --stop-at` (formats:
// docs/gossip_sim.md "Stopping at an accuracy rule", docs/outputs.md).
#include <cmath>
#include <string>

#include "netdp/core/format.hpp"
#include "netdp/io/run_result.hpp"
#include "simulation/gossip_sim_privacy_internal.hpp"

namespace netdp::gossip_sim_detail {

using json = nlohmann::json;

namespace {

json number(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

json statistics_json(const StopStatistics& s) {
  return {{"runs", s.count},
          {"mean", number(s.mean)},
          {"std", number(s.std)},
          {"min", number(s.min)},
          {"max", number(s.max)}};
}

}  // namespace

json add_stop_outputs(RunResult& result, const GossipStopResult& r) {
  CsvTable& csv =
      result.table("privacy_stop.csv", {{"run", CsvType::int64},
                                        {"met", CsvType::int64},
                                        {"stop_t", CsvType::int64},  // empty when the rule was not met
                                        {"rounds", CsvType::int64},
                                        {"error", CsvType::float64},
                                        {"threshold", CsvType::float64},
                                        {"bias", CsvType::float64},
                                        {"mean_loss", CsvType::float64},
                                        {"max_loss", CsvType::float64}});
  for (std::size_t run = 0; run < r.runs.size(); ++run) {
    const GossipStopRun& s = r.runs[run];
    csv.row({run, s.point.stop.has_value(), s.point.stop ? CsvCell(*s.point.stop) : CsvCell(csv_empty),
             s.rounds, s.point.error, s.point.threshold, s.point.bias, s.mean_loss, s.max_loss});
  }
  const bool thesis = r.rule.kind == StopRuleKind::thesis;
  json j = {
      {"rule", to_string(r.rule)},
      {"meaning", thesis ? "first t with (1/n) ||x^t - xbar_noisy||^2 < " + format_double(r.rule.value) +
                               " (xbar_noisy - xbar)^2"
                         : "first t with (1/n) ||x^t - xbar_noisy||^2 < " + format_double(r.rule.value)},
      {"runs", static_cast<std::int64_t>(r.runs.size())},
      {"runs_met", r.stop.count},
      {"all_met", r.not_met.empty()},
      {"not_met", r.not_met},
      {"stop_t", statistics_json(r.stop)},
      {"mean_loss", statistics_json(r.mean_loss)},
      {"max_loss", statistics_json(r.max_loss)},
      {"seconds", r.seconds}};
  if (!r.not_met.empty())
    j["warning"] = std::to_string(r.not_met.size()) + " of " + std::to_string(r.runs.size()) +
                   " runs never met the rule within the steps: raise --steps; they are left out of the "
                   "statistics (privacy_stop.csv gives their losses at T with met = 0)";
  return j;
}

}  // namespace netdp::gossip_sim_detail
