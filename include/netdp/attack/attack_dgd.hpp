#pragma once
// The reconstruction attack on decentralized gradient descent (docs/math.md §7.3, docs/attack.md "D-GD"):
// curious nodes observe the half-step parameters their neighbours send, remove their own contributions and
// the initialisation (a parallel gossip of theta^0, Algorithm 4.3), and estimate every target's constant
// gradient part g_v (Assumption 4.7) by ordinary or generalised least squares on the target-only knowledge
// matrix (Algorithm 4.2) with the noise covariance of Algorithm A.1. Several gossip rounds per gradient step
// (Remark 4.11) are supported. Which targets the knowledge matrix determines is decided exactly over Z/pZ.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "netdp/attack/attack_gossip.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::attack {

struct DgdAttackParams {
  int steps = 10;         // T: gradient steps observed
  int gossip_rounds = 1;  // K: gossip rounds per gradient step (Remark 4.11); S = T K messages per node
  double sigma = 0;       // std of the noise N_v^t added to every coordinate of every update (Assumption 4.7)
  std::uint64_t seed = 0;
  int run = 0;  // replicate: the noise of run r is Philox subsequence 21 << 56 | r << 24 | t
};

/// The update g_v^t = -eta grad L(theta_v^t; x_v) of node v at parameters theta, without the noise.
using UpdateFunction = std::function<void(node_t v, std::span<const double> theta, std::span<double> out)>;

/// What the attackers can compute before the run: the target-only knowledge matrix and its noise covariance.
struct DgdKnowledge {
  std::vector<node_t> attackers, targets, observed;  // targets = V \ A and observed = N(A), ascending
  CsrMatrix w;                                       // W as doubles (the gossip the run uses)
  int gossip_rounds = 1, steps = 0;
  int rows = 0;                    // m = T K |N(A)|: row (s, v) for message s = 0..S-1, v in observed order
  std::vector<double> matrix;      // m x |targets|, row-major: (P_s)[v, :] restricted to the targets
  std::vector<double> covariance;  // m x m for sigma = 1 (Algorithm A.1)
  // Exact identifiability over Z/pZ (named weightings; else from the SVD): per target, the first number of
  // gradient steps t (1..T) after which e_j is in the row space of the knowledge matrix, 0 if never.
  std::vector<int> identifiable_after;
  bool exact = false;
  std::vector<PrimeCertificate> primes;  // final rank and identifiable count per prime
  bool primes_agree = true;
  int rank = 0;
  int rows_after(int t) const { return t * gossip_rounds * static_cast<int>(observed.size()); }
};

/// Builds the knowledge of `attackers` (sorted, distinct, fewer than n) over T gradient steps with K gossip
/// rounds each. Throws InvalidParameter on bad sizes (steps, gossip-rounds, attackers).
DgdKnowledge dgd_knowledge(const Graph& g, const WeightsSpec& weights, const std::vector<node_t>& attackers,
                           int steps, int gossip_rounds);

/// One simulated D-GD run: what the attackers observe and the truth the estimates are compared with.
struct DgdRun {
  int dim = 0;
  std::vector<double> observations;  // m x dim: z_v^s received, in the knowledge matrix's row order
  std::vector<double> own;           // S x |A| x dim: what the attackers sent
  std::vector<double> mean_updates;  // T x n x dim: row t = mean over steps 0..t of the noiseless updates
};

/// Runs D-GD from theta0 (n x dim, row-major, public): z^0 = theta^0 + g^0; after each message round
/// z <- W z, and every K rounds a gradient step adds g^t (evaluated at the gossiped parameters) plus
/// N(0, sigma^2) noise per coordinate.
DgdRun simulate_dgd(const DgdKnowledge& k, std::span<const double> theta0, int dim,
                    const UpdateFunction& update, const DgdAttackParams& params);

/// Algorithm 4.3 with the initialisation removed: Y_hat (m x dim) = observations - (W^s theta^0)_v - B_s.
std::vector<double> remove_contributions(const DgdKnowledge& k, std::span<const double> theta0,
                                         const DgdRun& run);

/// The estimators from the first t gradient steps' rows, as matrices M (|targets| x m_t, g_hat = M Y_hat):
/// OLS, the pseudo-inverse of K_t (minimum-norm least squares, NumPy's lstsq cut-off), and GLS, K_t and Y_hat
/// whitened by the pseudo-inverse square root of Sigma_t (Sigma^-1 when it is regular), and each estimator's
/// variance per target for sigma = 1: diag(M Sigma_t M^T).
struct DgdEstimator {
  int t = 0, rows = 0, targets = 0;
  std::vector<double> ols, gls;
  std::vector<double> ols_variance, gls_variance;
};
DgdEstimator dgd_estimator(const DgdKnowledge& k, int t);

/// Both estimates (|targets| x dim each) from Y_hat (its first `rows` rows are used).
struct DgdEstimate {
  std::vector<double> ols, gls;
};
DgdEstimate estimate_gradients(const DgdEstimator& m, std::span<const double> y_hat, int dim);

}  // namespace netdp::attack
