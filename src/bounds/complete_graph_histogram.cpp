#include "netdp/bounds/complete_graph_histogram.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "cycle_columns.hpp"
#include "netdp/bounds/complete_graph_sum.hpp"
#include "netdp/dp/randomized_response.hpp"
#include "netdp/dp/shuffling.hpp"

namespace netdp::bounds {
using namespace detail;

HistogramAnalysis parse_histogram_analysis(std::string_view text) {
  if (text == "closed") return HistogramAnalysis::closed;
  if (text == "numerical") return HistogramAnalysis::numerical;
  if (text == "preprint") return HistogramAnalysis::preprint;
  throw InvalidInput("unknown analysis '" + std::string(text) + "' (expected closed, numerical or preprint)");
}
std::string to_string(HistogramAnalysis a) {
  switch (a) {
    case HistogramAnalysis::closed:
      return "closed";
    case HistogramAnalysis::numerical:
      return "numerical";
    case HistogramAnalysis::preprint:
      return "preprint";
  }
  return "?";
}

void validate(const CompleteHistogramParams& p) {
  const std::string f = "complete-graph histogram";
  require_walk_epsilon_delta(f, p);
  require(p.categories >= 2, f, "categories L", p.categories, ">= 2");
  require(p.colluders >= 1, f, "colluders", p.colluders, ">= 1");
}

namespace {
double hit_probability(double m, double n) {
  return n == 1 ? 1.0 : -std::expm1(m * std::log1p(-1 / n));
}
// SH2 where its condition holds, else no amplification (eps itself).
double shuffled_epsilon(double epsilon, double delta, std::int64_t m) {
  if (!dp::fmt_valid(epsilon, m, delta)) return epsilon;
  return std::min(epsilon, dp::fmt_epsilon(epsilon, m, delta));
}
}  // namespace

double histogram_cycle_epsilon(double epsilon, double delta, std::int64_t m, double n) {
  return std::log1p(hit_probability(double(m), n) * std::expm1(shuffled_epsilon(epsilon, delta, m)));
}

CompleteHistogramBound complete_histogram(HistogramAnalysis a, double n, const CompleteHistogramParams& p) {
  validate(p);
  require_n("complete-graph histogram", n);
  const double eps = p.epsilon, log4 = std::log(4 / p.delta);
  CompleteHistogramBound b;
  b.analysis = a;
  b.n = n;
  b.n_effective = effective_n(n, p.colluders);
  const double n_eff = b.n_effective;
  b.steps = p.steps > 0 ? p.steps : p.steps_per_node * n;
  b.contributions = contribution_count(b.steps, n_eff, p.contributions);
  b.contributions_proven = contribution_count_proven(b.steps, n_eff, p.contributions);
  b.cycles = a == HistogramAnalysis::preprint ? b.contributions : b.contributions + b.steps / n_eff;
  b.gamma = dp::rr_gamma_of_epsilon(eps, p.categories);
  b.random_responses = b.gamma * b.steps;

  if (a == HistogramAnalysis::closed) {
    const std::string thm = "Thm D.1";
    require_condition(eps <= 1, thm, "eps <= 1 (got " + format_double(eps) + ")");
    require_condition(n_eff >= 196 * log4, thm,
                      "n >= 14^2 ln(4/delta) = " + format_double(196 * log4) + " (got n" +
                          (p.colluders > 1 ? "/colluders = " : " = ") + format_double(n_eff) + ")");
    b.eps_cycle = 21 * std::sqrt(log4) * eps / std::sqrt(n_eff);  // the worst cycle, m = n
    b.worst_m = n_eff;
  } else if (a == HistogramAnalysis::numerical) {
    const CycleMaximum best = maximize_over_cycle_lengths(
        static_cast<std::int64_t>(std::floor(n_eff)),
        [&](std::int64_t m) { return histogram_cycle_epsilon(eps, p.delta, m, n_eff); },
        [&](std::int64_t lo, std::int64_t hi) {  // SH2 decreases in m, the hit probability increases
          return std::log1p(hit_probability(double(hi), n_eff) *
                            std::expm1(shuffled_epsilon(eps, p.delta, lo)));
        },
        p.exhaustive_limit);
    b.eps_cycle = best.value;
    b.worst_m = double(best.m);
  } else {
    // eps <= ln(c^2 n^{2/3} / (16 ln(2/delta))) <=> c >= c_min; eps <= 1 for 2 gamma_n eps.
    require_condition(eps <= 1, "[S2] Thm 6", "eps <= 1 (got " + format_double(eps) + ")");
    const double c_min = std::sqrt(16 * std::log(2 / p.delta) * std::exp(eps) / std::pow(n_eff, 2.0 / 3));
    const double a14 = 14 * std::sqrt(log4);
    b.c = preprint_tuned_c(n_eff, a14, c_min);
    b.gamma_n = preprint_gamma(n_eff, b.c);
    b.eps_cycle = std::max(2 * b.gamma_n * eps, a14 * eps / (b.c * std::cbrt(n_eff)));
  }
  // Each cycle (contribution) is (eps_cycle, delta): SS2 keeps (m/n) delta <= delta.
  const dp::EpsDelta total = compose(p.composition, b.eps_cycle, p.delta, b.cycles, p.delta_prime);
  b.epsilon = total.epsilon;
  b.delta = std::min(1.0, total.delta + contribution_delta(p.contributions));
  if (p.sender_known) {
    b.spotted = spotted_loss(b.contributions, n_eff, eps, 0.0, p.delta_tilde, p.delta_prime, p.composition);
    b.epsilon += b.spotted.epsilon;
    b.delta += b.spotted.delta;
  }
  // LDP analogue: RR_gamma is pure eps-LDP; compose over the user's own contributions (the real n).
  b.ldp_contributions = contribution_count(b.steps, n, p.contributions);
  const dp::EpsDelta ldp = compose(p.composition, eps, 0.0, b.ldp_contributions, p.delta_prime);
  b.eps_ldp = ldp.epsilon;
  b.delta_ldp = ldp.delta + contribution_delta(p.contributions);
  return b;
}

Columns CompleteHistogramBound::columns() const {
  Columns c = cycle_columns(*this);
  if (analysis == HistogramAnalysis::preprint) {
    c.push_back({"c", this->c});
    c.push_back({"gamma_n", gamma_n});
  } else {
    c.push_back({"worst_m", worst_m});
  }
  c.insert(c.end(), {{"eps", epsilon},
                     {"delta", delta},
                     {"N_s", spotted.count},
                     {"eps_spotted", spotted.epsilon},
                     {"gamma", gamma},
                     {"random_responses", random_responses},
                     {"N_ldp", ldp_contributions},
                     {"eps_ldp", eps_ldp},
                     {"delta_ldp", delta_ldp}});
  return c;
}

}  // namespace netdp::bounds
