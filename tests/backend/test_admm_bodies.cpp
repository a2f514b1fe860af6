// The single-source bodies of private consensus ADMM (kernels/common/admm_bodies.hpp, docs/admm.md) on the
// host: the Cholesky factor and solve on a matrix factored by hand, the closed-form prox against its linear
// system, and the noisy block update of Algorithm 8.1 (docs/math.md §8.1-§8.2) written out again.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/admm_bodies.hpp"

namespace netdp::kernels::admm {
namespace {

TEST(AdmmBodies, CholeskyOfAMatrixFactoredByHand) {
  // A = [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]]; A x = (10, 13) has x = (1.5, 2).
  std::vector<double> a{4, 2, 2, 5};
  ASSERT_TRUE(cholesky_factor(a.data(), 2));
  EXPECT_DOUBLE_EQ(a[0], 2.0);
  EXPECT_DOUBLE_EQ(a[2], 1.0);
  EXPECT_DOUBLE_EQ(a[3], 2.0);
  std::vector<double> b{10, 13};  // A (1.5, 2)
  cholesky_solve(a.data(), b.data(), 2);
  EXPECT_DOUBLE_EQ(b[0], 1.5);
  EXPECT_DOUBLE_EQ(b[1], 2.0);
  std::vector<double> indefinite{1, 2, 2, 1};
  EXPECT_FALSE(cholesky_factor(indefinite.data(), 2));
}

TEST(AdmmBodies, ClosedFormProxSolvesItsSystem) {
  // Least squares, two examples x = (1, 0), (1, 1), y = (1, -1), c = 2, mu = 1/2:
  // H = [[1, 1/2], [1/2, 1/2]], b = (0, -1/2); (c (H + mu I) + I) x = c b + v.
  const std::vector<double> features{1, 0, 1, 1}, labels{1, -1};
  LocalView d;
  d.loss = convex::Loss::least_squares;
  d.dim = 2;
  d.features = features.data();
  d.labels = labels.data();
  d.count = 2;
  d.l2 = 0.5;
  std::vector<double> a(4), cb(2), v{0.3, -0.4}, x(2);
  prox_system(d, 2, a.data(), cb.data());
  EXPECT_DOUBLE_EQ(a[0], 4.0);  // 2 (1 + 1/2) + 1
  EXPECT_DOUBLE_EQ(a[1], 1.0);
  EXPECT_DOUBLE_EQ(a[3], 3.0);  // 2 (1/2 + 1/2) + 1
  EXPECT_DOUBLE_EQ(cb[0], 0.0);
  EXPECT_DOUBLE_EQ(cb[1], -1.0);
  ASSERT_TRUE(cholesky_factor(a.data(), 2));
  prox_closed_form(a.data(), cb.data(), v.data(), 2, x.data());
  // [[4, 1], [1, 3]] x = (0.3, -1.4): x = (0.3 * 3 + 1.4, -1.4 * 4 - 0.3) / 11.
  EXPECT_NEAR(x[0], 2.3 / 11, 1e-15);
  EXPECT_NEAR(x[1], -5.9 / 11, 1e-15);
}

TEST(AdmmBodies, BlockUpdateIsTheRelaxedReflection) {
  // u + 2 lambda (x - z + sigma eta / 2) with lambda = 0.25, sigma = 2.
  std::vector<double> u{1, -1}, x{0.5, 0.5}, z{0, 1}, eta{1, -3};
  block_update(u.data(), x.data(), z.data(), eta.data(), 2, 0.25, 2);
  EXPECT_DOUBLE_EQ(u[0], 1 + 0.5 * (0.5 + 1));
  EXPECT_DOUBLE_EQ(u[1], -1 + 0.5 * (-0.5 - 3));
}

}  // namespace
}  // namespace netdp::kernels::admm
