#include "netdp/bounds/ring.hpp"

#include <cmath>
#include <limits>

#include "checks.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/randomized_response.hpp"
#include "netdp/dp/shuffling.hpp"

namespace netdp::bounds {
using namespace detail;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

void check_colluders(const std::string& f, double colluders, double n) {
  require(colluders == 1 || (colluders > 1 && colluders < n), f, "colluders", colluders, "1, or > 1 and < n");
}
}  // namespace

void validate(const RingSumParams& p) {
  const std::string f = "ring sum";
  require_ring_setting(f, p);
  require_positive(f, "sensitivity", p.sensitivity);
  require(p.colluders >= 1, f, "colluders", p.colluders, ">= 1");
}

RingSumBound ring_sum(double n, const RingSumParams& p) {
  validate(p);
  const std::int64_t ni = require_integer_n(n, "ring sum");
  require(ni >= 2, "ring sum", "n", n, ">= 2");
  check_colluders("ring sum", p.colluders, n);
  RingSumBound b;
  b.n = n;
  b.sigma_loc = dp::gaussian_sigma_classic(p.epsilon, p.delta, p.sensitivity);
  // Thm 5.5: every difference of consecutive tokens seen by v holds one contribution of u and fresh noise.
  const dp::EpsDelta c = compose(p.composition, p.epsilon, p.delta, p.turns, p.delta_prime);
  b.epsilon = p.colluders > 1 ? kInf : c.epsilon;
  b.delta = c.delta;
  b.eps_ldp = c.epsilon;
  b.delta_ldp = c.delta;
  const double noises = std::floor(double(p.turns) * n / (n - 1));  // noise once every n - 1 hops
  b.std_ring = std::sqrt(noises) * b.sigma_loc;
  b.std_ldp = std::sqrt(double(p.turns) * n) * b.sigma_loc;
  b.std_distributed = std::sqrt(noises + 1) * b.sigma_loc;
  return b;
}

Columns RingSumBound::columns() const {
  return {{"sigma_loc", sigma_loc}, {"eps", epsilon},        {"delta", delta},
          {"std", std_ring},        {"std_ldp", std_ldp},    {"std_distributed", std_distributed},
          {"eps_ldp", eps_ldp},     {"delta_ldp", delta_ldp}};
}

HistogramGamma parse_histogram_gamma(std::string_view text) {
  if (text == "corrected") return HistogramGamma::corrected;
  if (text == "literal") return HistogramGamma::literal;
  throw InvalidInput("unknown histogram gamma '" + std::string(text) + "' (expected corrected or literal)");
}
std::string to_string(HistogramGamma g) {
  return g == HistogramGamma::corrected ? "corrected" : "literal";
}

void validate(const RingHistogramParams& p) {
  const std::string f = "ring histogram";
  require_ring_setting(f, p);
  require(p.categories >= 2, f, "categories L", p.categories, ">= 2");
  require(p.colluders >= 1, f, "colluders", p.colluders, ">= 1");
  require_condition(p.epsilon < 0.5, "Thm 5.7", "eps < 1/2 (got " + format_double(p.epsilon) + ")");
  require_condition(p.delta < 0.01, "Thm 5.7", "delta < 1/100 (got " + format_double(p.delta) + ")");
}

RingHistogramBound ring_histogram(double n, const RingHistogramParams& p) {
  validate(p);
  const std::int64_t ni = require_integer_n(n, "ring histogram");
  require_condition(n > 1000, "Thm 5.7", "n > 1000 (got " + format_double(n) + ")");
  check_colluders("ring histogram", p.colluders, n);
  const double log_inv = std::log(1 / p.delta);
  RingHistogramBound b;
  b.n = n;
  b.eps0 = p.gamma_rule == HistogramGamma::corrected ? p.epsilon * std::sqrt(n / log_inv) / 12
                                                     : 12 * p.epsilon * std::sqrt(log_inv / n);
  if (p.gamma_rule == HistogramGamma::corrected)
    require_condition(b.eps0 <= 0.5, "SH1 (Erlingsson et al.) in Thm 5.7",
                      "eps0 = eps sqrt(n/ln(1/delta))/12 <= 1/2 (got " + format_double(b.eps0) +
                          "); n must be <= " + format_double(36 * log_inv / (p.epsilon * p.epsilon)));
  b.gamma = dp::rr_gamma_of_epsilon(b.eps0, p.categories);
  b.eps_cycle_sh1 =
      dp::erlingsson_valid(b.eps0, ni, p.delta) ? dp::erlingsson_epsilon(b.eps0, ni, p.delta) : std::nan("");
  b.random_responses = b.gamma * n * (p.turns + 1);
  const dp::EpsDelta c = compose(p.composition, p.epsilon, p.delta, p.turns, p.delta_prime);
  b.epsilon = p.colluders > 1 ? kInf : c.epsilon;
  b.delta = c.delta;
  // LDP baseline: RR_gamma itself eps-LDP, gamma constant in n (sqrt(n) times more random responses).
  b.gamma_ldp = dp::rr_gamma_of_epsilon(p.epsilon, p.categories);
  b.random_responses_ldp = b.gamma_ldp * n * p.turns;
  const dp::EpsDelta ldp = compose(p.composition, p.epsilon, 0.0, p.turns, p.delta_prime);
  b.eps_ldp = ldp.epsilon;
  b.delta_ldp = ldp.delta;
  return b;
}

Columns RingHistogramBound::columns() const {
  return {{"gamma", gamma},
          {"eps0", eps0},
          {"eps_cycle_sh1", eps_cycle_sh1},
          {"random_responses", random_responses},
          {"eps", epsilon},
          {"delta", delta},
          {"gamma_ldp", gamma_ldp},
          {"random_responses_ldp", random_responses_ldp},
          {"eps_ldp", eps_ldp},
          {"delta_ldp", delta_ldp}};
}

}  // namespace netdp::bounds
