#pragma once
// Histograms by a random walk on the complete graph (docs/math.md §4.2; [S3] Alg. D.1, Thm D.1; [S2] Alg. 5,
// Thm 6). Every contribution is RR_gamma with gamma = L/(e^eps + L - 1) (eps-LDP); a cycle of m contributions
// is a shuffle (SH2), then subsampled with replacement (SS2).
#include <cstdint>
#include <string>
#include <string_view>

#include "netdp/bounds/common.hpp"

namespace netdp::bounds {

enum class HistogramAnalysis {
  closed,     // [S3] Thm D.1: eps_c = min(3 eps/2, 21 sqrt(ln(4/delta)) eps/sqrt(n)); eps <= 1,
              // n >= 14^2 ln(4/delta)
  numerical,  // Remark D.2: max over m of SS2(min(eps, SH2(eps, m, delta)), m, n), un-simplified formulas
  preprint,   // [S2] Thm 6: eps_c = max(2 gamma_n eps, 14 sqrt(ln(4/delta)) eps/(c n^{1/3})), c tuned
};
HistogramAnalysis parse_histogram_analysis(std::string_view text);  // "closed" | "numerical" | "preprint"
std::string to_string(HistogramAnalysis a);

struct CompleteHistogramParams {
  double epsilon = 0.5;  // LDP level of RR_gamma
  double delta = 1e-7;   // the delta of the shuffling bound (SH2)
  double delta_prime = 1e-7;
  double steps = 0;  // T; 0 means steps_per_node * n
  double steps_per_node = 100;
  int categories = 2;  // L
  ContributionOptions contributions;
  Composition composition = Composition::optimal_min;
  double colluders = 1;
  bool sender_known = false;
  double delta_tilde = 1e-7;
  std::int64_t exhaustive_limit = 1 << 16;
};
void validate(const CompleteHistogramParams& p);

struct CompleteHistogramBound {
  HistogramAnalysis analysis = HistogramAnalysis::closed;
  double n = 0, n_effective = 0, steps = 0;
  double contributions = 0;  // N_v = N_u
  bool contributions_proven = true;
  double cycles = 0;  // k = N_v + T/n (thesis) or N_u (preprint)
  double eps_cycle = 0;
  double worst_m = 0;  // the maximising cycle length (numerical), n_effective (closed), 0 (preprint)
  double epsilon = 0, delta = 0;
  double gamma = 0, random_responses = 0;  // utility: gamma T random responses in expectation
  double ldp_contributions = 0, eps_ldp = 0, delta_ldp = 0;
  SpottedLoss spotted;
  double c = 0, gamma_n = 0;  // preprint only
  Columns columns() const;
};

CompleteHistogramBound complete_histogram(HistogramAnalysis a, double n, const CompleteHistogramParams& p);

/// Remark D.2 per-cycle level: ln(1 + (1 - (1-1/n)^m)(e^{eps_A} - 1)) with eps_A = min(eps, SH2(eps, m,
/// delta)) where SH2's condition holds.
double histogram_cycle_epsilon(double epsilon, double delta, std::int64_t m, double n);

}  // namespace netdp::bounds
