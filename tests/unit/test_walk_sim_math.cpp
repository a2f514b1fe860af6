// The per-element maths the CUDA walk accounting shares with the CPU (kernels/common/walk_sim_math.hpp,
// dp_math.hpp), run on the host: the Gaussian cycle terms the device uses beyond its table, C4 from sums, and
// the per-observer pair aggregate, against formulas written out here and the CPU's own LossStats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/dp_math.hpp"
#include "common/walk_sim_math.hpp"
#include "netdp/dp/composition.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace netdp {
namespace {

using kernels::walk::CycleTerms;

// docs/math.md §4.1.3 with G6 and SS2, written with pow rather than the library's expm1 / log1p, in long double
// so that 1 - (1 - 1/n)^m keeps its digits for n = 2e6.
double hand_zero_epsilon(double eps0, std::int64_t m, std::int64_t n) {
  const long double mass = eps0 / std::sqrt((long double)m);
  const long double q = 1 - std::pow(1 - 1.0L / (long double)n, (long double)m);
  return static_cast<double>(std::log(1 + q * (std::exp(mass) - 1)));
}

void expect_terms(const kernels::walk::EpsTerms& t, double eps, const char* what) {
  EXPECT_NEAR(t.eps, eps, 1e-12 * eps) << what;
  EXPECT_NEAR(t.square, eps * eps, 3e-12 * eps * eps) << what;
  const double first = std::expm1(eps) * eps / (std::exp(eps) + 1);  // (e^eps - 1) eps / (e^eps + 1)
  EXPECT_NEAR(t.first, first, 3e-12 * first) << what;
}

TEST(WalkSimMath, GaussianCycleTermsMatchTheHandFormula) {
  for (std::int64_t n : {std::int64_t{2}, std::int64_t{100}, std::int64_t{2'000'000}})
    for (std::int64_t m : {std::int64_t{1}, std::int64_t{7}, std::int64_t{1000}, (std::int64_t{1} << 20) + 5,
                           std::int64_t{50'000'000}})
      for (double eps0 : {0.1, 1.0}) {
        const CycleTerms t = kernels::walk::gaussian_cycle_terms(eps0, m, n);
        const double mass = eps0 / std::sqrt(double(m));
        expect_terms(t.zero, hand_zero_epsilon(eps0, m, n), "c = 0");
        expect_terms(t.one, mass, "c = 1");
        expect_terms(t.two, 2 * mass, "c = 2");
        EXPECT_EQ(t.one.eps, mass);
        EXPECT_LE(t.zero.eps, t.one.eps);  // subsampling never hurts (SS2)
      }
  // n = 1: every draw hits the node, so c = 0 is the full mass.
  const CycleTerms t = kernels::walk::gaussian_cycle_terms(0.5, 9, 1);
  EXPECT_DOUBLE_EQ(t.zero.eps, 0.5 / 3);
}

TEST(WalkSimMath, HeterogeneousEpsilonIsKairouzFromSums) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> eps(0.0, 0.3);
  for (int size : {1, 3, 40, 5000}) {
    std::vector<double> list(static_cast<std::size_t>(size));
    for (double& e : list) e = eps(rng);
    double first = 0, squares = 0, sum = 0;
    for (double e : list) {
      first += (std::exp(e) - 1) * e / (std::exp(e) + 1);
      squares += e * e;
      sum += e;
    }
    const double delta = 1e-7, k = double(size), d = k * delta;
    const double second = std::exp(1.0) + std::sqrt(squares) / d > 1 / d
                              ? std::sqrt(2 * squares * std::log(1 / d))
                              : std::sqrt(2 * squares * std::log(std::exp(1.0) + std::sqrt(squares) / d));
    const double expected = std::min(first + second, sum);
    const double got = kernels::dp_math::heterogeneous_epsilon(k, sum, squares, first, delta);
    EXPECT_NEAR(got, expected, 1e-12 * expected) << size;
    EXPECT_NEAR(dp::heterogeneous_composition(list, delta).epsilon, expected, 1e-12 * expected) << size;
  }
  EXPECT_EQ(kernels::dp_math::heterogeneous_epsilon(0, 0, 0, 0, 1e-7), 0.0);  // an empty list
}

TEST(WalkSimMath, PairLossesAreLossStatsOfWeightOne) {
  // The CUDA observer kernel adds a pair's losses with PairLosses; the host folds them as a LossStats: both
  // must hold the very numbers LossStats::add would (compensated sum included).
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> loss(-3.0, 2.0);
  kernels::walk::PairLosses pairs;
  LossStats stats;
  for (int i = 0; i < 10000; ++i) {
    const double x = loss(rng);
    pairs.add(x);
    stats.add(x, 1);
  }
  EXPECT_EQ(pairs.count, stats.weight);
  EXPECT_EQ(pairs.sum, stats.sum);
  EXPECT_EQ(pairs.compensation, stats.compensation);
  EXPECT_EQ(pairs.min, stats.min);
  EXPECT_EQ(pairs.max, stats.max);
}

}  // namespace
}  // namespace netdp
