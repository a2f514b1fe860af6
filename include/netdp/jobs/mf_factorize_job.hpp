#pragma once
// `netdp mf-factorize` (docs/mf.md): build or optimise a correlation C (MAFALDA included) and report its
// sensitivity and workload losses. Outputs: docs/outputs.md.
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/jobs/mf_loss_job.hpp"

namespace netdp {

struct MfFactorizeJob {
  MfSpec spec;
  std::string out_dir;
  bool progress = true;
  nlohmann::json invocation;
};

void check_mf_factorize_job(const MfFactorizeJob& job);
/// C.npy and the summary as a typed result (the writer stage writes them, docs/outputs.md).
RunResult run_mf_factorize_job(const MfFactorizeJob& job);

}  // namespace netdp
