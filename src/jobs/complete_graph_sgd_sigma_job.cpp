// `bound sgd-sigma`: the smallest noise std for local, central and network DP-SGD at a target (eps, delta)
// (docs/math.md §4.3.3), over a grid of n.
#include "jobs/complete_graph_sgd_job.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/complete_graph_sgd_sigma.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

Model sgd_sigma_bound_model() {
  using namespace declare;
  using Job = bound::WalkParamsJob<bounds::SigmaSearchParams>;
  Binding<Job> bind;
  std::vector<Parameter> parameters = sgd_parameters(bind, "0.4");
  append(parameters,
         {bind(real("epsilon", "target epsilon of the guarantee").fallback("1").alias("eps"), &Job::p,
               &bounds::SigmaSearchParams::epsilon),
          bind(choice("procedure", "thesis (Remark D.12, bisection) or code (the reference findSigma)",
                      {"thesis", "code"})
                   .fallback("thesis"),
               [](Job& job, const std::string& procedure) {
                 job.p.procedure = bounds::parse_sigma_procedure(procedure);
               }),
          bind(real("slope-factor", "1, 2 or 4; 0 = the procedure's own (thesis 4, code 2)")
                   .fallback("0")
                   .choices({"0", "1", "2", "4"}),
               &Job::p, &bounds::SigmaSearchParams::slope_factor),
          bind(real("cap-factor", "code: contribution cap K = ceil(this T/n)").fallback("1.2"), &Job::p,
               &bounds::SigmaSearchParams::cap_factor),
          bind(real("central-constant", "code: c in ln(c T/(delta n)) of the central sigma ([S4]: 2.5)")
                   .fallback("1.25"),
               &Job::p, &bounds::SigmaSearchParams::central_constant)});
  return bound::bound_model<Job>(
      "sgd-sigma",
      "smallest noise std for local, central and network DP-SGD at a target (eps, delta) (4.3.3, Remark "
      "D.12); "
      "T = 10 n by default",
      std::move(parameters), bind, [](const Job& job) {
        const bounds::SigmaSearchParams p = job.walk_params();
        json parameters = sgd_manifest(job.walk, p.lipschitz, p.epsilon, p.delta);
        parameters.update({{"procedure", bounds::to_string(p.procedure)},
                           {"slope_factor", p.slope_factor},
                           {"cap_factor", p.cap_factor},
                           {"central_constant", p.central_constant}});
        return bound::BoundRun{"sgd-sigma", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::sgd_sigma_search(n, p).columns(p.procedure); }};
      });
}

}  // namespace netdp::jobs
