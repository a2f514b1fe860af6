#pragma once
// DP-SGD by a random walk on the complete graph (docs/math.md §4.3, Algorithm 7.2): the network RDP bound (4.3.1,
// [S3] Prop D.11) and the closed form of Thm 7.2 (4.3.2). Losses are convex and L-Lipschitz; every noisy
// gradient adds N(0, sigma_abs^2 I) and is (eps, delta)-LDP with sensitivity 2L:
// sigma_abs^2 = 8 L^2 ln(1.25/delta)/eps^2.
#include <string>
#include <string_view>

#include "netdp/bounds/common.hpp"

namespace netdp::bounds {

/// 4.3.1: the return time to v is Geometric(1/n); sum over it up to infinity (ln n, the thesis) or exactly
/// over the finite horizon T.
enum class SgdHorizon { infinite, finite };
SgdHorizon parse_sgd_horizon(std::string_view text);  // "infinite" | "finite"
std::string to_string(SgdHorizon h);

struct SgdParams {
  double steps = 0;  // T; 0 means steps_per_node * n
  double steps_per_node = 0;
  double lipschitz = 1;     // L
  double epsilon = 1;       // local (eps, delta)-LDP level of each noisy gradient
  double delta = 1e-6;      // its delta, also the delta of the converted network guarantee
  double sigma = 0;         // sigma_abs; 0 means from (eps, delta) as above (then eps follows sigma)
  double alpha = 2;         // the order reported by the RDP bound
  double slope_factor = 4;  // Appendix Y `sgd_slope_factor`: 4 (thesis, Delta = 2L), 2 (code), 1 (Delta = L)
  SgdHorizon horizon = SgdHorizon::infinite;
  ContributionOptions contributions{Contributions::chernoff, dp::NvFormula::proof, 1e-6};
  Composition composition = Composition::optimal_min;  // LDP analogue and spotted loss
  double delta_prime = 1e-6;
  double colluders = 1;
  bool sender_known = false;
  double delta_tilde = 1e-6;
};
void validate(const SgdParams& p);

/// 4.3.1 with slope_factor f: eps_RDP(alpha) = f N_u alpha L^2 S / (sigma_abs^2 n), S = ln n or the finite
/// sum, valid for alpha <= alpha_max = (1 + sqrt(1 + 8 sigma_abs^2/(f L^2)))/2 (the weak-convexity condition
/// with Delta^2 = f L^2; f = 4 gives the thesis's (1 + sqrt(1 + 2 sigma_abs^2/L^2))/2).
struct SgdRdpBound {
  double n = 0, n_effective = 0, steps = 0;
  double contributions = 0;  // N_u (CB1 on the sender)
  bool contributions_proven = true;
  double sigma = 0, eps_local = 0;  // sigma_abs and the local level it gives
  double horizon_sum = 0;           // S
  double slope = 0;                 // eps_RDP(alpha) / alpha
  double alpha = 0, rdp = 0, alpha_max = 0;
  bool alpha_valid = true;
  double epsilon = 0, order = 0, delta = 0;  // C6 at delta, alpha <= alpha_max; delta + delta_hat (+ spotted)
  bool order_capped = false;
  double ldp_slope = 0, eps_ldp = 0, delta_ldp = 0;  // N_u Gaussian releases of sensitivity sqrt(f) L
  SpottedLoss spotted;
  Columns columns() const;
};
SgdRdpBound sgd_network_rdp(double n, const SgdParams& p);

/// Thm 7.2 ([S2] Thm 4): q = max(2 N_u ln(n)/n, 2 ln(1/delta)), eps' = sqrt(2 q ln(1/delta)) eps /
/// sqrt(ln(1.25/delta)), (eps', delta + delta_hat)-network DP. Needs eps <= 1 (the theorem says < 1;
/// the boundary holds by continuity) and delta < 1/2.
struct SgdClosedForm {
  double n = 0, n_effective = 0, steps = 0;
  double contributions = 0;
  bool contributions_proven = true;
  double q = 0;
  bool q_from_delta = false;  // q = 2 ln(1/delta) (T = O(n^2 sqrt(ln(1/delta))/ln n) regime)
  double sigma = 0, alpha = 0;
  double epsilon = 0, delta = 0;
  double eps_ldp = 0, delta_ldp = 0;  // composition of the local level over N_u
  SpottedLoss spotted;
  Columns columns() const;
};
SgdClosedForm sgd_closed_form(double n, const SgdParams& p);

/// S_T(n) = sum_{t=1}^{T} (1 - 1/n)^{t-1} / t (-> n ln(n)/(n - 1) as T -> infinity; exact pmf of 4.3.1).
double geometric_harmonic_sum(double n, double steps);

}  // namespace netdp::bounds
