#pragma once
// `netdp muffliato-sgd` as a library call (docs/muffliato_sgd.md): the learning data of walk-sgd, the noise
// calibrated to a target mean privacy loss (docs/math.md §6.1 eq. 6.4), the runs of Muffliato-SGD,
// curves.csv and summary.json.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/jobs/walk_loss_job.hpp"  // TargetStatistic
#include "netdp/simulation/muffliato_sgd.hpp"

namespace netdp {

/// The target of the noise calibration (docs/math.md §6.1): eps_bar = target at Renyi order alpha.
struct MuffliatoSgdMeanLoss {
  double target = 0;  // > 0: on
  double alpha = 2;
  TargetStatistic statistic = TargetStatistic::max_observer;
  double sensitivity = 0;  // Delta; 0: 2 L
};

struct MuffliatoSgdJob {
  std::string graph, weights = "metropolis";
  MuffliatoGdParams params;         // objective, T = participations, K, nu, clip, l2, batch, runs, seed
  std::optional<int> gossip_steps;  // K; unset: muffliato_sgd_gossip_steps
  std::optional<double> sigma;      // absolute gradient noise std; given: no calibration
  MuffliatoSgdMeanLoss mean_loss;   // target > 0: sigma from the mean loss (the default when sigma is unset)
  MuffliatoSgdComposition composition = MuffliatoSgdComposition::participations;  // theorem's
  // "ldp": calibrate to the LDP composition, a valid bound; "theorem": eq. 6.4 (Theorem 6.1), not an upper
  // bound (docs/muffliato_sgd.md "Accounting"). Both values are reported.
  std::string accounting = "ldp";
  std::optional<double>
      delta;  // also epsilon at this delta of the LDP composition's mu = sqrt(P) Delta / sigma
  LearningDataSpec data;
  std::string out_dir;
  bool progress = true;  // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;
};

/// The checks that need no work: sigma or a target, the data CSV read whole (docs/muffliato_sgd.md).
void check_muffliato_sgd_job(const MuffliatoSgdJob& job);

/// curves.csv and the summary as a typed result (the writer stage writes them, docs/outputs.md).
RunResult run_muffliato_sgd_job(const MuffliatoSgdJob& job);

}  // namespace netdp
