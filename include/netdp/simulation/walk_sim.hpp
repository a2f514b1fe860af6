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

#include "netdp/core/graph.hpp"
#include "netdp/simulation/walk_sim_model.hpp"
#include "netdp/simulation/walk_sim_params.hpp"

namespace netdp {

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
  // Visits (always); with statistics visits only `visits`, the rest empty.
  std::vector<std::int64_t> visits, returns, return_time_sum, hits, hitting_time_sum;  // per node, all runs
  TimeHistogram return_times, hitting_times;
  std::map<std::int64_t, std::int64_t> visit_counts;  // visits of a node in a run -> (node, run) pairs
  std::int64_t visit_counts_above_nv = 0;             // complete graph: (node, run) pairs with visits >= N_v
  // Utility of private real summation (accounting runs, Gaussian mechanism).
  double sigma_loc = 0;
  std::vector<UtilityRun> utility;
  std::vector<std::vector<node_t>> paths;  // params.save_paths
  std::string device, device_note;
  std::string engine;  // cpu, or cuda statistics / stepping / accounted (docs/walk_sim.md "CUDA")
  int threads = 1;
  std::int64_t batch_runs = 0, batches = 0;
  std::int64_t walks_in_flight = 1;  // the most walks a CPU thread advanced together
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

}  // namespace netdp
