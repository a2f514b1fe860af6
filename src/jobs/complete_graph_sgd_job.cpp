// `bound sgd-rdp` and `bound sgd-closed-form`: random-walk DP-SGD on the complete graph (docs/math.md §4.3.1,
// 4.3.2), over a grid of n. The options of DP-SGD are shared with `bound sgd-sigma`.
#include "jobs/complete_graph_sgd_job.hpp"

#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/complete_graph_sgd.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

json sgd_manifest(const bound::WalkValues& w, double lipschitz, double eps, double delta) {
  json j = bound::walk_manifest(w);
  j.update({{"lipschitz", lipschitz}, {"eps", eps}, {"delta", delta}});
  return j;
}

namespace {

/// sigma, alpha, slope factor and horizon are sgd-rdp's; the other subcommands keep their defaults.
using SgdJob = bound::WalkParamsJob<bounds::SgdParams>;

json sgd_job_manifest(const SgdJob& job) {
  return sgd_manifest(job.walk, job.p.lipschitz, job.p.epsilon, job.p.delta);
}

}  // namespace

Model sgd_rdp_bound_model() {
  using namespace declare;
  using Job = SgdJob;
  Binding<Job> bind;
  std::vector<Parameter> parameters = sgd_parameters(bind, "1");
  append(parameters,
         {bind(real("eps0", "local (eps0, delta) level of a noisy gradient (sets sigma)")
                   .fallback("1")
                   .alias("eps"),
               &Job::p, &bounds::SgdParams::epsilon),
          bind(real("sigma", "absolute noise std instead of eps0 (0 = from eps0)")
                   .unit(units::absolute_std)
                   .fallback("0"),
               &Job::p, &bounds::SgdParams::sigma),
          bind(real("alpha", "Renyi order reported").fallback("2"), &Job::p, &bounds::SgdParams::alpha),
          bind(real("slope-factor", "4 (thesis, Delta = 2L), 2 (reference code), 1 (Delta = L)")
                   .fallback("4")
                   .choices({"1", "2", "4"}),
               &Job::p, &bounds::SgdParams::slope_factor),
          bind(choice("horizon", "infinite (ln n, the thesis) or finite (exact sum up to T)",
                      {"infinite", "finite"})
                   .fallback("infinite"),
               [](Job& job, const std::string& horizon) {
                 job.p.horizon = bounds::parse_sgd_horizon(horizon);
               })});
  return bound::bound_model<Job>(
      "sgd-rdp",
      "network RDP of random-walk DP-SGD on the complete graph (4.3.1, Prop D.11) and its (eps, delta) "
      "conversion; T = 10 n by default",
      std::move(parameters), bind, [](const Job& job) {
        const bounds::SgdParams p = job.walk_params();
        json parameters = sgd_job_manifest(job);
        parameters.update({{"sigma", p.sigma},
                           {"alpha", p.alpha},
                           {"slope_factor", p.slope_factor},
                           {"horizon", bounds::to_string(p.horizon)}});
        return bound::BoundRun{"sgd-rdp", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::sgd_network_rdp(n, p).columns(); }};
      });
}

Model sgd_closed_form_bound_model() {
  using namespace declare;
  using Job = SgdJob;
  Binding<Job> bind;
  std::vector<Parameter> parameters = sgd_parameters(bind, "1");
  append(
      parameters,
      {bind(real("eps0", "local (eps0, delta) level of a noisy gradient (< 1)").fallback("0.5").alias("eps"),
            &Job::p, &bounds::SgdParams::epsilon)});
  return bound::bound_model<Job>(
      "sgd-closed-form",
      "Thm 7.2 closed form for random-walk DP-SGD on the complete graph (4.3.2); T = 10 n by default",
      std::move(parameters), bind, [](const Job& job) {
        const bounds::SgdParams p = job.walk_params();
        return bound::BoundRun{"sgd-closed-form", sgd_job_manifest(job), [p] { bounds::validate(p); },
                               [p](double n) { return bounds::sgd_closed_form(n, p).columns(); }};
      });
}

}  // namespace netdp::jobs
