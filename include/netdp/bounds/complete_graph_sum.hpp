#pragma once
// Real summation by a random walk on the complete graph (docs/math.md §4.1, Algorithm 7.1): network-DP bounds
// of the thesis (4.1.1, Thm 7.1, App D.1) and of the preprint (4.1.2, [S2] Thm 3), and the LDP analogue.
// Every contribution is Gaussian, calibrated to be (eps, delta)-LDP (G2).
#include <cstdint>
#include <string>
#include <string_view>

#include "netdp/bounds/common.hpp"

namespace netdp::bounds {

/// Per-cycle level of the thesis analysis (Appendix Y `cycle_bound`):
enum class CycleBound {
  closed,     // 3 eps / sqrt(n), valid for eps <= 1 (what the figures use)
  exact_max,  // max_{1 <= m <= n} eps_cycle(m) (tighter)
};
CycleBound parse_cycle_bound(std::string_view text);  // "closed" | "exact_max" (or the Appendix Y names)
std::string to_string(CycleBound b);

/// The delta of one cycle (Appendix Y `delta_cycle`; docs/math.md §12 item 18):
enum class DeltaCycleRule {
  assume_delta,    // delta_cycle := delta (what [S3] D.1.1 does after a numerical observation)
  k_delta,         // SS2 with delta_{A,k} <= k delta: (m/n) delta
  group_privacy,   // SS2 with the group-privacy profile ([S3] D.1.1)
  exact_gaussian,  // SS2 with the exact Gaussian group profile (G3, theta = k / (sigma_loc sqrt(m)))
};
DeltaCycleRule parse_delta_cycle_rule(std::string_view text);
std::string to_string(DeltaCycleRule r);

enum class SumAnalysis { thesis, preprint };
SumAnalysis parse_sum_analysis(std::string_view text);  // "thesis" | "preprint"
std::string to_string(SumAnalysis a);

struct CompleteSumParams {
  double epsilon = 0.1;       // eps0: every contribution is (eps0, delta)-LDP
  double delta = 1e-7;        // its delta
  double delta_prime = 1e-7;  // composition slack delta'
  double steps = 0;           // T; 0 means steps_per_node * n
  double steps_per_node = 100;
  ContributionOptions contributions;
  Composition composition = Composition::optimal_min;
  CycleBound cycle_bound = CycleBound::closed;
  DeltaCycleRule delta_cycle = DeltaCycleRule::assume_delta;
  double colluders = 1;                     // 4.5: the bound of n / colluders users
  bool sender_known = false;                // 4.4: add the spotted contributions (CB2)
  double delta_tilde = 1e-7;                // CB2 failure probability
  std::int64_t exhaustive_limit = 1 << 16;  // see maximize_over_cycle_lengths
  // The preprint analysis' free constant c ([S2] Thm 3, docs/math.md §4.1.2): 0 tunes it for each n (the
  // smallest eps_cycle), > 0 fixes it for every n, as a reader of the preprint's Fig. 1a would.
  double preprint_c = 0;
};
/// The checks that do not depend on n (InvalidInput).
void validate(const CompleteSumParams& p);

struct CompleteSumBound {
  SumAnalysis analysis = SumAnalysis::thesis;
  double n = 0, n_effective = 0, steps = 0;
  double contributions = 0;  // N_v = N_u (with n_effective)
  bool contributions_proven = true;
  double cycles = 0;     // compositions: k = N_v + T/n (thesis) or N_u (preprint)
  double eps_cycle = 0;  // per cycle (thesis) or per contribution (preprint)
  double worst_m = 0;    // the maximising cycle length (exact_max), else n_effective (thesis) / 0
  double delta_cycle = 0;
  double epsilon = 0, delta = 0;  // the network-DP guarantee, spotted loss included
  double ldp_contributions = 0, eps_ldp = 0, delta_ldp = 0;  // LDP analogue (the real n)
  SpottedLoss spotted;                                       // zero unless sender_known
  double c = 0, gamma_n = 0, eps_printed = 0;                // preprint only
  Columns columns() const;
};

/// 4.1.1: k = N_v + T/n cycles, each eps_cycle; composition; delta = k delta_cycle + delta' + delta_hat.
CompleteSumBound complete_sum_thesis(double n, const CompleteSumParams& p);
/// 4.1.2: eps_c = max(2 gamma_n eps, eps / (c n^{1/3})) with c tuned, composed over N_u; needs eps <= 1.
CompleteSumBound complete_sum_preprint(double n, const CompleteSumParams& p);
CompleteSumBound complete_sum(SumAnalysis a, double n, const CompleteSumParams& p);

/// 4.1.1 step 3 (G6 then SS2): eps_cycle(m) = ln(1 + (1 - (1 - 1/n)^m)(e^{eps/sqrt(m)} - 1)), real n >= 1.
double thesis_cycle_epsilon(double epsilon, double m, double n);
/// 4.1.2: gamma_n = 1 - (1 - 1/n)^{c^2 n^{2/3}}.
double preprint_gamma(double n, double c);
/// The c minimising max(2 gamma_n(c), a / (c n^{1/3})) over c >= c_min (the crossing of an increasing and a
/// decreasing function, or c_min when the crossing lies below it).
double preprint_tuned_c(double n, double a, double c_min = 0);

}  // namespace netdp::bounds
