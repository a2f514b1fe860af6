#include "netdp/bounds/complete_graph_sgd_sigma.hpp"

#include <cmath>
#include <functional>

#include "checks.hpp"
#include "netdp/dp/calibration.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/dp/conversion.hpp"

namespace netdp::bounds {
using namespace detail;

SigmaProcedure parse_sigma_procedure(std::string_view text) {
  if (text == "thesis") return SigmaProcedure::thesis;
  if (text == "code") return SigmaProcedure::code;
  throw InvalidInput("unknown sigma procedure '" + std::string(text) + "' (expected thesis or code)");
}
std::string to_string(SigmaProcedure p) {
  return p == SigmaProcedure::thesis ? "thesis" : "code";
}

void validate(const SigmaSearchParams& p) {
  const std::string f = "sigma search";
  require_walk_epsilon_delta(f, p);
  require_positive(f, "lipschitz L", p.lipschitz);
  require(p.slope_factor == 0 || p.slope_factor == 1 || p.slope_factor == 2 || p.slope_factor == 4, f,
          "slope factor", p.slope_factor, "1, 2 or 4");
  require_positive(f, "cap factor", p.cap_factor);
  require_positive(f, "central constant", p.central_constant);
  require(p.colluders >= 1, f, "colluders", p.colluders, ">= 1");
}

namespace {

// The x in [0, hi] with g(x) = target for an increasing g (the code's bisections on eps0); hi when g(hi)
// <= target.
double solve_increasing(const std::function<double(double)>& g, double target, double hi) {
  if (g(hi) <= target) return hi;
  double lo = 0;
  for (int i = 0; i < 200 && hi - lo > 1e-16 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// C2 with the code's single delta used as both the per-step delta and the slack.
double code_advanced(double eps0, double delta, double k) {
  return dp::advanced_composition(eps0, delta, k, delta).epsilon;
}

void thesis_search(SigmaSearch& s, const SigmaSearchParams& p) {
  const double f = s.slope_factor, l2 = p.lipschitz * p.lipschitz, n = s.n, n_eff = s.n_effective;
  s.contributions = contribution_count(s.steps, n_eff, p.contributions);
  const double own = contribution_count(s.steps, n, p.contributions);
  auto linear = [&](double slope_times_s2) {  // eps(sigma) for an uncapped RDP slope c / sigma^2
    return [&, slope_times_s2](double sigma) {
      return dp::linear_rdp_to_epsilon(slope_times_s2 / (sigma * sigma), p.delta).epsilon;
    };
  };
  s.sigma_local = dp::calibrate_sigma(linear(f * own * l2 / 2), p.epsilon);
  s.sigma_central = dp::calibrate_sigma(linear(f * s.steps * l2 / (2 * n * n)), p.epsilon);  // Thm 3.13
  const double network_c = f * s.contributions * l2 * std::log(n_eff) / n_eff;               // 4.3.1
  auto network = [&](double sigma) {
    const double alpha_max = (1 + std::sqrt(1 + 8 * sigma * sigma / (f * l2))) / 2;
    double eps = dp::linear_rdp_to_epsilon(network_c / (sigma * sigma), p.delta, alpha_max).epsilon;
    if (p.sender_known) {  // 4.4, the local level of one gradient (G2, sensitivity sqrt(f) L)
      const double eps_local = std::sqrt(f * l2 * 2 * std::log(1.25 / p.delta)) / sigma;
      eps += spotted_loss(s.contributions, n_eff, eps_local, p.delta, p.delta_tilde, p.delta_prime,
                          Composition::advanced)
                 .epsilon;
    }
    return eps;
  };
  s.sigma_network = dp::calibrate_sigma(network, p.epsilon);
  const double sigma = s.sigma_network;
  const dp::LinearRdpOptimum at = dp::linear_rdp_to_epsilon(
      network_c / (sigma * sigma), p.delta, (1 + std::sqrt(1 + 8 * sigma * sigma / (f * l2))) / 2);
  s.order = at.order;
  s.order_capped = at.capped;
}

void code_search(SigmaSearch& s, const SigmaSearchParams& p) {
  const double L = p.lipschitz, delta = p.delta, eps = p.epsilon, n = s.n, n_eff = s.n_effective;
  // Local ("loc"): K-fold C2 of eps0 at delta_ = delta/K meets eps; sigma = sqrt(2 ln(1.25/delta_)) L/eps0.
  const double k_local = std::ceil(p.cap_factor * s.steps / n), d_local = delta / k_local;
  const double eps0 = solve_increasing([&](double e) { return code_advanced(e, d_local, k_local); }, eps,
                                       eps / std::sqrt(k_local));
  s.sigma_local = std::sqrt(2 * std::log(1.25 / d_local)) * L / eps0;
  // Central (Bassily et al.): 16 L sqrt(T ln(2/delta) ln(c T/(delta n)))/(n eps).
  s.sigma_central =
      16 * L *
      std::sqrt(s.steps * std::log(2 / delta) * std::log(p.central_constant * s.steps / (delta * n))) /
      (n * eps);
  // Network ("net"): split eps between the spotted contributions and the others until both sigmas agree.
  const double k = std::ceil(p.cap_factor * s.steps / n_eff), d_ = delta / k;
  const double k_spotted = std::ceil(2 * k / n_eff + std::sqrt(6 * k * std::log(1 / delta) / n_eff));
  s.contributions = k;
  s.spotted_cap = k_spotted;
  s.closed_regime = !(k < n_eff * std::log(1 / delta) / (2 * std::log(n_eff)));
  double beta = 0.5;
  for (int iteration = 0;; ++iteration) {
    if (iteration > 100000 || !(beta > 0 && beta < 1))
      throw InvalidInput("sigma search (code procedure): the budget split did not converge");
    const double eps_spotted = beta * eps, eps_other = eps - eps_spotted;
    const double e0 =
        solve_increasing([&](double e) { return std::min(code_advanced(e, d_, k_spotted), k_spotted * e); },
                         eps_spotted, eps_spotted / std::sqrt(k_spotted));
    s.sigma_spotted = std::sqrt(2 * std::log(1.25 / d_)) * L / e0;
    if (s.closed_regime) {
      s.sigma_candidate =
          4 * L * std::sqrt(2 * k * std::log(n_eff) * std::log(1 / delta) / n_eff) / eps_other;
    } else {
      double sigma = std::sqrt(2 * std::log(1.25 / delta)) * L / eps_other;
      for (;; sigma *= 1.15) {
        const double alpha = (1 + std::sqrt(1 + 2 * sigma * sigma / (L * L))) / 2;  // L sqrt(2a(a-1)) = sigma
        const double e = s.slope_factor * k * L * L * alpha * std::log(n_eff) / (sigma * sigma * n_eff) +
                         std::log(1 / delta) / (alpha - 1);
        if (e < eps_other) break;
      }
      s.sigma_candidate = sigma;
    }
    const double ratio = s.sigma_spotted / s.sigma_candidate;
    if (ratio >= 0.95 && ratio <= 1.05) break;
    beta *= s.sigma_spotted > s.sigma_candidate ? 1.01 : 0.99;
  }
  s.beta = beta;
  s.sigma_network = std::max(s.sigma_spotted, s.sigma_candidate);
}

}  // namespace

SigmaSearch sgd_sigma_search(double n, const SigmaSearchParams& p) {
  validate(p);
  require_n("sigma search", n);
  SigmaSearch s;
  s.n = n;
  s.n_effective = effective_n(n, p.colluders);
  require(s.n_effective > 1, "sigma search", "n (/ colluders)", s.n_effective, "> 1");
  s.steps = p.steps > 0 ? p.steps : p.steps_per_node * n;
  s.slope_factor = p.slope_factor != 0 ? p.slope_factor : (p.procedure == SigmaProcedure::thesis ? 4 : 2);
  if (p.procedure == SigmaProcedure::thesis)
    thesis_search(s, p);
  else
    code_search(s, p);
  return s;
}

Columns SigmaSearch::columns(SigmaProcedure p) const {
  Columns c = {{"n_effective", n_effective},    {"T", steps},
               {"slope_factor", slope_factor},  {p == SigmaProcedure::thesis ? "N_u" : "K", contributions},
               {"sigma_local", sigma_local},    {"sigma_central", sigma_central},
               {"sigma_network", sigma_network}};
  if (p == SigmaProcedure::thesis) {
    c.insert(c.end(), {{"order", order}, {"order_capped", order_capped ? 1.0 : 0.0}});
  } else {
    c.insert(c.end(), {{"beta", beta},
                       {"sigma_spotted", sigma_spotted},
                       {"sigma_candidate", sigma_candidate},
                       {"K_spotted", spotted_cap},
                       {"closed_regime", closed_regime ? 1.0 : 0.0}});
  }
  return c;
}

}  // namespace netdp::bounds
