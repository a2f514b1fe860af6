#include "netdp/jobs/mf_factorize_job.hpp"

#include <algorithm>

#include "core/progress.hpp"
#include "jobs/mf_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

void check_mf_factorize_job(const MfFactorizeJob& job) {
  check_mf_spec(job.spec, false);
}

RunResult run_mf_factorize_job(const MfFactorizeJob& job) {
  const Stopwatch clock;
  const MfSetup setup = mf_setup(job.spec);
  RunResult result;
  const mf::Matrix c = mf::stack_rows(setup.c);
  result.matrix("C.npy", c.rows, c.cols, c.a);
  json summary = {{"model", "mf-factorize"}};
  summary.update(mf_description(job.spec, setup));
  summary.update(mf_workload_losses(setup));
  summary["seconds"] = clock.seconds();
  json manifest = manifest_header("mf-factorize", job.invocation);
  manifest["parameters"] = mf_spec_manifest(job.spec);
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model mf_factorize_model() {
  using namespace declare;
  Model m = named_model(
      "mf-factorize",
      "build or optimise a noise correlation C (MAFALDA, D-MF, SR, ...) and report its sensitivity and "
      "workload losses",
      "--graph ring:n=6 --steps 12 --correlation mafalda --out out/mf-factorize");
  Binding<MfFactorizeJob> bind;
  m.parameters = mf_parameters(bind, false);
  append(m.parameters, {threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_mf_factorize_job);
  m.execute = bind.run(run_mf_factorize_job);
  m.describe = [](const json& s, const RunContext& c) {
    const json& w = s["workloads"];
    const double loss = w.contains("post_average") ? w["post_average"]["loss"].get<double>()
                                                   : w["prefix_sum"]["loss"].get<double>();
    return format_line(
        "mf-factorize: %s, T = %d, %s, sensitivity %.6g, %s loss %.6g, %d iterations, %.3f s -> %s\n",
        s["correlation_name"].get<std::string>().c_str(), s["steps"].get<int>(),
        s["participation"].get<std::string>().c_str(), s["sensitivity"].get<double>(),
        w.contains("post_average") ? "post-average" : "prefix-sum", loss,
        s["optimiser_iterations"].get<int>(), s["seconds"].get<double>(), c.out_dir.string().c_str());
  };
  // C and its workload Grams are T x T and held whole: Model::run refuses what does not fit (T = 30,000 is
  // about 36 GB).
  m.resources = bind.estimate([](const MfFactorizeJob& job) {
    const double T = job.spec.steps;
    const GraphSize g = job.spec.graph.empty() ? GraphSize{} : graph_size(job.spec.graph);
    const double required = mf_required_bytes(job.spec, node_t(std::min(g.n, 1e9)));
    return Estimate{std::max(8 * T * T * 8 + 8 * (T + 1) * g.n * 64, required),
                    1000 * 5 * T * T * T / 5e9 + (T + 1) * (T + 1) * g.n * g.n / 5e9, required};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
