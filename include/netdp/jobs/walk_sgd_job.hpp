#pragma once
// `netdp walk-sgd` as a library call (docs/walk_sgd.md): data, the noise calibration of the chosen variant,
// the runs of random-walk DP-SGD, curves.csv and summary.json (by_distance.csv for heterogeneous data).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/accounting/walk_loss.hpp"
#include "netdp/bounds/complete_graph_sgd_sigma.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/jobs/walk_loss_job.hpp"  // TargetStatistic
#include "netdp/simulation/walk_sgd.hpp"

namespace netdp {

/// The noise of a variant for a target (epsilon, delta) (docs/walk_sgd.md "Calibration", docs/math.md
/// §4.3.3): bounds::sgd_sigma_search on n users and T steps with the clip norm L as Lipschitz constant; the
/// variant picks sigma_central, sigma_local or sigma_network. The cap K of the local and network variants is
/// the contribution count of the search: ceil(cap_factor T / n) (procedure code) or ceil(N_u) (thesis, CB1);
/// centralized: no cap (0).
struct WalkSgdCalibration {
  double sigma = 0;
  std::int64_t cap = 0;
  bounds::SigmaSearch search;
};
WalkSgdCalibration calibrate_walk_sgd(WalkSgdVariant variant, double n, const bounds::SigmaSearchParams& p);

/// The symmetric gossip matrix W of a walk rule, for the pairwise accountant of docs/math.md §5 (which
/// needs W symmetric and bistochastic): complete:n=N with auto or metropolis is J/n (metropolis on K_n);
/// a weighting (metropolis, hamilton-literal, max-degree, file) is its matrix; uniform (and auto) and
/// lazy-uniform only on a regular graph (max-degree and lazy-uniform weightings). Anything else:
/// InvalidParameter "weights".
struct WalkSgdGraph {
  Graph g;
  CsrMatrix w;
};
WalkSgdGraph walk_sgd_symmetric_walk(const std::string& graph, const std::string& weights);

/// The statistic of the pairwise losses (walk_loss, docs/math.md §5.3) at noise multiplier p.sigma:
/// max_v (1/n) sum_{u != v} eps_{u->v} or the mean over the ordered pairs u != v.
double walk_mean_loss(const WalkSgdGraph& walk, const WalkLossParams& p, TargetStatistic statistic);

/// docs/math.md §5.8: every loss scales as 1 / multiplier^2 (the clipping level too), so the multiplier
/// meeting a target is sqrt(statistic(1) / target). Throws InvalidParameter "target-mean-loss" when the
/// statistic is 0.
double walk_mean_loss_multiplier(const WalkSgdGraph& walk, WalkLossParams p, TargetStatistic statistic,
                                 double target, double* statistic_at_one = nullptr);

/// The §5.8 calibration of walk-sgd (docs/walk_sgd.md "Mean-loss calibration").
struct WalkSgdMeanLoss {
  double target = 0;  // > 0: on (network variant only)
  double alpha = 2;
  TargetStatistic statistic = TargetStatistic::max_observer;
  double sensitivity = 0;          // Delta; 0: 2 L
  bool contributions_cap = false;  // N_u = K instead of T/n
  WalkLossMethod method = WalkLossMethod::spectral;
};

/// Heterogeneous node data (docs/walk_sgd.md "Heterogeneous data", docs/math.md §11 E15).
enum class WalkSgdNodeData { rows, coordinates, shuffled_coordinates };

struct WalkSgdJob {
  std::string graph, weights = "auto";
  WalkSgdParams params;              // sigma and cap filled by the run unless given
  std::optional<double> sigma;       // given: no calibration
  std::optional<std::int64_t> cap;   // given (0 = none); else the calibration's
  bounds::SigmaSearchParams search;  // epsilon, delta, procedure, slope/cap factors, central constant
  WalkSgdMeanLoss mean_loss;         // target > 0: sigma from §5.8 instead of the search
  LearningDataSpec data;             // rows (node_data = rows)
  WalkSgdNodeData node_data = WalkSgdNodeData::rows;
  int distance_quantiles = 10;     // by_distance.csv classes (coordinates data)
  std::int64_t eval_points = 200;  // eval_every = max(1, T / eval_points) unless params.eval_every was given
  bool eval_every_given = false;
  std::string out_dir;
  bool progress = true;  // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;
};

/// The checks that need no work (docs/walk_sgd.md): the calibration's options, the data CSV read whole. The
/// run starts with them; `netdp run --dry-run`, the study's validation and Python's check() call them.
void check_walk_sgd_job(const WalkSgdJob& job);

/// curves.csv (and by_distance.csv) and the summary as a typed result (the writer stage writes them).
RunResult run_walk_sgd_job(const WalkSgdJob& job);

}  // namespace netdp
