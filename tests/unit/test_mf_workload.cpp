// MF workloads, participation and sensitivity (docs/math.md §9.1-9.3, §9.6) against hand calculations and a
// dense construction written here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "netdp/core/graph_spec.hpp"
#include "netdp/mf/mf_workload.hpp"
#include "support/test_support.hpp"

namespace netdp::mf {
namespace {

using testing::expect_invalid;

TEST(MfWorkload, ParticipationSchemes) {
  const Participation every = parse_participation("every", 6);
  EXPECT_EQ(every.batches, 1);
  EXPECT_EQ(every.epochs, 6);
  const Participation single = parse_participation("single", 6);
  EXPECT_EQ(single.batches, 6);
  EXPECT_EQ(single.epochs, 1);
  const Participation cyclic = parse_participation("cyclic:b=2,k=3", 6);
  EXPECT_EQ(cyclic.batches, 2);
  EXPECT_EQ(cyclic.epochs, 3);
  EXPECT_EQ(to_string(cyclic), "cyclic:b=2,k=3");
  expect_invalid([] { parse_participation("cyclic:b=2,k=2", 6); }, "participation");
  expect_invalid([] { parse_participation("cyclic:b=2", 6); }, "participation");
  expect_invalid([] { parse_participation("often", 6); }, "participation");
  expect_invalid([] { parse_participation("cyclic:b=x,k=3", 6); }, "participation");
}

TEST(MfWorkload, SensitivityOfIdentityByHand) {
  // X = I: every class of k participations sums to k.
  const Matrix id = Matrix::identity(6);
  EXPECT_DOUBLE_EQ(sensitivity(id, parse_participation("every", 6)), std::sqrt(6.0));
  EXPECT_DOUBLE_EQ(sensitivity(id, parse_participation("single", 6)), 1.0);
  EXPECT_DOUBLE_EQ(sensitivity(id, parse_participation("cyclic:b=2,k=3", 6)), std::sqrt(3.0));
}

TEST(MfWorkload, SensitivityOfPrefixSumByHand) {
  // tri(4)^T tri(4) has entries 4 - max(s, t). b = 2, k = 2: class {0, 2}: 4 + 2 + 2 * 2 = 10; class {1, 3}:
  // 3 + 1 + 2 * 1 = 6.
  const Matrix a = prefix_sum(4);
  EXPECT_DOUBLE_EQ(sensitivity(a, parse_participation("cyclic:b=2,k=2", 4)), std::sqrt(10.0));
  // Every step: the sum of all entries, sum_{s,t} (4 - max(s, t)) = 4 + 3*3 + 2*5 + 1*7 = 30.
  EXPECT_DOUBLE_EQ(sensitivity(a, parse_participation("every", 4)), std::sqrt(30.0));
  // Single participation: the largest column norm, ||column 0||^2 = 4.
  EXPECT_DOUBLE_EQ(sensitivity(a, parse_participation("single", 4)), 2.0);
}

TEST(MfWorkload, ZeroCorrelationHasInfiniteSensitivity) {
  EXPECT_EQ(sensitivity(Matrix(3, 3), parse_participation("every", 3)),
            std::numeric_limits<double>::infinity());
}

TEST(MfWorkload, AverageGossipMatrix) {
  // Path 0-1-2: rows (1/2, 1/2, 0), (1/3, 1/3, 1/3), (0, 1/2, 1/2): row-stochastic, not symmetric.
  const CsrMatrix w = mf_gossip_matrix(make_graph("path:n=3"), "average");
  EXPECT_DOUBLE_EQ(w.at(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(w.at(0, 1), 0.5);
  EXPECT_DOUBLE_EQ(w.at(0, 2), 0.0);
  EXPECT_DOUBLE_EQ(w.at(1, 0), 1.0 / 3);
  EXPECT_DOUBLE_EQ(w.at(1, 2), 1.0 / 3);
  EXPECT_DOUBLE_EQ(w.at(2, 1), 0.5);
  const CsrMatrix mh = mf_gossip_matrix(make_graph("path:n=3"), "metropolis");
  EXPECT_DOUBLE_EQ(mh.at(0, 1), 1.0 / 3);  // W-MH: 1 / (1 + max(d_u, d_v))
  expect_invalid([] { mf_gossip_matrix(make_graph("path:n=3"), "nonsense"); }, "weights");
}

TEST(MfWorkload, Commutation) {
  const auto pi = commutation(3, 2);  // n = 3, T = 2: t n + u -> u T + t
  const std::vector<std::int64_t> expected{0, 2, 4, 1, 3, 5};
  EXPECT_EQ(pi, expected);
}

// The dense workload of §9.2 built here from scratch: block (t, s) = W^{t-s+power}, time-major.
std::vector<double> dense_power(const std::vector<double>& w, int n, int power) {
  std::vector<double> r(static_cast<std::size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i) r[i * n + i] = 1.0;
  for (int p = 0; p < power; ++p) {
    std::vector<double> next(r.size(), 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) next[i * n + j] += w[i * n + k] * r[k * n + j];
    r = next;
  }
  return r;
}

void expect_gram_matches_dense(const std::string& graph, const std::string& weights, int steps, int power) {
  const CsrMatrix w = mf_gossip_matrix(make_graph(graph), weights);
  const int n = w.n, T = steps;
  const std::vector<double> wd = to_dense(w);
  // A[(t, i), (u, s)] (node-major columns), then G[s, s'] = sum_u sum_rows A[., (u, s)] A[., (u, s')].
  std::vector<double> a(static_cast<std::size_t>(n * T) * n * T, 0.0);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s <= t; ++s) {
      const auto block = dense_power(wd, n, t - s + power);
      for (int i = 0; i < n; ++i)
        for (int u = 0; u < n; ++u)
          a[static_cast<std::size_t>(t * n + i) * n * T + u * T + s] = block[i * n + u];
    }
  const Matrix g = workload_gram(w, T, power, false);
  // dense_workload (time-major) commuted to node-major must be the same A.
  const Matrix time_major = dense_workload(w, T, power);
  const auto pi = commutation(n, T);
  for (int r = 0; r < n * T; ++r)
    for (int c = 0; c < n * T; ++c)
      ASSERT_DOUBLE_EQ(time_major(r, c), a[static_cast<std::size_t>(r) * n * T + pi[c]]) << r << ", " << c;
  for (int s = 0; s < T; ++s)
    for (int s2 = 0; s2 < T; ++s2) {
      double sum = 0.0;
      for (int u = 0; u < n; ++u)
        for (int r = 0; r < n * T; ++r)
          sum += a[static_cast<std::size_t>(r) * n * T + u * T + s] *
                 a[static_cast<std::size_t>(r) * n * T + u * T + s2];
      EXPECT_NEAR(g(s, s2), sum, 1e-12 * std::max(1.0, std::abs(sum))) << graph << " " << s << ", " << s2;
    }
}

TEST(MfWorkload, StructuredGramEqualsDense) {
  expect_gram_matches_dense("florentine", "average", 6, 1);
  expect_gram_matches_dense("florentine", "average", 5, 0);
  expect_gram_matches_dense("path:n=5", "metropolis", 4, 1);
  expect_gram_matches_dense("er:n=70,p=0.1,seed=2", "average", 3, 1);  // more than one column block of 64
}

TEST(MfWorkload, GramOfIdentityGossipByHand) {
  // W = I: G[s, s'] = sum_{t >= max(s, s')} tr(I) = n (T - max(s, s')).
  std::vector<Triplet> diagonal;
  for (node_t u = 0; u < 4; ++u) diagonal.push_back({u, u, 1.0});
  const CsrMatrix w = csr_from_triplets(4, diagonal);
  const Matrix g = workload_gram(w, 3, 1, false);
  for (int s = 0; s < 3; ++s)
    for (int r = 0; r < 3; ++r) EXPECT_DOUBLE_EQ(g(s, r), 4.0 * (3 - std::max(s, r)));
}

}  // namespace
}  // namespace netdp::mf
