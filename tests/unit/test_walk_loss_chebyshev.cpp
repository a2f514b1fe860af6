// Chebyshev solver of the random-walk accountant (docs/walk_loss.md "Solvers"): against the dense eigensolver
// (the exact reference) and the series, on graphs with a small gap and with lambda_min near -1; the proven
// error bound against the observed error; results independent of the thread count and the tiles.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/accounting/walk_loss_chebyshev.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {
namespace {

struct Case {
  std::string name;
  Graph g;
  CsrMatrix w;
};

/// Even ring with W = 0.02 I + 0.49 A: lambda_k = 0.02 + 0.98 cos(2 pi k / n), so lambda_min = -0.96 (nearly
/// bipartite) and the gap 0.98 (1 - cos(2 pi / n)) is small.
Case nearly_bipartite_ring(int n) {
  Graph g = ring_graph(n);
  std::vector<Triplet> t;
  for (node_t u = 0; u < n; ++u) {
    t.push_back({u, u, 0.02});
    t.push_back({u, (u + 1) % n, 0.49});
    t.push_back({u, (u + n - 1) % n, 0.49});
  }
  CsrMatrix w = csr_from_triplets(n, t);
  return {"ring-0.02", std::move(g), std::move(w)};
}

std::vector<Case> cases() {
  std::vector<Case> c;
  auto add = [&](std::string name, Graph g, Weighting k) {
    CsrMatrix w = gossip_matrix(g, k);
    c.push_back({std::move(name), std::move(g), std::move(w)});
  };
  add("ring-13", ring_graph(13), Weighting::metropolis);
  add("hypercube-6", hypercube_graph(6), Weighting::metropolis);
  add("hypercube-6-bipartite", hypercube_graph(6), Weighting::hamilton_literal);  // lambda_min = -1
  add("er-300", erdos_renyi_graph(300, 1.2 * std::log(300.0) / 300, 3), Weighting::metropolis);
  add("rgg-200", random_geometric_graph(200, 0.16, 5), Weighting::metropolis);  // small gap
  c.push_back(nearly_bipartite_ring(60));
  return c;
}

WalkLossParams params(WalkLossMethod method, WalkLossSolver solver, int steps) {
  return {.steps = steps, .method = method, .device = {DeviceKind::cpu, 0}, .solver = solver};
}

double max_abs(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST(WalkLossChebyshev, RandomGeometricGraphHasASmallGapAndTheRingALambdaMinNearMinusOne) {
  auto all = cases();
  const SpectralSummary rgg = spectral_summary(all[4].w), ring = spectral_summary(all[5].w);
  EXPECT_LT(1 - rgg.lambda_2, 0.05);
  EXPECT_LT(ring.lambda_min, -0.95);
  EXPECT_LT(1 - ring.lambda_2, 0.01);
}

TEST(WalkLossChebyshev, MatchesTheEigensolverAndTheSeriesTo1e10) {
  for (const Case& c : cases())
    for (auto method : {WalkLossMethod::spectral, WalkLossMethod::finite})
      for (int steps : {50, 2000})
        for (auto sender : {SenderView::anonymous, SenderView::known}) {
          if (method == WalkLossMethod::spectral && steps == 50) continue;
          SCOPED_TRACE(c.name + " " + to_string(method) + " T = " + std::to_string(steps) + " " +
                       to_string(sender));
          auto p = params(method, WalkLossSolver::eigen, steps);
          p.sender = sender;
          const auto eigen = walk_loss_matrix(c.g, c.w, p);
          p.solver = WalkLossSolver::chebyshev;
          WalkLossRun run;
          const auto chebyshev = walk_loss_matrix(c.g, c.w, p, &run);
          EXPECT_EQ(run.solver, "chebyshev");
          EXPECT_GT(run.degree, 0);
          const double scale = max_abs(eigen);
          EXPECT_LE(max_diff(eigen, chebyshev), 1e-10 * scale);
          EXPECT_LE(max_diff(eigen, chebyshev), run.error_bound + 1e-13 * scale);
          if (method == WalkLossMethod::finite) {
            p.method = WalkLossMethod::series;
            EXPECT_LE(max_diff(walk_loss_matrix(c.g, c.w, p), chebyshev), 1e-10 * scale);
          }
        }
}

TEST(WalkLossChebyshev, ErrorBoundBoundsTheObservedErrorAtCoarseTolerances) {
  for (const Case& c : cases())
    for (double tolerance : {1e-2, 1e-4, 1e-7}) {
      SCOPED_TRACE(c.name + " tolerance " + std::to_string(tolerance));
      auto p = params(WalkLossMethod::spectral, WalkLossSolver::eigen, 1000);
      const auto eigen = walk_loss_matrix(c.g, c.w, p);
      p.solver = WalkLossSolver::chebyshev;
      p.tolerance = tolerance;
      WalkLossRun run;
      const auto chebyshev = walk_loss_matrix(c.g, c.w, p, &run);
      const double observed = max_diff(eigen, chebyshev), scale = double(p.steps) / c.g.n * 2.0;
      EXPECT_LE(run.error_bound, tolerance * scale * (1 + 1e-12));  // the degree meets the tolerance
      EXPECT_LE(observed, run.error_bound);
      EXPECT_GT(observed, 0.0);
    }
}

/// The bound holds for the scalar expansion at 2001 points of [lo, hi] (the sup the bound is about).
TEST(WalkLossChebyshev, ScalarExpansionStaysWithinTheBound) {
  for (int method : {0, 1})
    for (double tolerance : {1e-3, 1e-9}) {
      const double lo = -0.97, hi = 0.985;
      const int steps = 300;
      const WalkChebyshevPlan plan = plan_walk_chebyshev(method, steps, lo, hi, tolerance);
      ASSERT_EQ(plan.coefficients.size(), std::size_t(plan.degree) + 1);
      EXPECT_LE(plan.error_bound, tolerance);
      double worst = 0;
      for (int i = 0; i <= 2000; ++i) {
        const double lambda = lo + (hi - lo) * i / 2000.0, x = (2 * lambda - hi - lo) / (hi - lo);
        double p = plan.coefficients[0], previous = 1, current = x;  // T_0, T_1
        for (int k = 1; k <= plan.degree; ++k) {
          p += plan.coefficients[k] * current;
          const double next = 2 * x * current - previous;
          previous = current;
          current = next;
        }
        double f = 0;
        if (method == 0) {
          f = -std::log1p(-lambda);
        } else {
          double power = 1;
          for (int t = 1; t <= steps; ++t) f += (power *= lambda) / t;
        }
        worst = std::max(worst, std::abs(f - p));
      }
      EXPECT_LE(worst, plan.error_bound + 1e-13) << "method " << method << " tolerance " << tolerance;
    }
}

/// E3's coefficients are the Chebyshev series of -ln(1 - lambda) on [lo, hi]: checked against the
/// coefficients of a degree-399 interpolant computed here by the discrete cosine sums (aliasing error
/// rho^-800, nil), and the degree is the least whose tail bound meets the tolerance.
TEST(WalkLossChebyshev, SpectralCoefficientsAreTheChebyshevSeriesOfTheLog) {
  const double pi = 3.14159265358979323846, lo = -0.3, hi = 0.937, tolerance = 1e-12;
  const WalkChebyshevPlan plan = plan_walk_chebyshev(0, 1, lo, hi, tolerance);
  const int points = 400;
  for (int k = 0; k <= plan.degree; ++k) {
    double sum = 0;
    for (int j = 0; j < points; ++j) {
      const double theta = pi * (j + 0.5) / points;
      sum += -std::log1p(-(0.5 * (hi + lo) + 0.5 * (hi - lo) * std::cos(theta))) * std::cos(k * theta);
    }
    const double expected = (k == 0 ? 1.0 : 2.0) * sum / points;
    EXPECT_NEAR(plan.coefficients[k], expected, 1e-14 * std::max(1.0, std::abs(expected))) << "k = " << k;
  }
  EXPECT_LE(plan.error_bound, tolerance);
  EXPECT_GT(walk_chebyshev_error_bound(0, 1, lo, hi, plan.degree - 1), tolerance);
  EXPECT_EQ(plan.degree,
            56);  // the tail bound 2 rho^-(K+1)/((K+1)(1 - 1/rho)) with rho = 1.5646, computed by hand
}

TEST(WalkLossChebyshev, FiniteHorizonAtDegreeTIsExact) {
  const WalkChebyshevPlan plan = plan_walk_chebyshev(1, 20, -0.999, 0.999, 1e-14);
  EXPECT_EQ(plan.degree, 20);
  EXPECT_EQ(plan.error_bound, 0.0);
}

TEST(WalkLossChebyshev, IdenticalForOneAndTwoThreadsAndAnyTiles) {
  const Case c = nearly_bipartite_ring(60);
  for (auto sender : {SenderView::anonymous, SenderView::known}) {
    auto p = params(WalkLossMethod::spectral, WalkLossSolver::chebyshev, 500);
    p.sender = sender;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto one = walk_loss_matrix(c.g, c.w, p);
    omp_set_num_threads(2);
    const auto two = walk_loss_matrix(c.g, c.w, p);
    p.tile_sources = 7;
    const auto tiled = walk_loss_matrix(c.g, c.w, p);
    omp_set_num_threads(threads);
    EXPECT_EQ(one, two);
    EXPECT_EQ(one, tiled);
    for (node_t u : {0, 13, 59}) {
      p.source = u;
      const auto row = walk_loss_matrix(c.g, c.w, p);
      EXPECT_TRUE(std::equal(row.begin(), row.end(), one.begin() + std::ptrdiff_t(u) * c.g.n));
    }
  }
}

TEST(WalkLossChebyshev, AutoSaysWhichAndAgreesWithEigen) {
  const Graph small = hypercube_graph(6);
  const CsrMatrix w_small = gossip_matrix(small, Weighting::metropolis);
  WalkLossRun run;
  walk_loss_matrix(small, w_small, params(WalkLossMethod::spectral, WalkLossSolver::automatic, 100), &run);
  EXPECT_EQ(run.solver, "eigen");
  EXPECT_NE(run.solver_rule.find("auto"), std::string::npos);

  // ER c = 1.2, n = 1600: the expansion (degree about 50) costs about 60% of dsyevd by the cost model.
  const Graph g = erdos_renyi_graph(1600, 1.2 * std::log(1600.0) / 1600, 1);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  auto p = params(WalkLossMethod::spectral, WalkLossSolver::automatic, 2000);
  const auto automatic = walk_loss_matrix(g, w, p, &run);
  EXPECT_EQ(run.solver, "chebyshev") << run.solver_rule;
  EXPECT_NE(run.solver_rule.find("auto: estimated"), std::string::npos);
  p.solver = WalkLossSolver::eigen;
  const auto eigen = walk_loss_matrix(g, w, p);
  EXPECT_LE(max_diff(automatic, eigen), 1e-10 * max_abs(eigen));
}

TEST(WalkLossChebyshev, RejectsBadSolverAndTolerance) {
  const Graph g = ring_graph(8);
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  for (double tolerance : {0.0, -1.0, 1.0, std::nan("")}) {
    auto p = params(WalkLossMethod::spectral, WalkLossSolver::chebyshev, 10);
    p.tolerance = tolerance;
    try {
      walk_loss_matrix(g, w, p);
      ADD_FAILURE() << "tolerance " << tolerance << " accepted";
    } catch (const InvalidParameter& e) {
      EXPECT_EQ(e.parameter(), "tolerance");
    }
  }
  EXPECT_THROW(parse_walk_loss_solver("lanczos"), InvalidParameter);
  EXPECT_EQ(parse_walk_loss_solver("auto"), WalkLossSolver::automatic);
}

}  // namespace
}  // namespace netdp
