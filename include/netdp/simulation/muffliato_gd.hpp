#pragma once
// Muffliato-GD / Muffliato-SGD (Algorithm 6.3, docs/math.md §6.5): T outer iterations of "local gradient
// step, Gaussian noise, K accelerated gossip steps", R independent runs, on built-in objectives whose optimum
// is known, so that the utility curves are real. Privacy: Theorem 6.9 (fixed W) or C.9 (a fresh Erdos-Renyi
// graph per outer iteration) through gossip_loss_sequence.hpp; the exact accountant of linear runs is
// accounting/muffliato_exact.hpp's. Docs: docs/muffliato_gd.md. The objectives and
// the local datasets are the convex models shared with walk-sgd (convex_models.hpp).
//
// Randomness layout (docs/design.md principle 2): PhiloxStream(seed, subsequence, offset) with
//   subsequence = kind << 56 | run << 24 | t   (as gossip_sim.hpp; kinds 16.. do not meet the gossip kinds)
//   kind 16, synthetic data (run 0, t 0): one sequential stream, see synthetic_data;
//   kind 17, noise of run r at outer iteration t: standard normal i = v p + k (node v, coordinate k) is
//            member i % 2 of next_normal_pair at offset 4 (i / 2);
//   kind 18, mini-batch of node v, run r, iteration t: starts at offset v 2^32 (partial Fisher-Yates with
//            next_below, one draw per chosen example).
// The Erdos-Renyi graphs are those of gossip_sim's er-per-round protocol (kind 4, same seed and run, round
// t).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/gossip_schedule.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {

// ---- Algorithm 6.3 ----

enum class NoiseOrder {
  clip_then_noise,  // default: per-example clipping to L, mean, then theta_hat + N(0, nu^2 sigma^2) (Alg 6.3)
  // [R-MUF private_step_gd], docs/math.md §12 item 24: theta - nu clip(grad + N(0, (sigma/2)^2), L)
  reference_code,
};
/// The std of the gradient noise: sigma, or sigma / 2 for the reference code ("max sensitivity .5").
double gradient_noise_std(double sigma, NoiseOrder order);

struct MuffliatoGdParams {
  Objective objective = Objective::quadratic;
  int steps = 1;           // T >= 1 outer iterations (gradient steps)
  int gossip_steps = 1;    // K >= 1 accelerated gossip steps per iteration
  double step_size = 0.1;  // nu > 0
  double sigma = 0;        // >= 0: theta_hat gets N(0, nu^2 sigma^2) per coordinate (sigma = gradient noise)
  std::int64_t runs = 1;   // R >= 1
  std::uint64_t seed = 0;  // Philox key
  int batch = 0;           // 0: full local gradient (GD); b >= 1: b examples without replacement (SGD)
  double clip = 0;  // L > 0: per-example clipping (reference code: clip of the noisy gradient); 0 = none
  double l2 = 0;    // mu >= 0, the ridge term of every f_v
  NoiseOrder noise_order = NoiseOrder::clip_then_noise;
  bool er_per_round = false;    // a fresh connected G(n, q), W-MH, per outer iteration (docs/math.md §6.4)
  double edge_probability = 0;  // q for er_per_round
  std::optional<double> spectral_gap;  // gap of the fixed W for gamma; unset: computed with gap_definition
  GapDefinition gap_definition = GapDefinition::second;  // for the fixed W when unset, and for every W_t
  /// The trusted-aggregator baseline of Fig. 6.1c (docs/muffliato_gd.md "Federated baseline"): the noisy
  /// updates are averaged exactly (every node gets their mean) instead of by K gossip steps.
  bool exact_averaging = false;
};

/// Throws InvalidParameter naming the offending parameter (also "batch" larger than the smallest D_v).
void validate(const MuffliatoGdParams& p, const LocalData& d);

/// Per outer iteration t = 0..T (t = 0: theta^0 = 0 at every node), over the runs, mean and standard error
/// (sd / sqrt(R), NaN for R = 1) of: phi(theta_bar) (objective), phi(theta_bar) - phi* (gap), (1/n) sum_v
/// phi(theta_v) (node_objective), (1/n) sum_v ||theta_v - theta_bar||^2 (consensus) and, for logistic, the
/// accuracy of theta_bar (empty otherwise); theta_bar = (1/n) sum_v theta_v.
struct MeanCurve {
  std::vector<double> mean, std_error;
};
struct MuffliatoGdResult {
  std::vector<int> t;
  MeanCurve objective, gap, node_objective, consensus, accuracy;
  Optimum optimum;
  double gamma = 0;  // Chebyshev gamma of the fixed W (NaN with er_per_round: one per W_t)
  double spectral_gap = 0;
  double seconds = 0;
  std::string device;  // "cpu (N threads)"
};

/// R runs on graph g with the fixed W = w, or (er_per_round) on fresh graphs of g.n nodes. Results do not
/// depend on the thread count. `progress` (may be empty) receives the share of the runs done, on the
/// calling thread.
MuffliatoGdResult muffliato_gd(const Graph& g, const CsrMatrix& w, const LocalData& d,
                               const MuffliatoGdParams& p, const std::function<void(double)>& progress = {});

/// The states theta^t (n x p, row-major) for t = 0..T of one run, by the same code.
std::vector<std::vector<double>> muffliato_gd_trajectory(const Graph& g, const CsrMatrix& w,
                                                         const LocalData& d, const MuffliatoGdParams& p,
                                                         std::int64_t run);

// ---- Privacy (docs/math.md §6.4, 6.5) ----

/// The accountant's parameters: sigma = gradient_noise_std (theta_hat's noise nu sigma has sensitivity nu
/// Delta_phi, and nu cancels), Delta = Delta_phi, steps = K.
GossipLossParams muffliato_gd_loss_params(const MuffliatoGdParams& p, double alpha, double sensitivity,
                                          bool cap_ldp, std::optional<node_t> source);

/// W_t of run `run` (er_per_round: sample_gossip_schedule's er-per-round rounds, one per outer iteration;
/// else the constant W of g).
GossipSchedule muffliato_gd_schedule(const Graph& g, const CsrMatrix& w, const MuffliatoGdParams& p,
                                     std::int64_t run);

/// Pairwise Renyi losses: Theorem 6.9 (muffliato_sgd_loss, fixed W) or Theorem C.9
/// (muffliato_sgd_loss_sequence on run `run`'s schedule) for T outer iterations x K gossip steps.
GossipLossRun muffliato_gd_privacy(const Graph& g, const CsrMatrix& w, const MuffliatoGdParams& p,
                                   const GossipLossParams& loss, std::int64_t run, LossRowSink& sink);

/// The per-round Erdos-Renyi bound of Fig. 6.1c (docs/math.md §6.4-6.5, [R-MUF] eps_random summed over
/// rounds): for source u and every observer v, sum_t er_gossip_loss_bound(n, q, K, d_v(E_t), alpha, sigma,
/// Delta, {u, v} in E_t, variant) over the rounds t of the synchronous schedule s; 0 at v = u.
std::vector<double> er_round_loss_sum(const GossipSchedule& s, double q, int gossip_steps,
                                      const GossipLossParams& loss, node_t source, ErBoundVariant variant);

enum class MgdStream : std::uint64_t { data = 16, noise = 17, batch = 18 };
constexpr std::uint64_t muffliato_gd_subsequence(MgdStream kind, std::uint64_t run, std::uint64_t t) {
  return static_cast<std::uint64_t>(kind) << 56 | run << 24 | t;
}

}  // namespace netdp
