// Closed forms next to the Monte Carlo statistics (docs/walk_sim.md "Statistics").
#include <cmath>

#include "netdp/simulation/walk_sim_theory.hpp"

namespace netdp {

namespace {
// Bin(trials, p)(k) in log space (0 outside 0..trials).
double binomial_pmf(std::int64_t trials, double p, std::int64_t k) {
  if (k < 0 || k > trials) return 0.0;
  const double t = double(trials), x = double(k);
  return std::exp(std::lgamma(t + 1) - std::lgamma(x + 1) - std::lgamma(t - x + 1) + x * std::log(p) +
                  (t - x) * std::log1p(-p));
}
// (1/n) (1 - 1/n)^(m-1): the geometric law of the gap to the next visit.
double geometric_pmf(node_t n, std::int64_t m) {
  return std::exp(double(m - 1) * std::log1p(-1.0 / n)) / n;
}
}  // namespace

double complete_expected_returns(node_t n, std::int64_t steps, std::int64_t m) {
  if (m < 1 || m >= steps) return 0.0;
  return double(steps - m) * geometric_pmf(n, m);
}

double complete_expected_hits(node_t n, std::int64_t steps, std::int64_t h) {
  if (h < 1 || h >= steps) return 0.0;
  return double(n - 1) * geometric_pmf(n, h);
}

double complete_expected_visit_counts(node_t n, std::int64_t steps, std::int64_t k) {
  const double p = 1.0 / n;
  return double(n - 1) * binomial_pmf(steps - 1, p, k) + binomial_pmf(steps - 1, p, k - 1);
}

std::int64_t summation_noises(const WalkModel& m, std::int64_t steps) {
  if (m.kind != WalkKind::directed_ring) return steps;
  return (steps - 1) / (m.n - 1) + 1;
}

double summation_theory_std(const WalkModel& m, std::int64_t steps, double sigma_loc) {
  if (m.kind != WalkKind::directed_ring) return std::sqrt(double(steps)) * sigma_loc;
  return std::sqrt(double(steps / (m.n - 1))) * sigma_loc;
}

}  // namespace netdp
