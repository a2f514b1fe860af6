#pragma once
// `netdp muffliato-sgd` as a library call (docs/muffliato_sgd.md): the learning data of walk-sgd, the noise
// calibrated to a target mean privacy loss (docs/math.md §6.1 eq. 6.4), the runs of Muffliato-SGD,
// curves.csv and summary.json.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/jobs/walk_loss_job.hpp"  // TargetStatistic
#include "netdp/simulation/muffliato_sgd.hpp"

namespace netdp {

struct MuffliatoSgdJob {
  std::string graph, weights = "metropolis";
  MuffliatoGdParams params;         // objective, T = participations, K, nu, clip, l2, batch, runs, seed
  std::optional<int> gossip_steps;  // K; unset: muffliato_sgd_gossip_steps
  std::optional<double> sigma;      // absolute gradient noise std; given: no calibration
  double target_mean_loss = 0;      // > 0: sigma from the mean loss (the default when sigma is unset)
  double alpha = 2;
  TargetStatistic statistic = TargetStatistic::max_observer;
  double sensitivity = 0;  // Delta; 0: 2 L
  MuffliatoSgdComposition composition = MuffliatoSgdComposition::participations;
  LearningDataSpec data;
  std::string out_dir;
  bool progress = true;  // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;
};

/// curves.csv, summary.json, manifest.json; returns the summary.
nlohmann::json run_muffliato_sgd_job(const MuffliatoSgdJob& job);

}  // namespace netdp
