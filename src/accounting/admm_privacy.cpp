// Privacy of private consensus ADMM: the theorems of docs/math.md §8.3 in terms of the local prox step
// gamma_loc (docs/admm.md "Privacy").
#include "netdp/accounting/admm_privacy.hpp"

#include <cmath>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/dp/calibration.hpp"
#include "netdp/dp/subsampling.hpp"

namespace netdp {

AdmmSetting parse_admm_setting(std::string_view text) {
  if (text == "centralized") return AdmmSetting::centralized;
  if (text == "federated") return AdmmSetting::federated;
  if (text == "walk") return AdmmSetting::walk;
  throw InvalidParameter("setting",
                         "setting: expected centralized, federated or walk, got '" + std::string(text) + "'");
}

std::string to_string(AdmmSetting s) {
  switch (s) {
    case AdmmSetting::centralized:
      return "centralized";
    case AdmmSetting::federated:
      return "federated";
    case AdmmSetting::walk:
      return "walk";
  }
  return "?";
}

AdmmProxScale parse_admm_prox_scale(std::string_view text) {
  if (text == "weighted") return AdmmProxScale::weighted;
  if (text == "unweighted") return AdmmProxScale::unweighted;
  throw InvalidParameter("prox-scale",
                         "prox-scale: expected weighted or unweighted, got '" + std::string(text) + "'");
}

std::string to_string(AdmmProxScale s) {
  return s == AdmmProxScale::weighted ? "weighted" : "unweighted";
}

std::string to_string(AdmmGuarantee g) {
  switch (g) {
    case AdmmGuarantee::centralized:
      return "thm_8_7_centralized";
    case AdmmGuarantee::federated_local:
      return "thm_8_9_federated_local";
    case AdmmGuarantee::federated_central:
      return "thm_e_9_federated_central";
    case AdmmGuarantee::walk_network:
      return "thm_8_12_walk_network";
  }
  return "?";
}

AdmmGuarantee calibrated_guarantee(AdmmSetting s) {
  switch (s) {
    case AdmmSetting::centralized:
      return AdmmGuarantee::centralized;
    case AdmmSetting::federated:
      return AdmmGuarantee::federated_central;
    case AdmmSetting::walk:
      return AdmmGuarantee::walk_network;
  }
  return AdmmGuarantee::centralized;
}

void validate(const AdmmPrivacyParams& p) {
  if (p.users < 2) throw InvalidParameter("users", "users must be >= 2, got " + std::to_string(p.users));
  if (p.sampled < 1 || p.sampled > p.users)
    throw InvalidParameter("sampled", "sampled must be in [1, users = " + std::to_string(p.users) +
                                          "], got " + std::to_string(p.sampled));
  if (p.steps < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (!(p.lipschitz > 0) || !std::isfinite(p.lipschitz))
    throw InvalidParameter("lipschitz",
                           "lipschitz must be a finite number > 0, got " + format_double(p.lipschitz));
  if (!(p.step_size > 0) || !std::isfinite(p.step_size))
    throw InvalidParameter("step-size",
                           "step-size must be a finite number > 0, got " + format_double(p.step_size));
  if (!(p.delta > 0 && p.delta < 1))
    throw InvalidParameter("delta", "delta must be in (0, 1), got " + format_double(p.delta));
  if (!(p.subsampling_constant > 0) || !std::isfinite(p.subsampling_constant))
    throw InvalidParameter("subsampling-constant", "subsampling-constant must be a finite number > 0, got " +
                                                       format_double(p.subsampling_constant));
}

double admm_local_step(const AdmmPrivacyParams& p) {
  return p.prox_scale == AdmmProxScale::weighted ? p.step_size / double(p.users) : p.step_size;
}

double admm_participations(const AdmmPrivacyParams& p, AdmmGuarantee g) {
  const double k = double(p.steps), n = double(p.users);
  switch (g) {
    case AdmmGuarantee::federated_local:
      return k * double(p.sampled) / n;
    case AdmmGuarantee::walk_network:
      return k / n;
    default:
      return k;
  }
}

double admm_rdp(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma, double alpha) {
  const double n = double(p.users), l = p.lipschitz, gl = admm_local_step(p);
  const double k = admm_participations(p, g);
  const double base = alpha * l * l * gl * gl / (sigma * sigma);  // alpha L^2 gamma_loc^2 / sigma^2
  switch (g) {
    case AdmmGuarantee::centralized:
    case AdmmGuarantee::federated_local:
      return 8 * k * base;
    case AdmmGuarantee::federated_central: {
      const double q = double(p.sampled) / n;
      const double multiplier = double(p.sampled) * sigma / (4 * l * gl);  // docs/admm.md "Privacy"
      if (!dp::subsampled_gaussian_rdp_valid(dp::SubsampledBound::mironov_talwar_zhang, alpha, q, multiplier))
        return INFINITY;
      return p.subsampling_constant * k * base / (n * n);
    }
    case AdmmGuarantee::walk_network:
      if (!(sigma > 2 * l * gl * std::sqrt(alpha * (alpha - 1)))) return INFINITY;
      return 8 * k * base * std::log(n) / n;
  }
  return INFINITY;
}

dp::RdpCurve admm_rdp_curve(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma) {
  dp::RdpCurve c;
  c.orders = p.orders;
  for (double a : p.orders) c.epsilons.push_back(admm_rdp(p, g, sigma, a));
  return c;
}

AdmmEpsilon admm_epsilon(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma) {
  const dp::RdpCurve c = admm_rdp_curve(p, g, sigma);
  bool any = false;
  for (double e : c.epsilons) any = any || std::isfinite(e);
  if (!any) return {INFINITY, 0, false};
  const dp::RdpOptimum o = dp::rdp_curve_to_epsilon(c, p.delta, p.conversion);
  return {o.value, o.order, o.at_grid_edge};
}

double calibrate_admm_sigma(const AdmmPrivacyParams& p, double epsilon) {
  validate(p);
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw InvalidParameter("epsilon", "epsilon must be a finite number > 0, got " + format_double(epsilon));
  const AdmmGuarantee g = calibrated_guarantee(p.setting);
  if (g == AdmmGuarantee::federated_central && !(double(p.sampled) / double(p.users) < 0.2))
    throw InvalidParameter("sampled", "sampled: Thm E.9 needs m/n < 1/5, got m = " +
                                          std::to_string(p.sampled) + " of n = " + std::to_string(p.users));
  try {
    return dp::calibrate_sigma([&](double s) { return admm_epsilon(p, g, s).epsilon; }, epsilon);
  } catch (const InvalidInput&) {
    throw InvalidParameter("epsilon", "epsilon " + format_double(epsilon) + " is out of reach of " +
                                          to_string(g) + " for any sigma up to 1e12");
  }
}

}  // namespace netdp
