// Privacy of Muffliato-GD (docs/math.md §6.4-6.5): the accountants of gossip_loss_sequence.hpp applied to T
// outer iterations x K gossip steps, and the per-round Erdos-Renyi bound that Fig. 6.1c sums over rounds.
#include <algorithm>
#include <cmath>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/simulation/muffliato_gd.hpp"

namespace netdp {

GossipLossParams muffliato_gd_loss_params(const MuffliatoGdParams& p, double alpha, double sensitivity,
                                          bool cap_ldp, std::optional<node_t> source) {
  // theta_hat_u + N(0, nu^2 s^2) has sensitivity nu Delta_phi to u's data: the ratio is Delta_phi / s.
  GossipLossParams q;
  // Theorems 6.9 / C.9 sum per messages, which is not a bound (docs/math.md §6.9; the job warns). The exact
  // accountant of linear runs is muffliato_exact.hpp's (§6.5), over the T rounds at once.
  q.accounting = GossipAccounting::theorem;
  q.alpha = alpha;
  q.sigma = gradient_noise_std(p.sigma, p.noise_order);
  q.sensitivity = sensitivity;
  q.steps = p.gossip_steps;
  q.t_start = 0;
  q.cap_ldp = cap_ldp;
  q.source = source;
  return q;
}

GossipLossRun muffliato_gd_privacy(const Graph& g, const CsrMatrix& w, const MuffliatoGdParams& p,
                                   const GossipLossParams& loss, std::int64_t run, LossRowSink& sink) {
  if (!p.er_per_round) return muffliato_sgd_loss(g, w, loss, p.steps, sink);  // Theorem 6.9
  return muffliato_sgd_loss_sequence(muffliato_gd_schedule(g, w, p, run), p.gossip_steps, loss,
                                     sink);  // Theorem C.9
}

std::vector<double> er_round_loss_sum(const GossipSchedule& s, double q, int gossip_steps,
                                      const GossipLossParams& loss, node_t source, ErBoundVariant variant) {
  if (s.randomized()) throw InvalidInput("the per-round Erdos-Renyi bound needs a synchronous schedule");
  if (source < 0 || source >= s.n)
    throw InvalidParameter("source", "source must be in [0, n), got " + std::to_string(source));
  std::vector<double> sum(static_cast<std::size_t>(s.n), 0.0);
  std::vector<char> neighbour(static_cast<std::size_t>(s.n));
  for (int t = 0; t < s.steps; ++t) {
    const Graph& e = s.round(t).graph;
    std::fill(neighbour.begin(), neighbour.end(), 0);
    for (node_t v : e.neighbors(source)) neighbour[v] = 1;
    for (node_t v = 0; v < s.n; ++v)
      if (v != source)
        sum[v] += er_gossip_loss_bound(s.n, q, gossip_steps, e.degree(v), loss.alpha, loss.sigma,
                                       loss.sensitivity, neighbour[v] != 0, variant)
                      .value;
  }
  return sum;
}

}  // namespace netdp
