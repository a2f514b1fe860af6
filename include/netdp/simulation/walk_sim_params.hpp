#pragma once
// The parameters of a walk simulation (docs/walk_sim.md "Options"): start rule, accounting mechanism, view
// and receiver bookkeeping (docs/math.md §4.1.3), batches and device; validate() names the offending
// parameter.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"

namespace netdp {

enum class StartKind { node, uniform, stationary };
struct WalkStart {
  StartKind kind = StartKind::node;
  node_t node = 0;
};
WalkStart parse_walk_start(std::string_view text);  // "node:U" | "uniform" | "stationary"
std::string to_string(const WalkStart& s);

enum class WalkMechanism { gaussian, histogram };  // per-cycle mass: eps0/sqrt(m) (G6) or SH3 shuffling
enum class WalkView { known, hidden };  // v knows its sender and receiver (Fig 7.1b), or c = 0 always (12.22)
/// Who v's receiver is in the known view (docs/math.md §4.1.3, docs/walk_sim.md "Receiver bookkeeping"):
///   definition: the node v sent the token to at its previous visit; none before v's first send, and v itself
///               (no participant u) after a self-transition v -> v;
///   reference:  the authors' code: every node's last receiver starts at node 0, and the send p_{t-1} -> v is
///               recorded after v's cycle reads it, so the cycle closed at t uses p_{j+1}, j = v's last visit
///               at a position <= t - 2 (node 0 when there is none): after a self-transition, the receiver of
///               v's previous-but-one visit. CPU only.
enum class WalkBookkeeping { definition, reference };
/// What plain walks tally (docs/walk_sim.md "Visits only"): every visit statistic (visits, returns, hitting
/// times, their histograms, visit counts), or the per-node visit totals alone, which the CUDA stepping
/// engine counts with no per-node state per walk (docs/cuda_backend.md "Walk engine for throughput").
enum class WalkStatistics { full, visits };
WalkMechanism parse_walk_mechanism(std::string_view text);
WalkStatistics parse_walk_statistics(std::string_view text);  // "full" | "visits"
std::string to_string(WalkStatistics s);
WalkView parse_walk_view(std::string_view text);
WalkBookkeeping parse_walk_bookkeeping(std::string_view text);  // "definition" | "reference"
std::string to_string(WalkMechanism m);
std::string to_string(WalkView v);
std::string to_string(WalkBookkeeping b);

struct WalkSimParams {
  std::int64_t steps = 1;  // T >= 1 positions (contributions) per walk
  std::int64_t runs = 1;   // R >= 1 walks
  std::uint64_t seed = 0;  // Philox key
  WalkStart start;
  bool accounting = true;                            // false: plain walks (visit statistics only)
  WalkStatistics statistics = WalkStatistics::full;  // visits: plain walks' visit totals only
  double eps0 = 0.1;                                 // LDP level of one contribution
  double delta = 1e-7;  // delta of C4 (delta_new = k delta) and of the LDP baseline C2 (delta' = delta)
  WalkMechanism mechanism = WalkMechanism::gaussian;
  WalkView view = WalkView::known;
  WalkBookkeeping bookkeeping = WalkBookkeeping::definition;  // reference: the authors' code (CPU only)
  std::vector<double> quantiles{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
  bool save_paths = false;      // keep every path (R T <= kMaxSavedPositions)
  std::int64_t batch_runs = 0;  // runs per batch; 0 = automatic
  // Plain CSR walks on the CPU: walks one thread advances together (docs/walk_sim.md "Interleaved CPU
  // walks"); 0 = automatic (up to 32), 1 = one walk at a time. Results do not depend on it.
  std::int64_t walks_in_flight = 0;
  DeviceSpec device;  // walks and their accounting run on CUDA; save_paths on the CPU
};
inline constexpr std::int64_t kMaxSavedPositions = 1'000'000;

/// Throws InvalidParameter naming the offending parameter ("steps", "delta", "bookkeeping", ...;
/// DeviceUnavailable for cuda without a device), InvalidInput for n < 2; n is the number of nodes.
void validate(const WalkSimParams& p, node_t n);

}  // namespace netdp
