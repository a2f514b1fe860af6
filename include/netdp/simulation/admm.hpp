#pragma once
// Private consensus ADMM as a noisy block fixed-point iteration (Algorithm 8.1 with the Lions-Mercier
// operator of docs/math.md §8.2; docs/admm.md): users i = 1..n hold f_i (convex_models.hpp) and the blocks
// u_i; z = (1/n) sum_i u_i (r = 0, the ridge term lies in every f_i) and
//   x_i <- prox_{c f_i}(2 z - u_i),  u_i <- u_i + 2 lambda (x_i - z + eta_i / 2),  eta_i ~ N(0, sigma^2 I_p),
// with c = gamma / n (prox-scale weighted) or gamma (unweighted). The active blocks: every user (centralized,
// Alg 8.2), m users drawn without replacement (federated, Alg 8.3), the token holder of a walk on the
// complete graph that moves to a uniform user (walk, Alg 8.4). R independent runs spread over the threads.
//
// Randomness layout (docs/design.md principle 2), one Philox stream per run, subsequence 25 << 56 | run:
//   offset 0: the walk's first holder (next_below(n));
//   offset (k + 1) << 32, step k: federated, the m users first (partial Fisher-Yates over a permutation kept
//   across steps, next_below); then, active user by active user in that order (centralized: 0..n-1),
//   ceil(p/2) normal pairs (coordinate j = member j % 2 of pair j / 2); walk: then the next holder
//   (next_below(n)).
// Results do not depend on the thread count.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "netdp/accounting/admm_privacy.hpp"
#include "netdp/simulation/convex_models.hpp"
#include "netdp/simulation/walk_sgd.hpp"

namespace netdp {

// The stream kind of the runs: run_subsequence(kAdmmStream, run).
constexpr std::uint64_t kAdmmStream = 25;

struct AdmmParams {
  Objective objective = Objective::least_squares;
  AdmmSetting setting = AdmmSetting::centralized;
  AdmmProxScale prox_scale = AdmmProxScale::weighted;
  std::int64_t steps = 1;    // K >= 1: rounds (centralized, federated) or token moves (walk)
  std::int64_t sampled = 1;  // m, users per round (federated)
  double step_size = 1;      // gamma > 0
  double relaxation = 0.5;   // lambda in (0, 1]
  double sigma = 0;          // absolute std of eta >= 0
  double l2 = 0;             // mu >= 0
  int newton_steps = 3;      // logistic prox
  std::int64_t runs = 1;
  std::uint64_t seed = 0;
  std::int64_t eval_every = 1;  // curves at steps 0, e, 2e, ..., and K
};
/// InvalidParameter naming the parameter.
void validate(const AdmmParams& p, const LocalData& train);
/// The prox step c: gamma / n or gamma.
double admm_prox_step(const AdmmParams& p, node_t users);

/// The fixed point of the noiseless iteration from theta* = argmin phi (docs/admm.md "Fixed point"):
/// z* = theta*, u*_i = theta* - c grad f_i(theta*) (n x p, row-major).
std::vector<double> admm_fixed_point(const AdmmParams& p, const LocalData& train,
                                     std::span<const double> theta);

struct AdmmResult {
  std::vector<std::int64_t> step;
  RunStatistics objective;                      // phi(z) on the training data
  RunStatistics accuracy;                       // test accuracy of z (logistic; NaN otherwise)
  RunStatistics distance;                       // ||u_k - u*||^2 (NaN without u*)
  std::vector<double> max_participations_mean;  // mean over runs of max_i (updates of block i so far)
  double seconds = 0;
  int threads = 1;
};

/// R runs; accuracy on test (train when test is empty); distance to u_star when it is not empty. `progress`
/// (may be empty) receives the share of the runs done, one call at a time.
AdmmResult admm(const LocalData& train, const LocalData& test, const AdmmParams& p,
                std::span<const double> u_star = {}, const std::function<void(double)>& progress = {});

/// The state of one run after every step, by the same code (tests).
struct AdmmTrajectory {
  std::vector<std::vector<double>> z;  // z_0 .. z_K
  std::vector<double> u;               // u_K (n x p)
};
AdmmTrajectory admm_trajectory(const LocalData& train, const AdmmParams& p, std::int64_t run);

/// The right-hand side of Thm 8.5 (docs/math.md §8.1) at step k: (1 - q^2 (1 - tau)/8)^k D + 8((sqrt(dim)
/// sigma + zeta)/(sqrt(q)(1 - tau)) + (dim sigma^2 + zeta^2)/(q^3 (1 - tau)^3)); +infinity when tau >= 1.
double admm_utility_bound(std::int64_t k, double q, double tau, double distance0, double dim, double sigma,
                          double zeta = 0);

}  // namespace netdp
