#include "netdp/bounds/complete_graph_sgd.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "netdp/dp/conversion.hpp"
#include "netdp/dp/gaussian.hpp"

namespace netdp::bounds {
using namespace detail;

SgdHorizon parse_sgd_horizon(std::string_view text) {
  if (text == "infinite") return SgdHorizon::infinite;
  if (text == "finite") return SgdHorizon::finite;
  throw InvalidInput("unknown horizon '" + std::string(text) + "' (expected infinite or finite)");
}
std::string to_string(SgdHorizon h) {
  return h == SgdHorizon::infinite ? "infinite" : "finite";
}

void validate(const SgdParams& p) {
  const std::string f = "complete-graph SGD";
  require_walk_setting(f, p.steps, p.steps_per_node, p.delta_prime, p.contributions.delta_hat, p.delta_tilde);
  require_positive(f, "lipschitz L", p.lipschitz);
  require_open_unit(f, "delta", p.delta);
  if (p.sigma == 0)
    require_positive(f, "epsilon", p.epsilon);
  else
    require_positive(f, "sigma", p.sigma);
  require(p.alpha > 1 && std::isfinite(p.alpha), f, "alpha", p.alpha, "> 1");
  require(p.slope_factor == 1 || p.slope_factor == 2 || p.slope_factor == 4, f, "slope factor",
          p.slope_factor, "1, 2 or 4");
  require(p.colluders >= 1, f, "colluders", p.colluders, ">= 1");
}

double geometric_harmonic_sum(double n, double steps) {
  require_n("geometric_harmonic_sum", n);
  require(steps >= 1, "geometric_harmonic_sum", "T", steps, ">= 1");
  if (n == 1) return 1;  // x = 0: only the t = 1 term
  const double x = 1 - 1 / n;
  if (steps >= 40 * n) return n * std::log(n) / (n - 1);  // the tail past T is below e^-40 of the sum
  const double last = std::floor(steps);
  if (last <= 1e7) {
    double sum = 0, power = 1;  // x^{t-1}
    for (double t = 1; t <= last; ++t, power *= x) sum += power / t;
    return sum;
  }
  // sum_{t<=T} x^t/t = int_0^x (1 - u^T)/(1 - u) du = int_{-ln n}^0 (1 - (1 - e^s)^T) ds: Simpson.
  const int intervals = 1 << 16;
  const double a = -std::log(n), h = -a / intervals;
  auto g = [&](double s) { return -std::expm1(last * std::log1p(-std::exp(s))); };
  double acc = g(a) + g(0.0);
  for (int i = 1; i < intervals; ++i) acc += (i % 2 ? 4 : 2) * g(a + i * h);
  return acc * h / 3 / x;
}

namespace {

double steps_of(double n, const SgdParams& p) {
  return p.steps > 0 ? p.steps : p.steps_per_node * n;
}
// sigma_abs and the local (eps, delta) level it gives (G2 with sensitivity 2L, docs/math.md §4.3).
void noise_of(const SgdParams& p, double* sigma, double* eps_local) {
  const double sensitivity = 2 * p.lipschitz;
  *sigma = p.sigma > 0 ? p.sigma : dp::gaussian_sigma_classic(p.epsilon, p.delta, sensitivity);
  *eps_local = p.sigma > 0 ? sensitivity * std::sqrt(2 * std::log(1.25 / p.delta)) / p.sigma : p.epsilon;
}

}  // namespace

SgdRdpBound sgd_network_rdp(double n, const SgdParams& p) {
  validate(p);
  require_n("complete-graph SGD", n);
  SgdRdpBound b;
  b.n = n;
  b.n_effective = effective_n(n, p.colluders);
  require(b.n_effective > 1, "complete-graph SGD network RDP", "n (/ colluders)", b.n_effective, "> 1");
  b.steps = steps_of(n, p);
  b.contributions = contribution_count(b.steps, b.n_effective, p.contributions);
  b.contributions_proven = contribution_count_proven(b.steps, b.n_effective, p.contributions);
  noise_of(p, &b.sigma, &b.eps_local);
  const double l2 = p.lipschitz * p.lipschitz, s2 = b.sigma * b.sigma, f = p.slope_factor;
  b.horizon_sum = p.horizon == SgdHorizon::infinite ? std::log(b.n_effective)
                                                    : geometric_harmonic_sum(b.n_effective, b.steps);
  b.slope = f * b.contributions * l2 * b.horizon_sum / (s2 * b.n_effective);
  b.alpha = p.alpha;
  b.rdp = b.slope * p.alpha;
  b.alpha_max = (1 + std::sqrt(1 + 8 * s2 / (f * l2))) / 2;  // sigma^2 >= alpha(alpha-1) Delta^2/2 (PI4)
  b.alpha_valid = p.alpha <= b.alpha_max;
  const dp::LinearRdpOptimum best = dp::linear_rdp_to_epsilon(b.slope, p.delta, b.alpha_max);
  b.epsilon = best.epsilon;
  b.order = best.order;
  b.order_capped = best.capped;
  b.delta = p.delta + contribution_delta(p.contributions);
  // LDP analogue: each of the user's own contributions is a Gaussian release (G1), no amplification.
  const double ldp_count = contribution_count(b.steps, n, p.contributions);
  b.ldp_slope = ldp_count * f * l2 / (2 * s2);
  b.eps_ldp = dp::linear_rdp_to_epsilon(b.ldp_slope, p.delta).epsilon;
  b.delta_ldp = b.delta;
  if (p.sender_known) {
    b.spotted = spotted_loss(b.contributions, b.n_effective, b.eps_local, p.delta, p.delta_tilde,
                             p.delta_prime, p.composition);
    b.epsilon += b.spotted.epsilon;
    b.delta += b.spotted.delta;
  }
  return b;
}

Columns SgdRdpBound::columns() const {
  return {{"n_effective", n_effective},
          {"T", steps},
          {"N_u", contributions},
          {"N_u_proven", contributions_proven ? 1.0 : 0.0},
          {"sigma", sigma},
          {"eps_local", eps_local},
          {"horizon_sum", horizon_sum},
          {"rdp_slope", slope},
          {"alpha", alpha},
          {"rdp", rdp},
          {"alpha_max", alpha_max},
          {"alpha_valid", alpha_valid ? 1.0 : 0.0},
          {"eps", epsilon},
          {"delta", delta},
          {"order", order},
          {"order_capped", order_capped ? 1.0 : 0.0},
          {"N_s", spotted.count},
          {"eps_spotted", spotted.epsilon},
          {"ldp_rdp_slope", ldp_slope},
          {"eps_ldp", eps_ldp},
          {"delta_ldp", delta_ldp}};
}

SgdClosedForm sgd_closed_form(double n, const SgdParams& p) {
  validate(p);
  require_n("Thm 7.2", n);
  require_condition(p.sigma == 0, "Thm 7.2", "the closed form takes eps, not sigma");
  // eps = 1 is admitted: G2's (eps, delta) guarantee extends to the boundary by continuity (Appendix Z 5).
  require_condition(p.epsilon <= 1, "Thm 7.2", "eps <= 1 (got " + format_double(p.epsilon) + ")");
  require_condition(p.delta < 0.5, "Thm 7.2", "delta < 1/2 (got " + format_double(p.delta) + ")");
  SgdClosedForm b;
  b.n = n;
  b.n_effective = effective_n(n, p.colluders);
  b.steps = steps_of(n, p);
  b.contributions = contribution_count(b.steps, b.n_effective, p.contributions);
  b.contributions_proven = contribution_count_proven(b.steps, b.n_effective, p.contributions);
  const double log_inv = std::log(1 / p.delta), n_eff = b.n_effective;
  const double from_visits = 2 * b.contributions * std::log(n_eff) / n_eff, from_delta = 2 * log_inv;
  b.q = std::max(from_visits, from_delta);
  b.q_from_delta = from_delta >= from_visits;
  double eps_local = 0;
  noise_of(p, &b.sigma, &eps_local);
  b.alpha = b.sigma * std::sqrt(log_inv) / (p.lipschitz * std::sqrt(b.q));
  b.epsilon = std::sqrt(2 * b.q * log_inv) * p.epsilon / std::sqrt(std::log(1.25 / p.delta));
  b.delta = p.delta + contribution_delta(p.contributions);
  const dp::EpsDelta ldp = compose(p.composition, p.epsilon, p.delta,
                                   contribution_count(b.steps, n, p.contributions), p.delta_prime);
  b.eps_ldp = ldp.epsilon;
  b.delta_ldp = ldp.delta + contribution_delta(p.contributions);
  if (p.sender_known) {
    b.spotted =
        spotted_loss(b.contributions, n_eff, p.epsilon, p.delta, p.delta_tilde, p.delta_prime, p.composition);
    b.epsilon += b.spotted.epsilon;
    b.delta += b.spotted.delta;
  }
  return b;
}

Columns SgdClosedForm::columns() const {
  return {{"n_effective", n_effective},
          {"T", steps},
          {"N_u", contributions},
          {"N_u_proven", contributions_proven ? 1.0 : 0.0},
          {"q", q},
          {"q_from_delta", q_from_delta ? 1.0 : 0.0},
          {"sigma", sigma},
          {"alpha", alpha},
          {"eps", epsilon},
          {"delta", delta},
          {"N_s", spotted.count},
          {"eps_spotted", spotted.epsilon},
          {"eps_ldp", eps_ldp},
          {"delta_ldp", delta_ldp}};
}

}  // namespace netdp::bounds
