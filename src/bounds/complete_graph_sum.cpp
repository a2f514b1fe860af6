#include "netdp/bounds/complete_graph_sum.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "cycle_columns.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/subsampling.hpp"

namespace netdp::bounds {
using namespace detail;

CycleBound parse_cycle_bound(std::string_view text) {
  if (text == "closed" || text == "closed_3_over_sqrt_n") return CycleBound::closed;
  if (text == "exact_max" || text == "exact_max_m" || text == "exact") return CycleBound::exact_max;
  throw InvalidInput("unknown cycle bound '" + std::string(text) + "' (expected closed or exact_max)");
}
std::string to_string(CycleBound b) {
  return b == CycleBound::closed ? "closed" : "exact_max";
}

DeltaCycleRule parse_delta_cycle_rule(std::string_view text) {
  if (text == "assume_delta") return DeltaCycleRule::assume_delta;
  if (text == "k_delta") return DeltaCycleRule::k_delta;
  if (text == "group_privacy" || text == "group_bound") return DeltaCycleRule::group_privacy;
  if (text == "exact_gaussian") return DeltaCycleRule::exact_gaussian;
  throw InvalidInput("unknown delta_cycle '" + std::string(text) +
                     "' (expected assume_delta, k_delta, group_privacy or exact_gaussian)");
}
std::string to_string(DeltaCycleRule r) {
  switch (r) {
    case DeltaCycleRule::assume_delta:
      return "assume_delta";
    case DeltaCycleRule::k_delta:
      return "k_delta";
    case DeltaCycleRule::group_privacy:
      return "group_privacy";
    case DeltaCycleRule::exact_gaussian:
      return "exact_gaussian";
  }
  return "?";
}

SumAnalysis parse_sum_analysis(std::string_view text) {
  if (text == "thesis") return SumAnalysis::thesis;
  if (text == "preprint") return SumAnalysis::preprint;
  throw InvalidInput("unknown analysis '" + std::string(text) + "' (expected thesis or preprint)");
}
std::string to_string(SumAnalysis a) {
  return a == SumAnalysis::thesis ? "thesis" : "preprint";
}

void validate(const CompleteSumParams& p) {
  const std::string f = "complete-graph sum";
  require_walk_epsilon_delta(f, p);
  require(p.colluders >= 1, f, "colluders", p.colluders, ">= 1");
  require(p.preprint_c >= 0 && std::isfinite(p.preprint_c), f, "c", p.preprint_c, ">= 0 and finite");
}

double thesis_cycle_epsilon(double epsilon, double m, double n) {
  const double hit = n == 1 ? 1.0 : -std::expm1(m * std::log1p(-1 / n));
  return std::log1p(hit * std::expm1(epsilon / std::sqrt(m)));
}

double preprint_gamma(double n, double c) {
  if (n == 1) return c > 0 ? 1.0 : 0.0;
  return -std::expm1(c * c * std::pow(n, 2.0 / 3) * std::log1p(-1 / n));
}

double preprint_tuned_c(double n, double a, double c_min) {
  // c gamma_n(c) increases from 0 to infinity: bisect 2 c gamma_n(c) = a n^{-1/3} in log c.
  const double target = a / std::cbrt(n);
  auto above = [&](double c) { return 2 * c * preprint_gamma(n, c) >= target; };
  double lo = 1e-12, hi = 1.0;
  while (!above(hi)) hi *= 2;
  if (above(lo)) return std::max(lo, c_min);
  for (int i = 0; i < 200 && hi / lo > 1 + 1e-15; ++i) {
    const double mid = std::sqrt(lo * hi);
    (above(mid) ? hi : lo) = mid;
  }
  return std::max(hi, c_min);
}

namespace {

double steps_of(double n, const CompleteSumParams& p) {
  return p.steps > 0 ? p.steps : p.steps_per_node * n;
}

// Max over m <= n_eff of the SS2 delta_cycle(m) for the Gaussian base mechanism (docs/math.md §12 item 18):
// exhaustive up to n = 2048; above, over 257 geometrically spaced m and m = n (numerically delta_cycle
// increases with m, so the last point dominates; docs/bounds.md).
double delta_cycle_of(DeltaCycleRule rule, double n_eff, const CompleteSumParams& p) {
  if (rule == DeltaCycleRule::assume_delta) return p.delta;
  if (rule == DeltaCycleRule::k_delta) return std::floor(n_eff) / n_eff * p.delta;
  const std::int64_t n = require_integer_n(n_eff, "delta_cycle group_privacy / exact_gaussian");
  const dp::DeltaCycle method =
      rule == DeltaCycleRule::exact_gaussian ? dp::DeltaCycle::exact_gaussian : dp::DeltaCycle::group_privacy;
  const double sigma_loc = dp::gaussian_sigma_classic(p.epsilon, p.delta);
  auto at = [&](std::int64_t m) {
    const double theta = dp::aggregated_gaussian_theta(1.0, sigma_loc, double(m));
    return dp::with_replacement_delta(method, dp::aggregated_gaussian_epsilon(p.epsilon, double(m)), theta,
                                      p.delta, m, n);
  };
  double worst = at(n);
  if (n <= 2048) {
    for (std::int64_t m = 1; m < n; ++m) worst = std::max(worst, at(m));
  } else {
    for (int i = 0; i <= 256; ++i) worst = std::max(worst, at(std::llround(std::pow(double(n), i / 256.0))));
  }
  return worst;
}

void add_spotted(CompleteSumBound& b, const CompleteSumParams& p) {
  if (!p.sender_known) return;
  b.spotted = spotted_loss(b.contributions, b.n_effective, p.epsilon, p.delta, p.delta_tilde, p.delta_prime,
                           p.composition);
  b.epsilon += b.spotted.epsilon;
  b.delta += b.spotted.delta;
}

CompleteSumBound common_part(double n, const CompleteSumParams& p, SumAnalysis a) {
  validate(p);
  require_n("complete-graph sum", n);
  CompleteSumBound b;
  b.analysis = a;
  b.n = n;
  b.n_effective = effective_n(n, p.colluders);
  b.steps = steps_of(n, p);
  b.contributions = contribution_count(b.steps, b.n_effective, p.contributions);
  b.contributions_proven = contribution_count_proven(b.steps, b.n_effective, p.contributions);
  // LDP analogue: composition over the user's own contributions (docs/math.md §4.1.1, the real n).
  b.ldp_contributions = contribution_count(b.steps, n, p.contributions);
  const dp::EpsDelta ldp = compose(p.composition, p.epsilon, p.delta, b.ldp_contributions, p.delta_prime);
  b.eps_ldp = ldp.epsilon;
  b.delta_ldp = ldp.delta + contribution_delta(p.contributions);
  return b;
}

}  // namespace

CompleteSumBound complete_sum_thesis(double n, const CompleteSumParams& p) {
  CompleteSumBound b = common_part(n, p, SumAnalysis::thesis);
  const double n_eff = b.n_effective;
  b.cycles = b.contributions + b.steps / n_eff;  // real visits + fictive observations (App D.1 step 1-2)
  if (p.cycle_bound == CycleBound::closed) {
    // e^{eps/sqrt(m)} - 1 <= 2 eps/sqrt(m) and 1 - (1-1/n)^m <= 3m/(2n) need eps <= 1 (App D.1).
    require_condition(p.epsilon <= 1, "Thm 7.1 closed cycle bound 3 eps/sqrt(n)",
                      "eps <= 1 (got " + format_double(p.epsilon) + "); use cycle-bound exact_max");
    b.eps_cycle = 3 * p.epsilon / std::sqrt(n_eff);
    b.worst_m = n_eff;
  } else {
    const double eps = p.epsilon;
    auto hit = [&](double m) { return n_eff == 1 ? 1.0 : -std::expm1(m * std::log1p(-1 / n_eff)); };
    const CycleMaximum best = maximize_over_cycle_lengths(
        static_cast<std::int64_t>(std::floor(n_eff)),
        [&](std::int64_t m) { return thesis_cycle_epsilon(eps, double(m), n_eff); },
        [&](std::int64_t lo, std::int64_t hi) {
          return std::log1p(hit(double(hi)) * std::expm1(eps / std::sqrt(double(lo))));
        },
        p.exhaustive_limit);
    b.eps_cycle = best.value;
    b.worst_m = double(best.m);
  }
  b.delta_cycle = delta_cycle_of(p.delta_cycle, n_eff, p);
  const dp::EpsDelta total = compose(p.composition, b.eps_cycle, b.delta_cycle, b.cycles, p.delta_prime);
  b.epsilon = total.epsilon;
  b.delta = std::min(1.0, total.delta + contribution_delta(p.contributions));
  add_spotted(b, p);
  return b;
}

CompleteSumBound complete_sum_preprint(double n, const CompleteSumParams& p) {
  CompleteSumBound b = common_part(n, p, SumAnalysis::preprint);
  const double n_eff = b.n_effective, eps = p.epsilon;
  // min(gamma_n (e^eps - 1), eps) <= 2 gamma_n eps: [S2] Thm 3 states eps < 1 (e^eps - 1 <= 2 eps holds up
  // to eps = 1.25, so the boundary eps = 1 is admitted).
  require_condition(eps <= 1, "[S2] Thm 3", "eps <= 1 (got " + format_double(eps) + ")");
  b.cycles = b.contributions;
  b.c = p.preprint_c > 0 ? p.preprint_c : preprint_tuned_c(n_eff, 1.0);
  b.gamma_n = preprint_gamma(n_eff, b.c);
  b.eps_cycle = std::max(2 * b.gamma_n * eps, eps / (b.c * std::cbrt(n_eff)));
  b.delta_cycle = p.delta;  // delta_amp <= (m/n) delta <= delta
  const dp::EpsDelta total = compose(p.composition, b.eps_cycle, p.delta, b.cycles, p.delta_prime);
  b.epsilon = total.epsilon;
  b.delta = std::min(1.0, total.delta + contribution_delta(p.contributions));
  // As printed: the second term carries eps, not eps_c (valid, looser).
  b.eps_printed = std::sqrt(2 * b.cycles * std::log(1 / p.delta_prime)) * b.eps_cycle +
                  b.cycles * eps * std::expm1(b.eps_cycle);
  add_spotted(b, p);
  if (p.sender_known) b.eps_printed += b.spotted.epsilon;
  return b;
}

CompleteSumBound complete_sum(SumAnalysis a, double n, const CompleteSumParams& p) {
  return a == SumAnalysis::thesis ? complete_sum_thesis(n, p) : complete_sum_preprint(n, p);
}

Columns CompleteSumBound::columns() const {
  Columns c = cycle_columns(*this);
  if (analysis == SumAnalysis::thesis) {
    c.push_back({"worst_m", worst_m});
    c.push_back({"delta_cycle", delta_cycle});
  } else {
    c.push_back({"c", this->c});
    c.push_back({"gamma_n", gamma_n});
  }
  c.insert(c.end(), {{"eps", epsilon}, {"delta", delta}});
  if (analysis == SumAnalysis::preprint) c.push_back({"eps_printed", eps_printed});
  c.insert(c.end(), {{"N_s", spotted.count},
                     {"eps_spotted", spotted.epsilon},
                     {"N_ldp", ldp_contributions},
                     {"eps_ldp", eps_ldp},
                     {"delta_ldp", delta_ldp}});
  return c;
}

}  // namespace netdp::bounds
