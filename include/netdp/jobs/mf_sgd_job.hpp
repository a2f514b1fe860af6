#pragma once
// `netdp mf-sgd` (docs/mf.md): MF-D-SGD runs (docs/math.md §9.2) on the built-in convex models with the
// correlation of an MF spec; utility curves over runs next to the privacy of the factorization. Outputs:
// docs/outputs.md.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/jobs/mf_loss_job.hpp"
#include "netdp/mf/mf_sgd.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {

struct MfSgdJob {
  MfSpec spec;  // graph (required), W, T, participation, correlation
  mf::MfSgdParams params;
  // The rows, as walk-sgd reads them; fewer synthetic rows by default.
  LearningDataSpec data = [] {
    LearningDataSpec d;
    d.synthetic_rows = 4000;
    return d;
  }();
  std::int64_t eval_points = 50;  // eval-every not given: T / eval_points
  bool eval_every_given = false;
  double alpha = 2;
  double delta = 1e-6;
  std::string out_dir;
  bool progress = true;  // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;
};

/// Checks that need no data: the MF spec, the learning parameters, alpha and delta.
void check_mf_sgd_job(const MfSgdJob& job);
/// curves.csv, C.npy and the summary as a typed result (the writer stage writes them, docs/outputs.md).
RunResult run_mf_sgd_job(const MfSgdJob& job);

}  // namespace netdp
