#pragma once
// Amplification by subsampling (docs/math.md §1.5, items SS1-SS3). Natural logarithms; sigma is a noise
// multiplier.
#include <cstdint>
#include <string>
#include <string_view>

#include "netdp/dp/composition.hpp"

namespace netdp::dp {

/// SS1 (Balle-Barthe-Gaboardi 2018, tight form): m of n without replacement, q = m/n in [0, 1]:
/// (ln(1 + q (e^eps - 1)), q delta).
EpsDelta subsample_without_replacement(double epsilon, double delta, double q);

/// SS2: probability that a given record is drawn at least once in m draws with replacement from n,
/// 1 - (1 - 1/n)^m (computed as -expm1(m log1p(-1/n))).
double with_replacement_hit_probability(std::int64_t m, std::int64_t n);
/// SS2: eps_cycle = ln(1 + (1 - (1 - 1/n)^m)(e^eps_A - 1)).
double with_replacement_epsilon(double epsilon_a, std::int64_t m, std::int64_t n);

/// SS2 delta_cycle = sum_{k=1}^m C(m,k) (1/n)^k (1-1/n)^(m-k) delta_{A,k}(eps_A), with the group-k profile
/// delta_{A,k}:
enum class DeltaCycle {
  k_delta,         // delta_{A,k} <= k delta  =>  delta_cycle = (m/n) delta ([S2] App D)
  group_privacy,   // delta_{A,k}(eps) <= (e^eps - 1) delta_A(eps/k) / (e^(eps/k) - 1), delta_A from G3 ([S3]
                   // D.1.1)
  exact_gaussian,  // delta_{A,k} = G3 with theta_k = k theta (exact for Gaussian sums; recommended)
};
DeltaCycle parse_delta_cycle(std::string_view text);  // "k_delta" | "group_privacy" | "exact_gaussian"
std::string to_string(DeltaCycle d);

/// theta of the base mechanism A = a sum of m Gaussian contributions: Delta / (sigma_loc_abs sqrt(m)).
double aggregated_gaussian_theta(double sensitivity, double sigma_loc_abs, double m);

/// delta_cycle for a Gaussian base mechanism with theta = Delta/s (see aggregated_gaussian_theta) evaluated
/// at eps_A. `delta_a` is only read by k_delta (it is A's delta there); the Gaussian options use G3 with
/// theta. The binomial sum runs in log space over the bulk of Bin(m, 1/n) only, so m ~ 1e4 and beyond is
/// cheap.
double with_replacement_delta(DeltaCycle method, double epsilon_a, double theta, double delta_a,
                              std::int64_t m, std::int64_t n);

/// SS3 closed forms for the subsampled Gaussian mechanism with sampling rate q and noise multiplier sigma:
enum class SubsampledBound {
  thm_3_10,              // [S3 Thm 3.10]: q in (0, 1/5), sigma >= 4  =>  (alpha, 6 alpha q^2 / sigma^2)
  mironov_talwar_zhang,  // [S3 Lemma E.5] / MTZ 2019: q < 1/5, sigma >= 4, both alpha conditions => 2 alpha
                         // q^2/sigma^2
};
std::string to_string(SubsampledBound b);
/// Whether the bound's conditions hold at this order (never throws; false on NaN or out-of-range input).
bool subsampled_gaussian_rdp_valid(SubsampledBound bound, double alpha, double q, double sigma);
/// The RDP bound; InvalidInput naming the violated condition when subsampled_gaussian_rdp_valid is false.
double subsampled_gaussian_rdp(SubsampledBound bound, double alpha, double q, double sigma);

}  // namespace netdp::dp
