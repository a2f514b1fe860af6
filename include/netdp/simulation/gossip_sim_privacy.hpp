#pragma once
// Privacy over the runs of the gossip simulator (docs/math.md §6.1, 6.3, 6.4, 6.8, 6.9): for each run r, the
// pairwise Renyi losses on that run's schedule (sample_gossip_schedule, a function of (seed, r)), by the
// time-varying accountant gossip_loss_sequence: exact (the default, §6.9) or Theorem 6.1's sum (not a bound);
// across runs, per ordered pair (u, v): mean, min, max and quantiles; per run: summary numbers; by hop
// distance; for er-per-round, the Theorem 6.6 bound next to the losses. Docs: docs/gossip_sim.md, "Privacy
// over runs".
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/loss_statistics.hpp"
#include "netdp/simulation/gossip_sim.hpp"

namespace netdp {

struct GossipPrivacyParams {
  GossipAccounting accounting = GossipAccounting::exact;                  // docs/math.md §6.9
  ObserverKnowledge observer_knows = ObserverKnowledge::input_and_noise;  // exact accounting only
  double alpha = 2.0;                                                     // Renyi order, > 1
  double sensitivity = 1.0;       // Delta, > 0 (sigma is GossipSimParams::sigma, > 0)
  int t_start = 0;                // 0: Theorem 6.1 (the message at t = 0 counts); 1: the reference code
  bool cap_ldp = true;            // theorem accounting: min(f, alpha Delta^2 / (2 sigma^2))
  std::optional<node_t> source;   // only the row of this source u
  std::vector<double> quantiles;  // levels in [0, 1]; keeps R x rows x n values (checked against memory)
  std::int64_t memory_limit = 0;  // bytes; 0 = 80 % of what the machine reports as available
};

/// Throws InvalidParameter for alpha <= 1, Delta <= 0, sigma <= 0 (no noise: no privacy), t_start not 0/1, a
/// bad source or a quantile level outside [0, 1].
void validate(const GossipPrivacyParams& q, const GossipSimParams& p, node_t n);

/// The accountant's parameters for one run (CPU, LDP cap, source and t_start from q; sigma from p).
GossipLossParams gossip_privacy_loss_params(const GossipPrivacyParams& q, const GossipSimParams& p);

/// Summary numbers of one run over the ordered pairs u != v of the computed rows.
struct GossipPrivacyRun {
  double mean_loss = 0, max_loss = 0;
  double mean_eps_bar = 0,
         max_eps_bar = 0;  // eps_bar_v = (1/n) sum_{u != v} f(u, v) (eq. 6.4); NaN with source
  double eps_bar_bound =
      0;  // mean over v of alpha Delta^2 T_v / (2 n sigma^2) (eq. 6.4, T_v = communications)
};

/// Theorem 6.6 (docs/math.md §6.4) next to the losses of er-per-round, over every (pair, run) sample. A fresh
/// graph per round, so the theorem (stated for one G(n, q) used T times) is evaluated per run with:
/// neighbour = {u, v} is an edge of some counted round (t_start <= t < T); d_v = ceil(T_v / T'), v's mean
/// degree over the T' = T - t_start counted rounds (T_v = gossip_communications), so that T' d_v >= T_v.
struct ErBoundComparison {
  double edge_probability = 0;                 // q
  int messages = 0;                            // T' = T - t_start, the T of the theorem
  bool valid = false;                          // sigma^2 >= Delta^2 alpha (alpha - 1) / 2
  LossAggregate neighbour_loss, other_loss;    // the losses of the samples in each case
  LossAggregate neighbour_bound, other_bound;  // the bound of the same samples
  std::int64_t exceeded = 0;                   // samples whose loss is above their bound
};

struct GossipPrivacyResult {
  node_t n = 0, first_source = 0, rows = 0;  // rows = n, or 1 with a source
  std::int64_t runs = 0;
  /// sync, accelerated and sequence: every run has the same schedule, so one run was computed and stands for
  /// all (per_run then has one entry).
  bool runs_identical = false;
  std::vector<double> mean, min, max;  // rows x n, per ordered pair over runs; the diagonal is 0
  std::vector<double> quantile_levels;
  std::vector<std::vector<double>> quantiles;  // rows x n per level: linear between order statistics
  LossAggregate overall;                       // over pairs u != v of the rows and runs
  std::vector<GossipPrivacyRun> per_run;
  /// By hop distance (index d + 1; index 0 unreachable), over pairs and runs: in the base graph (the graph
  /// given; empty when it has no edges), and, for the time-varying protocols (randomized, er-per-round,
  /// dropout, sequence), in each run's union graph of the counted rounds (the pairs that ever talked are at
  /// distance 1). Counts are (pair, run) samples for the union graph and pairs for the base graph.
  std::vector<LossAggregate> by_base_distance, by_union_distance;
  std::optional<ErBoundComparison> er;  // er-per-round with T' >= 1 and n >= 2
  std::vector<double> er_bound_mean;    // rows x n: the mean over runs of each pair's Thm 6.6 bound
  std::int64_t memory_estimate = 0;     // bytes
  std::string device;
  double seconds = 0;
  /// Exact accounting: the observers' bases over every computed run (view_* fields of GossipLossRun: rank
  /// min / max over runs, mean over runs, dropped candidates summed, the largest floor, the smallest kept).
  GossipLossRun view;
};

/// Sees the loss rows of every computed run as they stream out of the accountant (tests, plots).
using GossipPrivacyVisitor =
    std::function<void(std::int64_t run, node_t first_source, node_t count, std::span<const double> rows)>;

/// Runs the accountant on the schedule of every run (once when runs_identical) and aggregates. Runs go in
/// order and every sum has a fixed order, so results do not depend on the thread count. Throws
/// InsufficientMemory (naming the sizes) when the accountant's n x n products, the aggregates and, with
/// quantiles, the R x rows x n kept values do not fit the memory limit.
GossipPrivacyResult gossip_sim_privacy(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                                       const GossipPrivacyParams& q, const GossipSimProgress& progress = {},
                                       const GossipPrivacyVisitor& visit = {});

/// The bytes gossip_sim_privacy will need (its memory plan, checked the same way): InsufficientMemory when
/// they exceed the limit. Lets a job fail before a long simulation.
std::int64_t gossip_sim_privacy_memory(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                                       const GossipPrivacyParams& q);

/// Edges of the rounds t_start <= t < T of a schedule (the activated edges for randomized gossip).
Graph schedule_union_graph(const GossipSchedule& s, int t_start);

/// The level-q quantile of sorted values: linear interpolation at position q (m - 1) (NumPy's default).
double sorted_quantile(std::span<const double> sorted, double level);

}  // namespace netdp
