#pragma once
// MF-D-SGD (docs/math.md §9.2, Algorithm 1 of the poster): every node makes a local SGD step on its own data
// with correlated noise (C_u^-1 Z_u) and then averages with its neighbours through W. R independent runs on
// the built-in convex models (include/netdp/simulation/convex_models.hpp), spread over the threads.
// Docs: docs/mf.md "netdp mf-sgd".
//
// Step t = 0 .. T-1 of node u (theta_0 = 0):
//   B = node u's batch t mod b (its examples i with i mod b = t mod b, participation cyclic:b=B,k=K),
//   theta_{t+1/2} = theta_t - eta ((sum_{i in B} clip(grad l(theta_t; i)) + N_u[t]) / |B| + mu theta_t),
//   theta_{t+1} = W theta_{t+1/2}.
// N_u = s_u C_u^-1 Z_u (T x d), Z_u standard normal, s_u = clip sigma sens_Pi(C_u): the sum of clipped
// gradients released with noise C_u^-1 Z_u calibrated so that node u's release is (1/sigma)-GDP under LDP
// (§9.4, the reference's calibration). No noise for sigma = 0 or C = 0.
//
// Randomness (docs/design.md principle 2): Z_u of run r is one Philox stream, subsequence 30 << 56 | r << 24
// | u, from offset 0: the normal i = s d + k (step s, coordinate k) is member i % 2 of pair i / 2
// (next_normal_pair). Results do not depend on the thread count.
#include <cstdint>
#include <functional>
#include <vector>

#include "netdp/core/sparse_matrix.hpp"
#include "netdp/mf/mf_workload.hpp"
#include "netdp/simulation/convex_models.hpp"
#include "netdp/simulation/walk_sgd.hpp"

namespace netdp::mf {

constexpr std::uint64_t kMfSgdStream = 30;
constexpr std::uint64_t mf_sgd_subsequence(std::uint64_t run, std::uint64_t node) {
  return kMfSgdStream << 56 | run << 24 | node;
}

struct MfSgdParams {
  Objective objective = Objective::least_squares;
  Participation participation;  // T = b k steps
  double step_size = 0.1;       // eta > 0
  double clip = 1;              // per-example clipping norm > 0
  double sigma = 1;             // noise multiplier >= 0 (0: no noise)
  double l2 = 0;                // mu >= 0
  std::int64_t runs = 1;
  std::uint64_t seed = 0;
  std::int64_t eval_every = 1;  // the curves hold steps 0, e, 2e, ..., and T
};

/// Throws InvalidParameter naming the parameter: sizes of W, C and the data, a node with fewer examples than
/// batches, non-positive step size or clip, negative sigma or l2, runs < 1, eval-every < 1, C singular.
void validate(const MfSgdParams& p, const CsrMatrix& w, const std::vector<Matrix>& c, const LocalData& train);

struct MfSgdResult {
  std::vector<std::int64_t> step;
  RunStatistics objective;        // training objective phi(theta_bar) of the mean model theta_bar
  RunStatistics test_loss;        // mean loss on the test set at theta_bar (no ridge term)
  RunStatistics accuracy;         // test accuracy at theta_bar (logistic; NaN otherwise)
  RunStatistics consensus;        // (1/n) sum_u ||theta_u - theta_bar||^2
  std::vector<double> noise_std;  // s_u per node (one value when C is shared)
  double seconds = 0;
  int threads = 1;
};

/// R runs; c holds one C (shared) or one per node (T x T each). `progress` (may be empty) receives the share
/// of the runs done, one call at a time.
MfSgdResult mf_sgd(const CsrMatrix& w, const std::vector<Matrix>& c, const LocalData& train,
                   const LocalData& test, const MfSgdParams& p,
                   const std::function<void(double)>& progress = {});

/// The models theta_0 .. theta_T (n x d each) of one run, by the same code as mf_sgd.
std::vector<Matrix> mf_sgd_trajectory(const CsrMatrix& w, const std::vector<Matrix>& c,
                                      const LocalData& train, const MfSgdParams& p, std::int64_t run);

/// Node u's noise N_u = scale C^-1 Z_u of run r (T x dim), from the stream above; `c_inverse` is C^-1.
Matrix mf_sgd_noise(const Matrix& c_inverse, double scale, std::uint64_t seed, std::int64_t run, node_t u,
                    int dim);

}  // namespace netdp::mf
