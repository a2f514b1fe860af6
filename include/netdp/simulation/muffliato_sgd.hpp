#pragma once
// Muffliato-SGD as the gossip baseline of the learning comparisons (docs/muffliato_sgd.md, Table 7.1 of
// docs/math.md §11 E13): Algorithm 6.3 (docs/math.md §6.5) run by muffliato-gd's engine
// (muffliato_gd_trajectory, same randomness layout), scored like walk-sgd: the training objective and the
// test accuracy of the node average theta_bar = (1/n) sum_v theta_v, and the consensus distance, with
// mean / std / min / max over the runs; and the §6.1 mean-loss calibration of its noise.
#include <cstdint>
#include <functional>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/simulation/convex_models.hpp"
#include "netdp/simulation/muffliato_gd.hpp"
#include "netdp/simulation/walk_sgd.hpp"  // RunStatistics

namespace netdp {

/// Gossip steps per participation when not given: the smallest K with the Chebyshev contraction bound
/// 2 ((1 - sqrt(g)) / (1 + sqrt(g)))^K <= 1/n (docs/math.md §2.4, §6.5 "K >= lambda^{-1/2} ln n"); 1 when
/// g = 1 (W = J/n averages in one step). Throws InvalidInput for g <= 0.
int muffliato_sgd_gossip_steps(node_t n, double gap);

/// How the participations compose in the mean loss (docs/muffliato_sgd.md "Calibration").
enum class MuffliatoSgdComposition {
  participations,  // P Muffliato runs composed: P x eq. 6.4 with T_v = K d_v
  squared,         // the T^2 of Theorems 6.9 / C.9: P^2 x eq. 6.4 with T_v = K d_v
};

/// The mean loss at noise multiplier 1 (noise std = sensitivity): eq. 6.4 eps_bar_v = alpha T_v / (2 n)
/// with T_v = K d_v communications per participation, times P (or P^2); max over the observers v, or
/// (all_pairs) the mean over ordered pairs u != v, n/(n-1) times the mean over v.
double muffliato_sgd_mean_loss(const Graph& g, int gossip_steps, int participations, double alpha,
                               MuffliatoSgdComposition composition, bool all_pairs);

/// The same statistic under the LDP composition, a valid bound (docs/muffliato_sgd.md "Accounting"), at noise
/// multiplier 1: each of the P participations releases u's clipped mean gradient plus N(0, Delta^2), a
/// Gaussian mechanism of sensitivity Delta given the past, so every pair (u -> v) loses at most P alpha / 2
/// (Renyi, order alpha; mu = sqrt(P) GDP). The worst observer's mean (1/n) sum_{u != v} (eq. 6.4's divisor n)
/// is (n - 1)/n of it; the mean over ordered pairs (all_pairs) all of it.
double muffliato_sgd_ldp_mean_loss(node_t n, int participations, double alpha, bool all_pairs);

struct MuffliatoSgdResult {
  std::vector<int> step;  // participations 0..P
  RunStatistics objective, accuracy, consensus;
  double gamma = 0, spectral_gap = 0;
  double seconds = 0;
  int threads = 1;
};

/// R runs of Algorithm 6.3 (p.runs, p.seed as muffliato-gd; p.spectral_gap computed once when unset);
/// accuracy on `test` (train when empty; NaN unless logistic). The runs spread over the threads; results
/// do not depend on their number. `progress` (may be empty) receives the share of the runs done, one call
/// at a time.
MuffliatoSgdResult muffliato_sgd(const Graph& g, const CsrMatrix& w, const LocalData& train,
                                 const LocalData& test, MuffliatoGdParams p,
                                 const std::function<void(double)>& progress = {});

}  // namespace netdp
