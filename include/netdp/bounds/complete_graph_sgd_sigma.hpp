#pragma once
// Noise calibration of DP-SGD on the complete graph for local, central and network DP (docs/math.md §4.3.3,
// Remark D.12, [S3] Fig. 7.2): the smallest sigma_abs meeting a target (eps, delta).
#include <string>
#include <string_view>

#include "netdp/bounds/common.hpp"

namespace netdp::bounds {

enum class SigmaProcedure {
  thesis,  // Remark D.12: RDP slopes, alpha = min(alpha*, alpha_max), bisection on sigma ([RECON])
  code,    // the reference code's findSigma: cap K = ceil(1.2 T/n), spotted budget split, 1.15 steps
};
SigmaProcedure parse_sigma_procedure(std::string_view text);  // "thesis" | "code"
std::string to_string(SigmaProcedure p);

struct SigmaSearchParams {
  double epsilon = 1;   // target eps
  double delta = 1e-6;  // target delta
  double steps = 0;     // T; 0 means steps_per_node * n
  double steps_per_node = 0;
  double lipschitz = 0.4;  // L (the code uses the clip norm as the sensitivity)
  SigmaProcedure procedure = SigmaProcedure::thesis;
  double slope_factor = 0;  // `sgd_slope_factor` 1 | 2 | 4; 0 = the procedure's own (thesis 4, code 2)
  // thesis only:
  ContributionOptions contributions{Contributions::chernoff, dp::NvFormula::proof, 1e-6};
  bool sender_known = false;  // add the spotted loss (4.4) to the network epsilon
  double delta_tilde = 1e-6, delta_prime = 1e-6;
  // code only:
  double cap_factor = 1.2;         // K = ceil(cap_factor T / n)
  double central_constant = 1.25;  // ln(c T/(delta n)) in the Bassily et al. sigma; [S4] prints 2.5
  double colluders = 1;
};
void validate(const SigmaSearchParams& p);

struct SigmaSearch {
  double n = 0, n_effective = 0, steps = 0;
  double slope_factor = 0;
  double contributions = 0;  // thesis: N_u (CB1); code: the cap K
  double sigma_local = 0, sigma_central = 0, sigma_network = 0;
  // thesis: the order of the network optimum and whether alpha_max bound it
  double order = 0;
  bool order_capped = false;
  // code: the budget split and its two sigmas, K_spotted, which regime gave sigma_candidate
  double beta = 0, sigma_spotted = 0, sigma_candidate = 0, spotted_cap = 0;
  bool closed_regime = false;
  Columns columns(SigmaProcedure p) const;
};
SigmaSearch sgd_sigma_search(double n, const SigmaSearchParams& p);

}  // namespace netdp::bounds
