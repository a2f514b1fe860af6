#pragma once
// Concentration bounds for contribution counts (docs/math.md §1.8, CB1-CB2; Appendix Y `nv_formula`).
#include <string>
#include <string_view>

namespace netdp::dp {

enum class NvFormula {
  proof,       // N_v = T/n + sqrt(3 (T/n) ln(1/delta_hat))  (the proof of [S3 Thm 7.1]; default)
  code_quirk,  // N_v = T/n + sqrt(1.5 T ln(1/delta_hat))    (the reference code's 3T/2 bug; reproduces
               // Fig. 7.1a)
};
NvFormula parse_nv_formula(std::string_view text);  // "proof" | "code_quirk" (or "code")
std::string to_string(NvFormula f);

/// CB1 (Chernoff): P(T_v >= N_v) <= delta_hat for T_v ~ Bin(T, 1/n). T, n may be non-integer (T = 100 n).
double chernoff_visit_bound(double steps, double n, double delta_hat, NvFormula formula = NvFormula::proof);
/// Whether the Chernoff parameter sqrt(3 n ln(1/delta_hat) / T) <= 1, i.e. T >= 3 n ln(1/delta_hat), which
/// the proof formula needs (the code quirk is not a Chernoff bound; the predicate still reports the proof's
/// condition).
bool chernoff_visit_bound_valid(double steps, double n, double delta_hat);

/// CB2: u's contributions adjacent to a visit of v, ~ Bin(N_u, 2/n), exceed
/// N_s = 2 N_u/n + sqrt((6 N_u/n) ln(1/delta_tilde)) with probability <= delta_tilde. Compose the extra loss
/// with C2 (k = N_s) or C1.
double spotted_contributions(double contributions, double n, double delta_tilde);

}  // namespace netdp::dp
