// Walk simulator parameters: names and validation (docs/design.md principle 6: one clear message per bad
// value).
#include <cmath>
#include <string>

#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/simulation/walk_sim_params.hpp"

namespace netdp {

namespace {
constexpr std::int64_t kMaxRuns = std::int64_t{1} << 56;  // the run field of the Philox subsequence
// T < 2^32: the twins' visit tables keep 32-bit times (kernels::kWalkMaxSteps, kernels/walk_sim_kernels.hpp).
constexpr std::int64_t kMaxSteps = std::int64_t{1} << 32;
constexpr std::int64_t kMaxAccountedSteps = (std::int64_t{1} << 31) - 1;  // cycle lengths in 32 bits

[[noreturn]] void bad(const char* parameter, const std::string& message) {
  throw InvalidParameter(parameter, message);
}
}  // namespace

WalkMechanism parse_walk_mechanism(std::string_view text) {
  if (text == "gaussian") return WalkMechanism::gaussian;
  if (text == "histogram") return WalkMechanism::histogram;
  bad("mechanism", "mechanism: expected gaussian or histogram, got '" + std::string(text) + "'");
}

WalkView parse_walk_view(std::string_view text) {
  if (text == "known") return WalkView::known;
  if (text == "hidden") return WalkView::hidden;
  bad("view", "view: expected known or hidden, got '" + std::string(text) + "'");
}

WalkBookkeeping parse_walk_bookkeeping(std::string_view text) {
  if (text == "definition") return WalkBookkeeping::definition;
  if (text == "reference") return WalkBookkeeping::reference;
  bad("bookkeeping", "bookkeeping: expected definition or reference, got '" + std::string(text) + "'");
}

WalkStatistics parse_walk_statistics(std::string_view text) {
  if (text == "full") return WalkStatistics::full;
  if (text == "visits") return WalkStatistics::visits;
  bad("statistics", "statistics: expected full or visits, got '" + std::string(text) + "'");
}

std::string to_string(WalkStatistics s) {
  return s == WalkStatistics::full ? "full" : "visits";
}
std::string to_string(WalkMechanism m) {
  return m == WalkMechanism::gaussian ? "gaussian" : "histogram";
}
std::string to_string(WalkView v) {
  return v == WalkView::known ? "known" : "hidden";
}
std::string to_string(WalkBookkeeping b) {
  return b == WalkBookkeeping::definition ? "definition" : "reference";
}

void validate(const WalkSimParams& p, node_t n) {
  if (n < 2) throw InvalidInput("walk-sim needs n >= 2 nodes, got n = " + std::to_string(n));
  if (p.steps < 1) bad("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (p.steps >= kMaxSteps)
    bad("steps", "steps must be < 2^32 (a walk's visit times are 32-bit), got " + std::to_string(p.steps));
  if (p.runs < 1) bad("runs", "runs must be >= 1, got " + std::to_string(p.runs));
  if (p.runs >= kMaxRuns) bad("runs", "runs must be < 2^56, got " + std::to_string(p.runs));
  if (!(p.eps0 > 0) || !std::isfinite(p.eps0))
    bad("eps0", "eps0 must be a finite number > 0, got " + format_double(p.eps0));
  if (!(p.delta > 0 && p.delta < 1)) bad("delta", "delta must be in (0, 1), got " + format_double(p.delta));
  if (p.start.kind == StartKind::node && (p.start.node < 0 || p.start.node >= n))
    bad("start", "start node:" + std::to_string(p.start.node) +
                     " is not a node of the graph (n = " + std::to_string(n) + ")");
  for (double q : p.quantiles)
    if (!(q >= 0 && q <= 1))
      bad("quantiles", "quantiles: every quantile must be in [0, 1], got " + format_double(q));
  if (p.batch_runs < 0) bad("batch-runs", "batch-runs must be >= 0, got " + std::to_string(p.batch_runs));
  if (p.walks_in_flight < 0)
    bad("walks-in-flight", "walks-in-flight must be >= 0, got " + std::to_string(p.walks_in_flight));
  if (p.save_paths && p.runs > kMaxSavedPositions / p.steps)
    bad("save-paths", "save-paths is for small runs: R T = " + std::to_string(p.runs) + " x " +
                          std::to_string(p.steps) + " positions exceed " +
                          std::to_string(kMaxSavedPositions));
  if (p.accounting && p.statistics == WalkStatistics::visits)
    bad("statistics", "statistics visits is for plain walks: set no-accounting");
  if (p.save_paths && p.statistics == WalkStatistics::visits)
    bad("statistics", "statistics visits keeps no paths: unset save-paths");
  if (p.accounting) {
    if (p.steps > kMaxAccountedSteps)
      bad("steps", "steps: the accounting needs T < 2^31 (got " + std::to_string(p.steps) +
                       "); set no-accounting for plain walks");
    // C4 uses delta_new = k delta with k up to T - 1 cycles per observer (docs/math.md §1.4).
    if (double(p.steps - 1) * p.delta >= 1)
      bad("delta", "delta " + format_double(p.delta) + " times T - 1 = " + std::to_string(p.steps - 1) +
                       " cycles must stay below 1 (C4 composes with delta_new = k delta)");
  }
  // Plain and accounted walks run on CUDA (docs/walk_sim.md "CUDA"); saved paths and the reference
  // bookkeeping are CPU only, and the histogram mechanism's per-cycle levels (SH3) are tabulated on the host
  // for cycles up to 2^20 positions. Each refusal names the parameter that asks for the CPU-only feature.
  if (p.device.kind == DeviceKind::cuda) {
    if (p.accounting && p.mechanism == WalkMechanism::histogram && p.steps - 1 > (std::int64_t{1} << 20))
      bad("mechanism", "mechanism histogram needs T - 1 <= 2^20 on device cuda (got T = " +
                           std::to_string(p.steps) + "); use device cpu or auto");
    if (p.save_paths)
      bad("save-paths", "save-paths runs on the CPU only, not on device cuda; use device cpu or auto");
    // The CUDA accounting implements the definition's receiver only (docs/walk_sim.md "Receiver
    // bookkeeping").
    if (p.accounting && p.bookkeeping == WalkBookkeeping::reference)
      bad("bookkeeping",
          "bookkeeping reference runs on the CPU only, not on device cuda; use device cpu or auto");
    (void)resolve_device(p.device);  // DeviceUnavailable when no such device answers
  }
}

}  // namespace netdp
