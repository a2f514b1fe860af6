#pragma once
// Composition theorems (docs/math.md §1.4, items C1-C5). Natural logarithms; k may be non-integer (it often comes
// from a Chernoff bound, CB1). Base deltas may be 0 (pure DP); slack deltas delta' must lie in (0, 1).
#include <vector>

namespace netdp::dp {

struct EpsDelta {
  double epsilon = 0;
  double delta = 0;
};

/// C1: k-fold composition of (eps, delta)-DP is (k eps, k delta)-DP (delta capped at 1).
EpsDelta simple_composition(double epsilon, double delta, double k);

/// C2 (Dwork-Rothblum-Vadhan): (sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta').
EpsDelta advanced_composition(double epsilon, double delta, double k, double delta_prime);

/// C3 (the reference code's `optiCompo`): min(C2, k eps) when k < 1e5, else C2. The delta is C2's
/// k delta + delta' in both branches (valid for either, so the result does not jump when the branch changes).
EpsDelta optimal_composition(double epsilon, double delta, double k, double delta_prime);

/// Sufficient statistics of a list (eps_1..eps_k) for C4: O(1) memory per pair when streaming cycles.
struct HeterogeneousSums {
  HeterogeneousSums() = default;  // not an aggregate: a braced list of epsilons means the vector overload
  double count = 0;
  double sum = 0;          // sum eps_i
  double sum_squares = 0;  // S2 = sum eps_i^2
  double sum_first = 0;    // sum (e^eps_i - 1) eps_i / (e^eps_i + 1) = sum eps_i tanh(eps_i / 2)
  void add(double epsilon);
};

/// C4 (Kairouz et al., heterogeneous, as in the reference code `kairouzCompo`): with delta_new = k delta,
/// second = sqrt(2 S2 ln(1/delta_new)) if e + sqrt(S2)/delta_new > 1/delta_new, else sqrt(2 S2 ln(e +
/// sqrt(S2)/delta_new)); epsilon = min(first + second, sum eps_i). The returned delta is Kairouz's total 1 -
/// (1 - delta)^k (1 - delta_new) (about 2 k delta). An empty list gives (0, 0). k delta >= 1 is InvalidInput
/// (no guarantee left).
EpsDelta heterogeneous_composition(const std::vector<double>& epsilons, double delta);
EpsDelta heterogeneous_composition(const HeterogeneousSums& sums, double delta);

/// An RDP curve sampled on a grid of orders: epsilons[i] bounds D_alpha at alpha = orders[i]; +inf where no
/// bound holds at that order (e.g. a closed form outside its validity conditions).
struct RdpCurve {
  std::vector<double> orders;
  std::vector<double> epsilons;
};

/// C5: RDP adds up at fixed order (adaptively). Both curves must share the same orders.
RdpCurve compose_rdp(const RdpCurve& a, const RdpCurve& b);
/// C5 for k-fold self-composition: k eps(alpha) (k >= 0; k = 0 gives the zero curve).
RdpCurve self_compose_rdp(const RdpCurve& a, double k);

}  // namespace netdp::dp
