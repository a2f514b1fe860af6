#pragma once
// Matrix-factorization accounting of decentralized SGD (docs/math.md §9): dense T x T matrices, participation
// schemes and their sensitivity (§9.1, §9.3), the gossip matrices, and the workloads of §9.2 with their
// structured Gram (§9.6).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::mf {

/// A dense row-major matrix.
struct Matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> a;
  Matrix() = default;
  Matrix(std::int64_t r, std::int64_t c) : rows(r), cols(c), a(static_cast<std::size_t>(r * c), 0.0) {}
  double& operator()(std::int64_t i, std::int64_t j) { return a[static_cast<std::size_t>(i * cols + j)]; }
  double operator()(std::int64_t i, std::int64_t j) const {
    return a[static_cast<std::size_t>(i * cols + j)];
  }
  static Matrix identity(std::int64_t n);
};

/// C = op(A) op(B) (cblas_dgemm, single-threaded OpenBLAS).
Matrix multiply(const Matrix& a, const Matrix& b, bool transpose_a = false, bool transpose_b = false);
Matrix transpose(const Matrix& a);
/// The lower-triangular ones tri(T) (the prefix-sum workload A^pre of §9.1).
Matrix prefix_sum(int steps);

/// Cyclic participation (§9.1): T = batches * epochs; batch j takes part at steps j, j + b, ..., j + (k-1) b.
/// `every` is b = 1 (k = T), `single` is b = T (k = 1).
struct Participation {
  int batches = 1;
  int epochs = 1;
  int steps() const { return batches * epochs; }
};
/// "every" | "single" | "cyclic:b=B,k=K" (b * k must equal `steps`). Throws
/// InvalidParameter("participation").
Participation parse_participation(std::string_view text, int steps);
std::string to_string(const Participation& p);

/// max_j sum_{s,t in pi_j} |X_st| (§9.1, §9.3: the bound on sens^2) for a T x T matrix X.
double sensitivity_squared(const Matrix& x, const Participation& p);
/// sens_Pi(C) = sqrt(sensitivity_squared(C^T C)); +inf when C = 0 (no noise, §9.1).
double sensitivity(const Matrix& c, const Participation& p);

/// The gossip matrix of the MF models: "average" = D^-1 (A + I) (the mean over N(u) and u, row-stochastic,
/// §9.2) or any netdp weighting (docs/math.md §2.1). Throws InvalidParameter("weights").
CsrMatrix mf_gossip_matrix(const Graph& g, std::string_view weights);
/// The netdp weighting named by `weights` (not "average"). Throws InvalidParameter("weights").
WeightsSpec parse_mf_weights(std::string_view weights);

/// The permutation of §9.2: pi[t n + u] = u T + t (time-major -> node-major).
std::vector<std::int64_t> commutation(int n, int steps);

/// The dense time-major workload (nT x nT): block (t, s) = W^{t-s+power} for t >= s, 0 otherwise. power 0 is
/// the message workload W_T, power 1 the post-average workload (I_T (x) W) W_T (§9.2). For tests and small
/// graphs only.
Matrix dense_workload(const CsrMatrix& w, int steps, int power);

/// F(a, b) = <W^a, W^b>_F for 0 <= a, b <= max_power ((max_power+1)^2, row-major), by column blocks of the
/// identity propagated through W (never an n x n power per block beyond `block` columns).
Matrix power_inner_products(const CsrMatrix& w, int max_power, bool parallel);

/// G_W = sum_i A_i^T A_i (§9.6): G[s, s'] = sum_{t >= max(s, s')} F(t - s + power, t - s' + power).
Matrix workload_gram(const CsrMatrix& w, int steps, int power, bool parallel);

/// The per-node Grams A_i^T A_i (§9.5 MAFALDA-L), i = 0 .. n-1, each T x T: the same sum over the inner
/// products <W^a e_i, W^b e_i> of node i's column alone. Their sum is workload_gram. n T^2 doubles.
std::vector<Matrix> node_workload_grams(const CsrMatrix& w, int steps, int power, bool parallel);

}  // namespace netdp::mf
