#pragma once
// Pieces of the gossip simulator shared by its source files (gossip_sim*.cpp); not a public interface.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "netdp/simulation/gossip_sim.hpp"

namespace netdp::gossip_sim_detail {

/// The reported times: 0, K, 2K, ... and T.
std::vector<int> recorded_times(int steps, int every);

/// Everything the runs of a batch share.
struct SimContext {
  const Graph& g;
  const CsrMatrix& w;  // W (sync, accelerated, randomized)
  const GossipSimParams& p;
  std::span<const double> x;     // initial values, n x D
  std::span<const double> xbar;  // their average, D
  std::span<const int> times;    // recorded t, increasing
  double gamma = 0;              // Chebyshev gamma (accelerated)
};

/// x^0 = x + sigma eta of run `run` (noise stream of the layout in gossip_sim.hpp) into out (n x D), and its
/// node average into average (D).
void noisy_start(const SimContext& c, std::int64_t run, std::span<double> out, std::span<double> average);

/// The node average (1/n) sum_v x_v of an n x D row-major state into out (D), summed in node order.
void node_average(std::span<const double> x, node_t n, int dim, std::span<double> out);

/// (1/n) sum_k sum_v (state_vk - ref_k)^2 of an n x D row-major state; sums over v first, in order, per k.
double squared_error(std::span<const double> state, node_t n, int dim, std::span<const double> ref);

/// Per-run errors of a batch: truth[b * points + i], noisy[b * points + i] for run first + b, time times[i].
struct BatchErrors {
  std::vector<double> truth, noisy;
};

/// Optional observer of the states (n x D) at the recorded times; may be called from worker threads.
using StateVisitor = std::function<void(std::int64_t run, std::size_t point, std::span<const double> state)>;

/// Thread-safe progress counter in run-steps.
class WorkMeter {
 public:
  WorkMeter(double total, const GossipSimProgress& progress) : total_(total), progress_(progress) {}
  void add(double units);

 private:
  double total_, done_ = 0;
  const GossipSimProgress& progress_;
};

/// Sync and accelerated gossip: the batch's columns propagated together (gossip_sim_fixed.cpp).
void simulate_fixed(const SimContext& c, std::int64_t first, std::int64_t count, BatchErrors& out,
                    const StateVisitor* visit, WorkMeter& meter);
/// Er-per-round, dropout and randomized gossip: every run with its own schedule (gossip_sim_varying.cpp).
void simulate_varying(const SimContext& c, std::int64_t first, std::int64_t count, BatchErrors& out,
                      const StateVisitor* visit, WorkMeter& meter);

/// Round `round` of run `run` (docs/math.md §6.4): a connected G(n, q) and its W-MH.
GossipRound sample_er_round(node_t n, double q, std::uint64_t seed, std::int64_t run, int round);
/// Round `round` of run `run` (docs/math.md §6.8): `base` without the edges of the nodes that drop out, W-MH.
GossipRound sample_dropout_round(const Graph& base, double q, std::uint64_t seed, std::int64_t run,
                                 int round);

/// Round `round` of run `run`: node v drops out (mask 1) iff the uniform at offset 2 v of the dropout stream
/// is < q.
std::vector<char> dropout_mask(node_t n, double q, std::uint64_t seed, std::int64_t run, int round);
/// Round `round` of run `run` of dropout-er (docs/math.md §6.8): G(n, p) from attempt 0 of the er-per-round
/// stream, without the edges of the nodes that drop out (the dropout stream), W-MH; may be disconnected.
GossipRound sample_dropout_er_round(node_t n, double p, double q, std::uint64_t seed, std::int64_t run,
                                    int round);

/// Round `round` of `--protocol sequence`: W_{round mod L} (docs/math.md §6.1).
const GossipRound& sequence_round(const GossipSimParams& p, int round);

/// Randomized gossip (Alg 6.2, docs/math.md §2.2 / 6.3): edge e = {u, v} of g, u < v, with p_e = 2 W_uv / n,
/// and no edge (an idle tick) with the remaining probability.
class ActivationSampler {
 public:
  ActivationSampler(const Graph& g, const CsrMatrix& w);
  /// The edge activated at tick `tick` of run `run`; {0, 0} for an idle tick.
  std::pair<node_t, node_t> draw(std::uint64_t seed, std::int64_t run, std::int64_t tick) const;
  /// The table the draws look up (for the CUDA backend): p_0 + ... + p_e per edge, and the endpoints
  /// u_0, v_0, u_1, v_1, ... of the edges in the same order.
  std::span<const double> cumulative() const { return cumulative_; }
  std::vector<node_t> edge_nodes() const;

 private:
  std::vector<double> cumulative_;  // p_0 + ... + p_e, in edge order
  std::vector<std::pair<node_t, node_t>> edges_;
};

}  // namespace netdp::gossip_sim_detail
