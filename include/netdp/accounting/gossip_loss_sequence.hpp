#pragma once
// Pairwise Renyi loss of Muffliato with a sequence of gossip matrices (docs/math.md §6.1, 6.3: Theorem 6.1 /
// Corollary C.5), the Erdos-Renyi bound (6.4, Theorem 6.6) and Muffliato-SGD accounting (6.5, Theorems 6.9
// and C.9). The fixed-W accountant is gossip_loss.hpp; a constant schedule gives the same values.
#include <cstdint>
#include <string>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/gossip_schedule.hpp"
#include "netdp/core/loss_rows.hpp"

namespace netdp {

/// Throws InvalidInput unless the schedule is consistent: n >= 1, steps >= 1; randomized: steps activations
/// with ids in [0, n) and no rounds; synchronous: one round when constant, else `steps` rounds, each with a
/// valid graph on n nodes and an n x n row-stochastic W_t supported on its edges and diagonal.
void validate(const GossipSchedule& s);

/// With p.accounting == exact (the default): f(u, v) = (alpha Delta^2 / (2 sigma^2)) ||P_v e_u||^2, P_v the
/// projection onto the span of the rows of W_{0:t} that v receives (t = t_start .. T-1, plus e_v when
/// p.observer_knows is input_and_noise): the view is one Gaussian mechanism (docs/math.md §6.9). Bases built
/// from explicit rows with the fixed-W engine's Gram-Schmidt and floor; observers in batches that fit
/// p.memory_limit; run.view_* report the ranks. cap_ldp is moot (exact never exceeds the LDP level).
/// With p.accounting == theorem, Theorem 6.1 (eq. M1) in the row-w orientation (docs/math.md §6.1, 12 item
/// 7), for u != v:
///   f(u, v) = alpha Delta^2/(2 sigma^2) sum_w sum_{t in P_{v,w}, t >= t_start} (W_{0:t})_{w,u}^2 / ||row w
///   of W_{0:t}||^2
/// with W_{0:t} = W_{t-1} ... W_0 (W_{0:0} = I) and P_{v,w} = {t < T : {v, w} in E_t}, T = s.steps; the
/// message sent at t is the value before round t's averaging. Capped at the LDP level when p.cap_ldp;
/// f(u, u) = 0. A constant schedule of T + t_start rounds equals gossip_loss with T steps and t_start.
/// Uses alpha, sigma, sensitivity, t_start, cap_ldp, source and memory_limit of p (p.steps is ignored: T is
/// s.steps); CPU only. Throws InsufficientMemory when the n x n products do not fit.
GossipLossRun gossip_loss_sequence(const GossipSchedule& s, const GossipLossParams& p, LossRowSink& sink);

/// The warning every output of Theorem 6.1's accounting carries (summary.json `warnings`, stderr).
std::string gossip_theorem_warning();
/// The same for the accountants built on Theorem 6.1's sum that have no exact counterpart yet (docs/math.md
/// §6.9 "Other accountants built on (M1)"): `what` names them, e.g. "the Erdos-Renyi bound (Theorem 6.6)".
std::string built_on_theorem_warning(const std::string& what);

/// Convenience: the whole matrix, row-major (1 x n when p.source is set).
std::vector<double> gossip_loss_sequence_matrix(const GossipSchedule& s, const GossipLossParams& p,
                                                GossipLossRun* run = nullptr);

/// T_v = sum_w |{t in [t_start, T) : {v, w} in E_t}|: the number of messages v receives (docs/math.md §6.1,
/// eq. 6.4; for randomized gossip the ticks at which v is an endpoint, Corollary C.5).
std::vector<std::int64_t> gossip_communications(const GossipSchedule& s, int t_start = 0);

/// The mean-loss bound eps_bar_v = (1/n) sum_{u != v} f(u, v) <= alpha Delta^2 T_v / (2 n sigma^2) (eq. 6.4),
/// an equality when u = v is included and nothing is capped.
double gossip_mean_loss_bound(std::int64_t communications, node_t n, const GossipLossParams& p);

// ---- Theorem 6.6: Muffliato on a private Erdos-Renyi graph G(n, q) (docs/math.md §6.4) ----

enum class ErBoundVariant {
  theorem,  // alpha Delta^2/(2 sigma^2) for neighbours, (alpha Delta^2/sigma^2) T d_v/(n - d_v) otherwise
  reference_code,  // R-MUF eps_random: degree d_v + 2 (networkx self-loop), min with the LDP level
};

struct ErGossipBound {
  double value = 0;        // the bound on eps_{u->v}(alpha)
  double probability = 0;  // probability of this case over the draw: q for neighbours, 1 - q otherwise
  bool valid = false;      // the theorem's condition sigma^2 >= Delta^2 alpha (alpha - 1) / 2 holds
};

/// Bound of Theorem 6.6 for observer v of degree d_v after T rounds, `neighbour` = {u, v} in E. Throws
/// InvalidInput for n < 2, q outside [0, 1], T < 1, d_v outside [0, n - 1], alpha <= 1, sigma or Delta <= 0;
/// the validity condition is reported, not enforced.
ErGossipBound er_gossip_loss_bound(node_t n, double q, std::int64_t steps, node_t degree, double alpha,
                                   double sigma, double sensitivity, bool neighbour,
                                   ErBoundVariant variant = ErBoundVariant::theorem);

// ---- Muffliato-SGD (Algorithm 6.3, docs/math.md §6.5); p.sensitivity is Delta_phi ----

/// Theorem 6.9 (fixed W): f(u, v) = T^2 * (gossip_loss with K = p.steps gossip steps, t_start 0, uncapped),
/// T = gradient_steps. With p.cap_ldp the value is capped at T alpha Delta^2/(2 sigma^2), the composition of
/// the T noisy releases (post-processing, as in docs/math.md §6.1). p.t_start is ignored.
GossipLossRun muffliato_sgd_loss(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                 int gradient_steps, LossRowSink& sink);
std::vector<double> muffliato_sgd_loss_matrix(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                              int gradient_steps);

/// Theorem C.9 (eq. C.4, reconstructed product, docs/math.md §12 item 10), T = s.steps gradient rounds of K
/// gossip steps each with round j's matrix W_j on E_j (a synchronous schedule, 0-based rounds):
///   f(u, v) = alpha Delta^2/(2 sigma^2) sum_{t < T} sum_{t <= j < T} sum_{k < K} sum_{w in N_j(v)}
///             (Q_{t,j,k})_{w,u}^2 / ||row w of Q_{t,j,k}||^2,   Q_{t,j,k} = W_j^k W_{j-1}^K ... W_t^K
/// (later rounds on the left). Same cap as muffliato_sgd_loss; p.steps and p.t_start are ignored.
/// Cost: T (T + 1) K / 2 products O(nnz(W) n), memory 2 n^2 + n doubles plus the output.
GossipLossRun muffliato_sgd_loss_sequence(const GossipSchedule& s, int gossip_steps,
                                          const GossipLossParams& p, LossRowSink& sink);
std::vector<double> muffliato_sgd_loss_sequence_matrix(const GossipSchedule& s, int gossip_steps,
                                                       const GossipLossParams& p);

}  // namespace netdp
