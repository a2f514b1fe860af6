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

/// The node average (1/n) sum_v x_v of an n x D row-major state into out (D), summed in node order.
void node_average(std::span<const double> x, node_t n, int dim, std::span<double> out);

/// (1/n) sum_k sum_v (state_vk - ref_k)^2 of an n x D row-major state; sums over v first, in order, per k.
double squared_error(std::span<const double> state, node_t n, int dim, std::span<const double> ref);

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
