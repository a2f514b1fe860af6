#pragma once
// Random-walk DP-SGD (Algorithm 7.2 on the complete graph, Algorithm 7.3 on any graph; docs/math.md §4.3,
// §5.1): one token carries the model along a walk; at every step its holder makes a local (mini-batch)
// gradient step with clipping and Gaussian noise, then sends the token to a neighbour drawn from the walk
// rule of walk-sim. R independent runs spread over the threads. Docs: docs/walk_sgd.md.
//
// Randomness layout (docs/design.md principle 2), one Philox stream per run, subsequence 20 << 56 | run:
//   offset 0: the first holder (next_below(n));
//   offset (t + 1) << 20, step t = 0..T-1: ceil(p/2) normal pairs (the noise, coordinate k = member k % 2 of
//   pair k / 2), then the mini-batch (partial Fisher-Yates, next_below, batch >= 1 only), then the next
//   holder (walk_sim's next-node rule; its rare redraw from walk-sim's retry stream of the same run at t <<
//   20).
// Results do not depend on the thread count.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/simulation/convex_models.hpp"
#include "netdp/simulation/walk_sim_model.hpp"

namespace netdp {

/// The three curves of Fig. 7.2 (docs/walk_sgd.md "Variants"): what a visit does, and with which noise.
enum class WalkSgdVariant {
  centralized,  // every visit contributes (no cap), sigma of centralized DP-SGD
  local,        // the first K visits of a node contribute, later ones only forward the token
  network,      // the first K visits of a node contribute, later ones add noise only
};
WalkSgdVariant parse_walk_sgd_variant(std::string_view text);  // centralized | local | network
std::string to_string(WalkSgdVariant v);

/// What a visit over the cap K does (docs/walk_sgd.md "Variants and the contribution cap"): the variant's own
/// rule (network: noise only, local: forward only), or one of the two for any variant (the documented
/// discrepancy: Remark D.18 says noise only, the reference code's local curve forwards).
enum class WalkSgdCapped { variant, noise, forward };
WalkSgdCapped parse_walk_sgd_capped(std::string_view text);  // variant | noise | forward
std::string to_string(WalkSgdCapped c);

enum class WalkSgdClipOrder { per_example, after_noise };
WalkSgdClipOrder parse_walk_sgd_clip_order(std::string_view text);  // per-example | after-noise
std::string to_string(WalkSgdClipOrder o);

// The stream kind of the runs: run_subsequence(kWalkSgdStream, run).
constexpr std::uint64_t kWalkSgdStream = 20;

struct WalkSgdParams {
  Objective objective = Objective::logistic;
  WalkSgdVariant variant = WalkSgdVariant::network;
  std::int64_t steps = 1;  // T >= 1
  double step_size = 0.1;  // gamma > 0
  double sigma = 0;        // absolute noise std >= 0
  double clip = 0;         // L >= 0 (0 = none)
  WalkSgdClipOrder clip_order = WalkSgdClipOrder::per_example;
  double l2 = 0;         // mu >= 0
  std::int64_t cap = 0;  // K: contributions per node (local, network); 0 = no cap
  WalkSgdCapped capped = WalkSgdCapped::variant;
  int batch = 0;          // 0: the node's whole dataset; b >= 1: b examples without replacement
  std::int64_t runs = 1;  // R >= 1
  std::uint64_t seed = 0;
  std::int64_t eval_every = 1;  // the curves hold steps 0, e, 2e, ..., and T
  // walk_sgd_discrepancy: node v's estimate before its first visit is the mean of its examples (its own
  // optimum for the quadratic objective: what it holds alone) instead of x_0 = 0.
  bool local_initial_estimate = false;
};

/// Throws InvalidParameter naming the parameter (batch larger than the smallest local dataset, a walk with
/// another n than the data, ...).
void validate(const WalkSgdParams& p, const WalkModel& walk, const LocalData& train);

/// Over the runs, at every evaluated step: mean, std (population, 0 for R = 1), min and max.
struct RunStatistics {
  std::vector<double> mean, std, min, max;
};
/// values[r * points + e] (run r, point e) -> the statistics of every point over the runs, in run order.
RunStatistics run_statistics(const std::vector<double>& values, std::int64_t runs, std::int64_t points);
struct WalkSgdResult {
  std::vector<std::int64_t> step;
  RunStatistics objective;                     // training objective phi(x) (convex_models.hpp)
  RunStatistics accuracy;                      // test accuracy (logistic; NaN otherwise)
  std::vector<double> max_contributions_mean;  // mean over runs of max_v (contributions of v so far)
  double seconds = 0;
  int threads = 1;
};

/// R runs on `walk`, node v holding train's examples of user v; accuracy on `test` (train when test is
/// empty). `progress` (may be empty) receives the share of the runs done, one call at a time.
WalkSgdResult walk_sgd(const WalkModel& walk, const LocalData& train, const LocalData& test,
                       const WalkSgdParams& p, const std::function<void(double)>& progress = {});

/// The models x_0 .. x_T (p values each) and the holders v_0 .. v_{T-1} of one run, by the same code.
struct WalkSgdTrajectory {
  std::vector<std::vector<double>> models;
  std::vector<node_t> holders;
};
WalkSgdTrajectory walk_sgd_trajectory(const WalkModel& walk, const LocalData& train, const WalkSgdParams& p,
                                      std::int64_t run);

/// Estimate discrepancy by pair class (docs/walk_sgd.md "Heterogeneous data"): node v's estimate is the
/// model it last sent on (x_0 = 0 before its first visit). pair_class[u * n + v] in [0, classes) or -1
/// (ignored) for u < v. Returns, at every evaluated step e (as WalkSgdResult::step) and class c, the mean
/// over runs of the mean over the class's pairs of ||estimate_u - estimate_v||: values[e * classes + c].
/// Runs spread over the threads; the result does not depend on their number. `progress` as walk_sgd's.
std::vector<double> walk_sgd_discrepancy(const WalkModel& walk, const LocalData& train,
                                         const WalkSgdParams& p, const std::vector<int>& pair_class,
                                         int classes, const std::function<void(double)>& progress = {});

}  // namespace netdp
