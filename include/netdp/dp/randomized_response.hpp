#pragma once
// K-ary randomized response (docs/math.md §1.3, items RR1-RR3). Natural logarithms.

namespace netdp::dp {

/// RR1: P(y = x) = e^eps / (K - 1 + e^eps) for the eps-LDP K-ary randomized response (K >= 2).
double krr_keep_probability(double epsilon, int categories);
/// RR1: P(y = y') = 1 / (K - 1 + e^eps) for each of the K - 1 other values.
double krr_other_probability(double epsilon, int categories);

/// RR2: RR_gamma keeps x with probability 1 - gamma, else outputs a uniform value of [L]; its LDP level is
/// eps0 = ln(1 + L (1 - gamma) / gamma). gamma in (0, 1]; gamma = 1 gives 0.
double rr_gamma_epsilon(double gamma, int categories);
/// RR2 inverse: gamma(eps0) = L / (e^eps0 + L - 1), in (0, 1] for eps0 >= 0.
double rr_gamma_of_epsilon(double epsilon, int categories);

/// RR3: mean squared error of the debiased frequency estimate, (K - 2 + e^eps) / (n (e^eps - 1)^2), eps > 0.
double krr_frequency_mse(double epsilon, int categories, double n);

}  // namespace netdp::dp
