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
  std::vector<Parameter> parameters = sgd_parameters("0.4");
  append(parameters,
         {real("epsilon", "target epsilon of the guarantee").fallback("1").alias("eps"),
          choice("procedure", "thesis (Remark D.12, bisection) or code (the reference findSigma)",
                 {"thesis", "code"})
              .fallback("thesis"),
          real("slope-factor", "1, 2 or 4; 0 = the procedure's own (thesis 4, code 2)")
              .fallback("0")
              .choices({"0", "1", "2", "4"}),
          real("cap-factor", "code: contribution cap K = ceil(this T/n)").fallback("1.2"),
          real("central-constant", "code: c in ln(c T/(delta n)) of the central sigma ([S4]: 2.5)")
              .fallback("1.25")});
  return bound::bound_model(
      "sgd-sigma",
      "smallest noise std for local, central and network DP-SGD at a target (eps, delta) (4.3.3, Remark "
      "D.12); "
      "T = 10 n by default",
      std::move(parameters), [](const Values& v) {
        const bound::WalkValues w = bound::walk_values(v);
        bounds::SigmaSearchParams p;
        p.epsilon = v.real("epsilon");
        p.delta = v.real("delta");
        p.steps = w.steps;
        p.steps_per_node = w.steps_per_node;
        p.lipschitz = v.real("lipschitz");
        p.procedure = bounds::parse_sigma_procedure(v.text("procedure"));
        p.slope_factor = v.real("slope-factor");
        p.contributions = bound::contribution_options(w);
        p.sender_known = w.sender_known;
        p.delta_tilde = w.delta_tilde;
        p.delta_prime = w.delta_prime;
        p.cap_factor = v.real("cap-factor");
        p.central_constant = v.real("central-constant");
        p.colluders = w.colluders;
        json parameters = sgd_manifest(v);
        parameters.update({{"procedure", v.text("procedure")},
                           {"slope_factor", p.slope_factor},
                           {"cap_factor", p.cap_factor},
                           {"central_constant", p.central_constant}});
        return bound::BoundRun{"sgd-sigma", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::sgd_sigma_search(n, p).columns(p.procedure); }};
      });
}

}  // namespace netdp::jobs
