#pragma once
// Gaussian mechanism and Gaussian DP (docs/math.md §1.2, items G1-G6). Natural logarithms throughout.
// Conventions: `noise_multiplier` sigma means noise N(0, sigma^2 Delta^2); `sigma_abs` is the absolute std s
// = sigma Delta; theta = Delta / s = 1 / sigma is the mean shift of the normalised pair N(0, 1) vs N(theta,
// 1).

namespace netdp::dp {

/// Phi(x), the standard normal CDF, via erfc (accurate in the lower tail, where 1 + erf would cancel).
double normal_cdf(double x);
/// ln Phi(x), finite for every finite x (asymptotic series below x = -35, where erfc underflows).
double log_normal_cdf(double x);

/// G1: RDP of the Gaussian mechanism, alpha / (2 sigma^2), for every order alpha > 1 (tight).
double gaussian_rdp(double alpha, double noise_multiplier);

/// G2: classic calibration s = Delta sqrt(2 ln(1.25/delta)) / epsilon (absolute std). The proof needs epsilon
/// < 1; the sources use it beyond, so no range check on epsilon other than > 0.
double gaussian_sigma_classic(double epsilon, double delta, double sensitivity = 1.0);

/// G3 / G4: exact privacy profile of the Gaussian mechanism with theta = Delta/s, equivalently of a mu-GDP
/// mechanism with mu = theta: delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), from
/// gdp_log_delta (0 where that underflows). For a group of k records (sensitivity k Delta) pass mu = k theta.
double gdp_delta(double mu, double epsilon);

/// ln delta(eps) of G3 / G4, finite for every finite eps >= 0 and mu > 0 (eps = +inf gives -inf): the
/// profile is phi(x) times an integral with a positive integrand, x = eps/mu - mu/2, so neither cancellation
/// nor underflow (docs/math.md §1.2, docs/dp_toolbox.md "Numerics of G3"). Relative accuracy of delta about
/// 1e-13 for mu in [1e-3, 50] and delta down to 1e-300 (tests/data/gdp_reference.csv).
double gdp_log_delta(double mu, double epsilon);

/// G4 inverse as a root bracket: `upper` is the smallest epsilon >= 0 found with gdp_log_delta(mu, epsilon)
/// <= log_delta, `lower` the largest found above it (within a few ulps of `upper`; lower = upper = 0 when
/// delta >= delta(0) = 2 Phi(mu/2) - 1, +inf both when log_delta = -inf).
struct GdpEpsilon {
  double lower = 0;
  double upper = 0;
};
GdpEpsilon gdp_epsilon_bracket(double mu, double log_delta);

/// G4 inverse: gdp_epsilon_bracket(mu, ln delta).upper, for delta in (0, 1); never negative, non-increasing
/// in delta. gdp_epsilon_of_log_delta takes ln delta (delta below the smallest double allowed).
double gdp_epsilon(double mu, double delta);
double gdp_epsilon_of_log_delta(double mu, double log_delta);

/// Composition of Gaussian views (G4): mu-GDP and nu-GDP compose to sqrt(mu^2 + nu^2)-GDP exactly (mu^2
/// adds); +inf (no privacy) absorbs.
double gdp_compose(double mu, double nu);

/// G5: a mu-GDP mechanism is (alpha, alpha mu^2 / 2)-RDP.
double gdp_rdp(double alpha, double mu);

/// G6: an (epsilon, delta) Gaussian mechanism whose output is summed with m - 1 other independent Gaussian
/// contributions is (epsilon / sqrt(m), delta)-DP (noise std grows by sqrt(m), sensitivity unchanged).
double aggregated_gaussian_epsilon(double epsilon, double m);

/// docs/math.md §10, [S4] census example: the l_inf error level sigma_abs sqrt(ln(K/beta)) exactly as the
/// slide prints it (with sigma_abs from G2 this is sqrt(2 ln(1.25/delta) ln(K/beta)) Delta/epsilon).
/// Reproduces E27 only: the union bound over K Gaussian coordinates needs the larger
/// gaussian_linf_error_union.
double gaussian_linf_error_s4(double sigma_abs, double coordinates, double beta);
/// Union bound: P(max_i |Z_i| >= t) <= beta for K coordinates of N(0, s^2) at t = s sqrt(2 ln(2K/beta)).
double gaussian_linf_error_union(double sigma_abs, double coordinates, double beta);

}  // namespace netdp::dp
