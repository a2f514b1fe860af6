#pragma once
// Privacy of private consensus ADMM (docs/math.md §8.3, docs/admm.md "Privacy"): the RDP curves of Thm 8.7
// (centralized), Thm 8.9 (federated, local model), Thm E.9 (federated, central model with subsampling) and
// Thm 8.12 (random walk, network RDP), their (epsilon, delta) over an order grid, and the noise calibration.
//
// Every theorem is written with the local prox step gamma_loc of a block (the block's sensitivity is
// 4 lambda L gamma_loc, docs/math.md §8.3 E.16): gamma_loc = gamma / n when the block prox is that of the
// block of F = (1/n) sum_i f_i (prox-scale weighted, the reading of Thm 8.7's derivation) and gamma_loc =
// gamma when it is prox_{gamma f_i} (prox-scale unweighted, the reading of Thm 8.9, E.9 and 8.12).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/dp/composition.hpp"
#include "netdp/dp/conversion.hpp"

namespace netdp {

/// The three forms of consensus ADMM (docs/math.md §8.2): Alg 8.2, 8.3 and 8.4.
enum class AdmmSetting { centralized, federated, walk };
AdmmSetting parse_admm_setting(std::string_view text);  // centralized | federated | walk
std::string to_string(AdmmSetting s);

/// Which block prox: weighted prox_{(gamma/n) f_i}, unweighted prox_{gamma f_i}.
enum class AdmmProxScale { weighted, unweighted };
AdmmProxScale parse_admm_prox_scale(std::string_view text);  // weighted | unweighted
std::string to_string(AdmmProxScale s);

/// The guarantees of docs/math.md §8.3, user-level (neighbouring datasets differ in one user's f_i).
enum class AdmmGuarantee {
  centralized,        // Thm 8.7: (alpha, 8 alpha K L^2 gamma_loc^2 / sigma^2)
  federated_local,    // Thm 8.9: (alpha, 8 alpha K_i L^2 gamma_loc^2 / sigma^2), K_i = K m / n
  federated_central,  // Thm E.9: (alpha, c alpha K L^2 gamma_loc^2 / (n^2 sigma^2)), c = 16 or 32
  walk_network,       // Thm 8.12: (alpha, 8 alpha K_i L^2 gamma_loc^2 ln(n) / (n sigma^2)), K_i = K / n
};
std::string to_string(AdmmGuarantee g);
/// The guarantee the setting is calibrated to: centralized, federated_central, walk_network.
AdmmGuarantee calibrated_guarantee(AdmmSetting s);

struct AdmmPrivacyParams {
  AdmmSetting setting = AdmmSetting::centralized;
  std::int64_t users = 1;    // n
  std::int64_t sampled = 1;  // m, users per round (federated)
  std::int64_t steps = 1;    // K: rounds (centralized, federated) or token moves (walk)
  double lipschitz = 1;      // L: every f_i is L-Lipschitz
  double step_size = 1;      // gamma
  AdmmProxScale prox_scale = AdmmProxScale::weighted;
  double subsampling_constant = 32;  // Thm E.9: 16 (the theorem) or 32 (Lemma E.5 read literally)
  double delta = 1e-6;
  dp::RdpConversion conversion = dp::RdpConversion::improved;
  std::vector<double> orders = dp::default_rdp_orders();
};
/// InvalidParameter naming the parameter (users, sampled, steps, lipschitz, step-size, delta,
/// subsampling-constant).
void validate(const AdmmPrivacyParams& p);

/// gamma_loc: gamma / n (weighted) or gamma (unweighted).
double admm_local_step(const AdmmPrivacyParams& p);
/// K_i of a guarantee: K (centralized, federated_central), K m / n (federated_local), K / n (walk_network).
double admm_participations(const AdmmPrivacyParams& p, AdmmGuarantee g);

/// The RDP epsilon at order alpha of a guarantee with absolute noise std sigma; +infinity where the
/// theorem's conditions fail (E.9: q = m/n < 1/5, noise multiplier m sigma/(4 L gamma_loc) >= 4 and the
/// alpha conditions of SS3; 8.12: sigma > 2 L gamma_loc sqrt(alpha (alpha - 1))).
double admm_rdp(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma, double alpha);
dp::RdpCurve admm_rdp_curve(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma);

/// (epsilon, delta = p.delta) of a guarantee, optimised over p.orders; epsilon = +infinity (order 0) where
/// no order meets the conditions.
struct AdmmEpsilon {
  double epsilon = 0;
  double order = 0;
  bool at_grid_edge = false;
};
AdmmEpsilon admm_epsilon(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma);

/// The smallest sigma whose guarantee calibrated_guarantee(p.setting) meets epsilon (dp::calibrate_sigma).
/// InvalidParameter "epsilon" when no sigma reaches it (E.9 with q >= 1/5).
double calibrate_admm_sigma(const AdmmPrivacyParams& p, double epsilon);

}  // namespace netdp
