// The synthetic learning data's separation (docs/walk_sgd.md "Data"): with separation S, y = +1 with
// probability sigmoid(S x^T theta / |theta|), so the labels agree with the Bayes classifier sign(x^T theta)
// at the rate E[sigmoid(S |Z|)], Z ~ N(0, 1), computed here by quadrature. theta is recovered independently
// from least-squares data of the same seed (the generator draws theta first, whatever the objective).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {
namespace {

/// theta from y = x^T theta + 0.1 noise by the normal equations (Gauss-Jordan on d x d).
std::vector<double> least_squares_theta(const LocalData& d) {
  const int p = d.dim;
  std::vector<double> a(static_cast<std::size_t>(p * (p + 1)), 0.0);  // [X^T X | X^T y]
  for (std::size_t i = 0; i < d.labels.size(); ++i) {
    const double* x = d.features.data() + i * p;
    for (int r = 0; r < p; ++r) {
      for (int c = 0; c < p; ++c) a[r * (p + 1) + c] += x[r] * x[c];
      a[r * (p + 1) + p] += x[r] * d.labels[i];
    }
  }
  for (int k = 0; k < p; ++k)
    for (int r = 0; r < p; ++r) {
      if (r == k) continue;
      const double f = a[r * (p + 1) + k] / a[k * (p + 1) + k];
      for (int c = k; c <= p; ++c) a[r * (p + 1) + c] -= f * a[k * (p + 1) + c];
    }
  std::vector<double> theta(p);
  for (int k = 0; k < p; ++k) theta[k] = a[k * (p + 1) + p] / a[k * (p + 1) + k];
  return theta;
}

/// E[sigmoid(S |Z|)] by the midpoint rule on [0, 12] (the normal tail beyond is below 1e-30).
double bayes_agreement(double S) {
  const int steps = 200000;
  const double h = 12.0 / steps;
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const double z = (i + 0.5) * h;
    sum += 2 * std::exp(-z * z / 2) / std::sqrt(2 * std::numbers::pi) / (1 + std::exp(-S * z)) * h;
  }
  return sum;
}

TEST(SyntheticData, SeparationSetsTheBayesAgreement) {
  const int dim = 8, rows = 200000;
  const std::uint64_t seed = 4;
  const std::vector<double> theta =
      least_squares_theta(synthetic_data(Objective::least_squares, 1, dim, rows, seed));
  for (double S : {0.0, 2.0, 10.0, 40.0}) {
    const LocalData d = synthetic_data(Objective::logistic, 1, dim, rows, seed, S);
    double norm = 0;
    for (double t : theta) norm += t * t;
    int agree = 0;
    for (int i = 0; i < rows; ++i) {
      double margin = 0;
      for (int k = 0; k < dim; ++k) margin += d.features[static_cast<std::size_t>(i) * dim + k] * theta[k];
      agree += (margin > 0) == (d.labels[i] > 0);
    }
    // S = 0 is the legacy generator: sigmoid(x^T theta), i.e. S = |theta|.
    const double expected = bayes_agreement(S > 0 ? S : std::sqrt(norm));
    const double rate = double(agree) / rows;
    EXPECT_NEAR(rate, expected, 5 * std::sqrt(expected * (1 - expected) / rows) + 1e-3) << "S = " << S;
  }
  EXPECT_GT(bayes_agreement(40.0), 0.98);  // the scale is what separates: 0.98+ at S = 40
  EXPECT_LT(bayes_agreement(2.0), 0.80);
}

TEST(SyntheticData, SeparationKeepsFeaturesAndRefusesBadValues) {
  const LocalData a = synthetic_data(Objective::logistic, 3, 4, 50, 9);
  const LocalData b = synthetic_data(Objective::logistic, 3, 4, 50, 9, 10.0);
  EXPECT_EQ(a.features, b.features);  // only the labels' probabilities change
  EXPECT_NE(a.labels, b.labels);
  EXPECT_THROW(synthetic_data(Objective::logistic, 3, 4, 50, 9, -1.0), InvalidParameter);
  EXPECT_THROW(synthetic_data(Objective::logistic, 3, 4, 50, 9, INFINITY), InvalidParameter);
}

}  // namespace
}  // namespace netdp
