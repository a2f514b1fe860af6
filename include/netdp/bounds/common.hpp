#pragma once
// Pieces shared by the closed-form and numerical bounds of docs/math.md §3 (ring) and 4 (complete graph):
// composition and contribution-count switches (Appendix Y `composition`, `nv_formula`), collusion (4.5),
// spotted contributions (4.4), the maximum over cycle lengths, and grids of n.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netdp/dp/composition.hpp"
#include "netdp/dp/concentration.hpp"

namespace netdp::bounds {

/// One reported quantity per column, in output order (bound.csv columns; booleans are 0/1).
using Columns = std::vector<std::pair<std::string, double>>;

/// Which theorem composes k (eps, delta)-DP mechanisms (docs/math.md §1.4):
enum class Composition {
  optimal_min,  // C3: min(C2, k eps) for k < 1e5 (the reference code's optiCompo; reproduces Fig. 7.1a)
  advanced,     // C2 (Dwork-Rothblum-Vadhan)
  simple,       // C1
};
Composition parse_composition(std::string_view text);  // "optimal_min" | "advanced" | "simple" ('-' ok)
std::string to_string(Composition c);
/// k-fold composition (k real >= 0) with slack delta' in (0, 1); C1 ignores delta'.
dp::EpsDelta compose(Composition c, double epsilon, double delta, double k, double delta_prime);

/// How many times one node contributes (or is visited) in T uniform steps over n nodes:
enum class Contributions {
  chernoff,  // CB1 with probability 1 - delta_hat (random number of contributions)
  fixed,     // exactly T/n (the dashed curves of Fig. 7.1a); costs no delta_hat
};
Contributions parse_contributions(std::string_view text);  // "chernoff" | "fixed"
std::string to_string(Contributions c);

struct ContributionOptions {
  Contributions kind = Contributions::chernoff;
  dp::NvFormula formula = dp::NvFormula::proof;  // Appendix Y `nv_formula` (proof | code_quirk)
  double delta_hat = 1e-7;
};
/// N_v (= N_u): T/n when fixed, CB1 otherwise. Non-integer T and n are allowed (T = 100 n on a log grid).
double contribution_count(double steps, double n, const ContributionOptions& o);
/// The failure probability the count costs: delta_hat for chernoff, 0 for fixed.
double contribution_delta(const ContributionOptions& o);
/// Whether the count is a proven bound: fixed, or CB1's condition T >= 3 n ln(1/delta_hat). The sources
/// use the formula outside it (e.g. Thm 7.2's T = 10 n, delta_hat = 1e-6), so this is reported, not enforced.
bool contribution_count_proven(double steps, double n, const ContributionOptions& o);

/// 4.5: c colluders on the complete graph act as one node of visit probability c/n, so every guarantee is
/// that of n/c non-colluding users. InvalidInput unless 1 <= c < n (the victim is not a colluder).
double effective_n(double n, double colluders);

/// 4.4: contributions of u spotted by v (adjacent in the walk) get no amplification. CB2 bounds their
/// number by N_s with probability 1 - delta_tilde; they cost `composition` of the local (eps, delta) level
/// over N_s (docs/math.md §12 item 35: C2 with k = N_s, not the printed sqrt form). `delta` includes
/// delta_tilde.
struct SpottedLoss {
  double count = 0;  // N_s
  double epsilon = 0;
  double delta = 0;
};
SpottedLoss spotted_loss(double contributions, double n, double epsilon_local, double delta_local,
                         double delta_tilde, double delta_prime, Composition composition);

/// max_{m = 1..m_max} f(m) for a cycle loss f. `upper(lo, hi)` must bound f on [lo, hi]; for
/// f(m) = F(p(m), e(m)) with F increasing in both, p non-decreasing and e non-increasing in m, take
/// F(p(hi), e(lo)). Exhaustive up to `exhaustive_limit` values, else best-first interval splitting, which
/// is exact up to a relative 1e-13 (docs/math.md §4.1.1 step 3, `cycle_bound = exact_max_m`).
struct CycleMaximum {
  double value = 0;
  std::int64_t m = 1;  // the maximising cycle length
};
CycleMaximum maximize_over_cycle_lengths(std::int64_t m_max, const std::function<double(std::int64_t)>& f,
                                         const std::function<double(std::int64_t, std::int64_t)>& upper,
                                         std::int64_t exhaustive_limit = 1 << 16);

/// numpy.logspace(start, stop, num): 10^(start + i (stop - start)/(num - 1)), the last one exactly
/// 10^stop.
std::vector<double> logspace(double start, double stop, int num);

/// What happens to non-integer n of a grid (the reference code evaluates its closed forms at the raw
/// logspace values; bounds that need an integer n say so and ask for a rounding):
enum class NRounding { none, nearest, floor, ceil };
NRounding parse_n_rounding(std::string_view text);  // "none" | "nearest" | "floor" | "ceil"
std::string to_string(NRounding r);
/// Rounds, keeps the order, drops repeats (rounding merges small logspace values), checks n >= 1.
std::vector<double> round_n_grid(const std::vector<double>& n, NRounding rounding);

/// InvalidInput "<what> needs an integer n (got ...); use n-round nearest" unless n is an integer.
std::int64_t require_integer_n(double n, const char* what);

}  // namespace netdp::bounds
