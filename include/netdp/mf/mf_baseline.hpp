#pragma once
// The earlier accounting the MF accounting is compared with (docs/math.md §6.5, the "muffliato_mfdl" formula,
// E24 of §11): Muffliato-SGD with plain noise (C = I), one gossip step per gradient step on a fixed W, every
// node releasing a gradient of sensitivity Delta at each of the T rounds:
//   eps(u -> v) = (Delta^2 alpha / (2 sigma^2)) min(T, sum_{s=0}^{T-1} (T - s) sum_{w in N(v) u {v}}
//                                                         (W^s)_{u,w} / ||(W^s)_{:,w}||^2).
// The numerator is not squared and the norm is a column norm, as §6.5 states; the cap T is T times one step's
// LDP level (the view is a post-processing of u's T noisy releases).
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/mf/mf_workload.hpp"

namespace netdp::mf {

struct MuffliatoBaselineParams {
  int steps = 10;          // T
  double alpha = 2;        // Renyi order
  double sigma = 1;        // noise multiplier (std of the noise over the sensitivity's unit)
  double sensitivity = 1;  // Delta: one gradient's sensitivity
};

/// The sum S(u -> v) = sum_s (T - s) sum_w (W^s)_{u,w} / ||(W^s)_{:,w}||^2 of §6.5, before the cap and the
/// factor, for every attacker v in `attackers` (rows) and victim u (n columns); w ranges over the nodes v
/// observes, {w : W_vw > 0} and v itself (the PNDP view of §9.4). Columns of W^s with norm 0 add nothing.
/// +inf where u = v. Attackers in parallel over the OpenMP threads when `parallel` (bits independent of it).
Matrix muffliato_baseline_sum(const CsrMatrix& w, int steps, const std::vector<node_t>& attackers,
                              bool parallel);

/// The Renyi losses eps(u -> v) = (Delta^2 alpha / (2 sigma^2)) min(T, S(u -> v)) of §6.5; +inf where u = v.
/// Throws InvalidParameter (steps, alpha, sigma, sensitivity) on steps < 1, alpha <= 1, sigma <= 0 or
/// Delta <= 0.
Matrix muffliato_baseline_loss(const CsrMatrix& w, const MuffliatoBaselineParams& p,
                               const std::vector<node_t>& attackers, bool parallel);

}  // namespace netdp::mf
