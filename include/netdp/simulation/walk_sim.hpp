#pragma once
// Monte Carlo token walks with the empirical privacy accounting fused in (docs/math.md §4.1.3, E2 / E3): R
// independent walks of T positions on the complete graph (implicit), on a CSR graph with a transition matrix
// W, or on the directed ring; streaming visit, return-time and hitting-time statistics; per run, the pairwise
// losses eps_{u->v} from the cycles of every observer v, composed with C4 through sufficient statistics, and
// the LDP baseline; the utility of private real summation (docs/math.md §3.1, 4.1). Docs: docs/walk_sim.md.
//
// A walk of T positions p_0 .. p_{T-1}: p_0 is the start, p_t (t >= 1) the node that received the token from
// p_{t-1}; every position is one contribution (T contributions, T - 1 transitions; the reference code's
// K = 100 n).
//
// Randomness layout (docs/design.md principle 2): every draw comes from PhiloxStream(seed, kind << 56 | run,
// offset):
//   kind 1 (walk):  position t = 1 .. T-1 uses words [w (t - 1), w t) of the stream, w = words_per_step
//                   (1: complete, uniform and lazy walks, one 32-bit Lemire draw; 2: weighted rows, one
//                   64-bit fixed-point draw; 0: the directed ring);
//   kind 2 (start): the start of a run (uniform or stationary), words from offset 0;
//   kind 3 (retry): a Lemire draw of position t that falls in the rejection zone (probability < bound / 2^32)
//                   is redrawn with next_below from offset t << 20 of this stream;
//   kind 4 (noise): the Gaussian noise of position t: next_normal_pair at offset 4 t, first member;
//   kind 5 (values): the synthetic value x_v in (0, 1) of node v, next_uniform_double at offset 2 v (run 0).
// A walk is a function of (seed, run) only: identical for any thread count, batch size or device.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

enum class WalkKind {
  complete,       // implicit K_n with self-transitions: W = J/n (docs/math.md §4)
  uniform,        // 1/d_v to each neighbour (row-normalised adjacency)
  lazy_uniform,   // 1/2 stay, 1/(2 d_v) to each neighbour (exact integer draw)
  weighted,       // any row-stochastic W on the edges and the diagonal (64-bit cumulative thresholds)
  directed_ring,  // v -> v + 1 mod n, deterministic (docs/math.md §3.1)
};
std::string to_string(WalkKind k);

/// The transition rule of a walk, built once and shared read-only by every run.
struct WalkModel {
  WalkKind kind = WalkKind::complete;
  node_t n = 0;
  std::int64_t edges = 0;         // undirected edges of the graph (n (n - 1) / 2 for the complete graph)
  std::vector<offset_t> offsets;  // CSR rows (uniform, lazy: the adjacency; weighted: W's positive entries)
  std::vector<node_t> targets;    // column of each entry
  std::vector<std::uint64_t> thresholds;             // weighted: cumulative 2^64 fixed point within the row
  std::vector<node_t> degrees;                       // graph degrees (CSR walks)
  std::vector<double> stationary;                    // pi; empty means uniform 1/n
  std::vector<std::uint64_t> stationary_thresholds;  // general pi: cumulative 2^64 fixed point over nodes
  std::string weights;                               // what W is, for reports
  std::string stationary_rule;                       // how pi was obtained

  int words_per_step() const;
  double pi(node_t v) const { return stationary.empty() ? 1.0 / n : stationary[v]; }
  node_t degree(node_t v) const;  // n - 1 for the complete graph, 1 for the directed ring (out-degree)
};

WalkModel complete_walk(node_t n);
WalkModel directed_ring_walk(node_t n);

/// Transition rules of a CSR walk: "uniform" (1/d_v), "lazy-uniform" (exact), "directed-ring" (the ring
/// family only), or a weighting of weighting.hpp (metropolis, hamilton-literal, max-degree, file:PATH), whose
/// W is checked to be row-stochastic on the graph.
struct WalkWeights {
  enum class Rule { uniform, lazy_uniform, directed_ring, matrix } rule = Rule::uniform;
  WeightsSpec matrix;
};
WalkWeights parse_walk_weights(std::string_view text);
std::string to_string(const WalkWeights& w);

/// A walk on a connected graph with n >= 2 (InvalidInput otherwise). pi: d_v / 2m for the uniform and lazy
/// walks, 1/n when W is doubly stochastic, else by (lazy) power iteration.
WalkModel csr_walk(const Graph& g, const WalkWeights& weights);

/// The walk of a graph spec: `complete:n=N` with weights "auto" or "metropolis" is the implicit J/n walk (no
/// graph is built); "auto" is "uniform" on every other graph. `graph` receives the CSR graph when one is
/// built (for hop distances).
WalkModel make_walk_model(std::string_view graph_spec, std::string_view weights, Graph* graph = nullptr);

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
WalkMechanism parse_walk_mechanism(std::string_view text);
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
  bool accounting = true;  // false: plain walks (visit statistics only)
  double eps0 = 0.1;       // LDP level of one contribution
  double delta = 1e-7;     // delta of C4 (delta_new = k delta) and of the LDP baseline C2 (delta' = delta)
  WalkMechanism mechanism = WalkMechanism::gaussian;
  WalkView view = WalkView::known;
  WalkBookkeeping bookkeeping = WalkBookkeeping::definition;  // reference: the authors' code (CPU only)
  std::vector<double> quantiles{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
  bool save_paths = false;      // keep every path (R T <= kMaxSavedPositions)
  std::int64_t batch_runs = 0;  // runs per batch; 0 = automatic
  DeviceSpec device;            // walks and their accounting run on CUDA; save_paths on the CPU
};
inline constexpr std::int64_t kMaxSavedPositions = 1'000'000;

/// Throws InvalidParameter naming the offending parameter ("steps", "delta", "bookkeeping", ...;
/// DeviceUnavailable for cuda without a device), InvalidInput for n < 2; n is the number of nodes.
void validate(const WalkSimParams& p, node_t n);

/// Count, weighted sum (compensated), min and max of losses; `weight` counts ordered pairs (u, v) and runs.
struct LossStats {
  double weight = 0, sum = 0, compensation = 0;
  double min = 0, max = 0;
  void add(double x, double w);
  void merge(const LossStats& o);
  double mean() const { return weight > 0 ? (sum + compensation) / weight : 0.0; }
};

/// Histogram of times 1 .. cap (counts[t]; counts[0] unused) and of the times above cap (count, sum).
struct TimeHistogram {
  std::vector<std::int64_t> counts;
  std::int64_t overflow = 0, overflow_sum = 0, total = 0, sum = 0;
  double mean() const { return total ? double(sum) / double(total) : 0.0; }
};

struct UtilityRun {
  double truth = 0, estimate = 0;  // sum of the T values, and of the T noisy contributions
  std::int64_t noises = 0;         // contributions that carried noise
};

struct WalkSimResult {
  node_t n = 0;
  std::int64_t steps = 0, runs = 0;
  // Accounting (when params.accounting).
  LossStats network, local;  // over ordered pairs u != v and runs; local = LDP of the victim u
  std::vector<std::pair<double, double>> network_quantiles;  // (q, value), relative resolution 1e-4
  std::vector<LossStats> by_distance;  // index = hop distance (0 unused); empty without distances
  std::vector<double> observer_loss;   // per v: mean over runs of (1/(n-1)) sum_{u != v} eps_{u->v}
  std::vector<double> node_local;      // per v: mean over runs of v's LDP loss
  std::vector<std::int64_t> cycles;    // per v: cycles over all runs
  // Visits (always).
  std::vector<std::int64_t> visits, returns, return_time_sum, hits, hitting_time_sum;  // per node, all runs
  TimeHistogram return_times, hitting_times;
  std::map<std::int64_t, std::int64_t> visit_counts;  // visits of a node in a run -> (node, run) pairs
  std::int64_t visit_counts_above_nv = 0;             // complete graph: (node, run) pairs with visits >= N_v
  // Utility of private real summation (accounting runs, Gaussian mechanism).
  double sigma_loc = 0;
  std::vector<UtilityRun> utility;
  std::vector<std::vector<node_t>> paths;  // params.save_paths
  std::string device, device_note;
  int threads = 1;
  std::int64_t batch_runs = 0, batches = 0;
  double seconds = 0, steps_per_second = 0;
};

/// Per observer v, the number of nodes at each hop distance d >= 0: counts[offsets[v] + d]; from_node0[v] =
/// the hop distance between node 0 and v (the reference bookkeeping's initial receiver, which need not be a
/// neighbour of v).
struct DistanceCounts {
  std::vector<offset_t> offsets;
  std::vector<std::int64_t> counts;
  std::vector<node_t> from_node0;
};
/// BFS from every node (parallel). Returns false and leaves `out` empty when the table would exceed
/// `max_entries` or the BFS work n (n + 2m) exceeds 2e10 (hop statistics are then skipped).
bool distance_counts(const Graph& g, DistanceCounts& out, std::int64_t max_entries = std::int64_t{1} << 24);

/// Called with the fraction of the run-steps done (from one thread at a time).
using WalkSimProgress = std::function<void(double)>;

/// Runs p.runs walks of p.steps positions; results do not depend on the thread count or the batch size.
/// Pair statistics by hop distance need `distances` (CSR walks); the complete graph has every pair at
/// distance 1.
WalkSimResult walk_sim(const WalkModel& model, const WalkSimParams& p,
                       const DistanceCounts* distances = nullptr, const WalkSimProgress& progress = {});

/// The path of run `run` (T positions), by the same code as walk_sim.
std::vector<node_t> sample_walk(const WalkModel& model, const WalkSimParams& p, std::int64_t run);

/// The start node of run `run`.
node_t walk_start(const WalkModel& model, const WalkSimParams& p, std::int64_t run);

/// docs/math.md §4.1.3 on one given path (a test hook; n x n memory): loss[u * n + v] = eps_{u->v} (row u =
/// victim, column v = observer, 0 on the diagonal), cycles[v] = v's cycles, local[v] = C2(eps0, delta, k =
/// cycles[v], delta' = delta).
struct PathAccounting {
  node_t n = 0;
  std::vector<double> loss;
  std::vector<std::int64_t> cycles;
  std::vector<double> local;
};
PathAccounting account_path(std::span<const node_t> path, node_t n, const WalkSimParams& p);

/// Complete-graph theory per run (docs/walk_sim.md "Statistics"), positions p_1 .. p_{T-1} i.i.d. uniform:
/// expected returns of length m (gaps between consecutive visits of a node, the start's position 0 counting
/// as a visit), (T - m) (1/n) (1 - 1/n)^(m-1) for 1 <= m < T; expected first visits at h of the n - 1 nodes
/// other than the start, (n - 1) (1/n) (1 - 1/n)^(h-1) for 1 <= h < T; expected nodes with k visits, (n - 1)
/// Bin(T-1, 1/n)(k) + Bin(T-1, 1/n)(k - 1) (the start has one visit more), i.e. n Bin(T, 1/n)(k) for a
/// uniform start.
double complete_expected_returns(node_t n, std::int64_t steps, std::int64_t m);
double complete_expected_hits(node_t n, std::int64_t steps, std::int64_t h);
double complete_expected_visit_counts(node_t n, std::int64_t steps, std::int64_t k);

/// Private real summation: contributions carrying noise in a run (T, or on the directed ring the positions 0,
/// n-1, 2(n-1), ... of Alg 5.1: floor((T-1)/(n-1)) + 1), and the std the sources state for the estimate:
/// sqrt(T) sigma_loc (docs/math.md §4.1), sqrt(floor(K n/(n-1))) sigma_loc with K n = T on the ring
/// (Thm 5.5).
std::int64_t summation_noises(const WalkModel& m, std::int64_t steps);
double summation_theory_std(const WalkModel& m, std::int64_t steps, double sigma_loc);

/// Philox subsequence of a stream kind and run (the layout above).
enum class WalkStream : std::uint64_t { walk = 1, start = 2, retry = 3, noise = 4, values = 5 };
constexpr std::uint64_t walk_subsequence(WalkStream kind, std::uint64_t run) {
  return static_cast<std::uint64_t>(kind) << 56 | run;
}

}  // namespace netdp
