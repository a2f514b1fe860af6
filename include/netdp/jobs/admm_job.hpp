#pragma once
// `netdp admm` as a library call (docs/admm.md): data, the noise calibrated to the setting's guarantee
// (docs/math.md §8.3), the runs of private consensus ADMM, the Thm 8.5 bound, curves.csv and summary.json.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/accounting/admm_privacy.hpp"
#include "netdp/io/run_result.hpp"
#include "netdp/simulation/admm.hpp"
#include "netdp/simulation/convex_models.hpp"  // LearningDataSpec

namespace netdp {

struct AdmmJob {
  AdmmParams params;                    // sigma filled by the run unless given
  std::int64_t users = 100;             // n
  std::optional<std::int64_t> sampled;  // m; default the largest m with m / n < 1/5
  std::optional<double> sigma;          // given: no calibration
  double epsilon = 1;                   // the target of the calibration
  double lipschitz = 0;                 // L; 0: logistic max_j ||x_j|| of the training data
  AdmmPrivacyParams privacy;       // delta, conversion, subsampling constant (the rest comes from params)
  LearningDataSpec data;           // CSV path (empty: synthetic), synthetic sizes, split, data seed
  std::int64_t eval_points = 200;  // eval_every = max(1, K / eval_points) unless given
  bool eval_every_given = false;
  std::string out_dir;
  bool progress = true;  // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;
};

/// The privacy parameters of a run: the job's privacy block with n, m, K, gamma, L and the prox scale.
AdmmPrivacyParams admm_privacy_params(const AdmmJob& job, std::int64_t users, double lipschitz);
/// The default m: the largest m with m / n < 1/5 (Thm E.9), at least 1.
std::int64_t admm_default_sampled(std::int64_t users);

/// The checks that need no work: users, sampled, lipschitz, the rows (the data CSV read whole) and the
/// calibration's parameters (docs/admm.md).
void check_admm_job(const AdmmJob& job);

/// The runs as a typed result: curves.csv and the summary (written by the writer stage, docs/outputs.md).
RunResult run_admm_job(const AdmmJob& job);

}  // namespace netdp
