#pragma once
// Amplification by iteration and weak convexity of the Renyi divergence (docs/math.md §1.7, PI2 and PI4;
// Appendix Y `weak_convexity_condition`). sigma is a noise multiplier (noise std sigma Delta).
#include <string>
#include <string_view>
#include <vector>

namespace netdp::dp {

/// PI2: a perturbation of size Delta followed by i noisy non-expansive steps (i >= 1 in total) leaves
/// beta(i) = alpha / (2 sigma^2 i) (= alpha Delta^2 / (2 s^2 i) with s = sigma Delta).
double iteration_rdp(double alpha, double noise_multiplier, double steps);

/// PI4 admissibility: every component divergence <= c / (alpha - 1), c in (0, 1].
bool weak_convexity_admissible(double max_divergence, double alpha, double c = 1.0);
/// PI4: D_alpha(mixture) <= (1 + c) E_rho[D_alpha(mu_i || nu_i)] for a mixing distribution rho (weights >= 0,
/// normalised here). InvalidInput when the largest divergence with positive weight exceeds c / (alpha - 1).
double weak_convexity_bound(const std::vector<double>& divergences, const std::vector<double>& weights,
                            double alpha, double c = 1.0);

/// Which sufficient condition guarantees max_i beta(i) = beta(1) = alpha/(2 sigma^2) <= 1/(alpha - 1):
enum class WeakConvexityCondition {
  stated,  // sigma^2 >= 2 alpha (alpha - 1)  ([S3 Thm 7.7], 4x conservative; default)
  exact,   // sigma^2 >= alpha (alpha - 1) / 2 (what beta(1) needs)
};
WeakConvexityCondition parse_weak_convexity_condition(std::string_view text);  // "stated" | "exact"
std::string to_string(WeakConvexityCondition c);
bool weak_convexity_condition_holds(double alpha, double noise_multiplier,
                                    WeakConvexityCondition condition = WeakConvexityCondition::stated);
/// The largest order the condition allows: stated (1 + sqrt(1 + 2 sigma^2))/2, exact (1 + sqrt(1 + 8
/// sigma^2))/2. With sigma = sigma_abs / L, `stated` is [S3 Prop D.11]'s alpha_max(sigma_abs) = (1 + sqrt(1 +
/// 2 sigma_abs^2/L^2))/2.
double alpha_max(double noise_multiplier, WeakConvexityCondition condition = WeakConvexityCondition::stated);

}  // namespace netdp::dp
