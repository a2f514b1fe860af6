#pragma once
// Token walk on a directed ring, K full turns (docs/math.md §3; [S3] Ch. 5.4, Thm 5.5, Thm 5.7; [S2] §3).
#include <string>
#include <string_view>

#include "netdp/bounds/common.hpp"

namespace netdp::bounds {

struct RingSumParams {
  int turns = 1;       // K
  double epsilon = 1;  // Perturb is (eps, delta)-LDP (G2)
  double delta = 1e-6;
  double delta_prime = 1e-6;
  double sensitivity = 1;                           // Delta, for sigma_loc = Delta sqrt(2 ln(1.25/delta))/eps
  Composition composition = Composition::advanced;  // Thm 5.5 is C2 with k = K
  double colluders = 1;  // two colluders break DP for the nodes between them (§5.4.3)
};
void validate(const RingSumParams& p);

struct RingSumBound {
  double n = 0;
  double sigma_loc = 0;
  double epsilon = 0, delta = 0;      // network DP (+inf with >= 2 colluders)
  double eps_ldp = 0, delta_ldp = 0;  // LDP: the same composition over the user's K contributions
  double std_ring = 0;                // sqrt(floor(K n/(n-1))) sigma_loc (Thm 5.5)
  double std_ldp = 0;                 // sqrt(K n) sigma_loc
  double std_distributed = 0;         // Remark 5.6: sqrt(floor(K n/(n-1)) + 1) sigma_loc
  Columns columns() const;
};
/// 3.1, Algorithm 5.1. n >= 2 and integer.
RingSumBound ring_sum(double n, const RingSumParams& p);

/// Appendix Y `histogram_gamma` (docs/math.md §12 item 21):
enum class HistogramGamma {
  corrected,  // eps0 = eps sqrt(n/ln(1/delta))/12, so that SH1 of a cycle gives eps
  literal,    // as printed: eps0 = 12 eps sqrt(ln(1/delta)/n) (inverted; reproduction only)
};
HistogramGamma parse_histogram_gamma(std::string_view text);  // "corrected" | "literal"
std::string to_string(HistogramGamma g);

struct RingHistogramParams {
  int turns = 1;          // K
  double epsilon = 0.25;  // per-cycle level after shuffling; Thm 5.7 needs eps < 1/2
  double delta = 1e-6;    // Thm 5.7 needs delta in (0, 1/100)
  double delta_prime = 1e-6;
  int categories = 2;  // L
  HistogramGamma gamma_rule = HistogramGamma::corrected;
  Composition composition = Composition::advanced;
  double colluders = 1;
};
void validate(const RingHistogramParams& p);

struct RingHistogramBound {
  double n = 0;
  double gamma = 0, eps0 = 0;     // RR_gamma and its LDP level (RR2)
  double eps_cycle_sh1 = 0;       // SH1 of a cycle of n RR_gamma outputs (= eps when corrected)
  double random_responses = 0;    // gamma n (K + 1) in expectation (Thm 5.7)
  double epsilon = 0, delta = 0;  // C2 over K cycles (+inf with >= 2 colluders)
  double gamma_ldp = 0, random_responses_ldp = 0;  // LDP baseline: RR eps-LDP, gamma n K responses
  double eps_ldp = 0, delta_ldp = 0;
  Columns columns() const;
};
/// 3.2, Algorithm 5.2. Conditions (InvalidInput): eps < 1/2, delta < 1/100, n > 1000, and with the
/// corrected gamma SH1's eps0 <= 1/2.
RingHistogramBound ring_histogram(double n, const RingHistogramParams& p);

}  // namespace netdp::bounds
