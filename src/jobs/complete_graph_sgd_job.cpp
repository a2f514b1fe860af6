// `bound sgd-rdp` and `bound sgd-closed-form`: random-walk DP-SGD on the complete graph (docs/math.md §4.3.1,
// 4.3.2), over a grid of n. The options of DP-SGD are shared with `bound sgd-sigma`.
#include "jobs/complete_graph_sgd_job.hpp"

#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/complete_graph_sgd.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

std::vector<Parameter> sgd_parameters(const std::string& default_lipschitz) {
  using namespace declare;
  std::vector<Parameter> parameters = bound::walk_grid_parameters("10", "1e-06");
  append(parameters, {real("lipschitz", "Lipschitz constant L of the losses").fallback(default_lipschitz),
                      real("delta", "delta").fallback("1e-06")});
  return parameters;
}

json sgd_manifest(const Values& v) {
  json j = bound::walk_manifest(bound::walk_values(v));
  j.update({{"lipschitz", v.real("lipschitz")},
            {"eps", v.real(v.has("eps0") ? "eps0" : "epsilon")},
            {"delta", v.real("delta")}});
  return j;
}

namespace {

/// sigma, alpha, slope factor and horizon are sgd-rdp's; the other subcommands keep their defaults.
bounds::SgdParams sgd_params(const Values& v) {
  const bound::WalkValues w = bound::walk_values(v);
  bounds::SgdParams p;
  p.steps = w.steps;
  p.steps_per_node = w.steps_per_node;
  p.lipschitz = v.real("lipschitz");
  p.epsilon = v.real("eps0");
  p.delta = v.real("delta");
  p.sigma = v.has("sigma") ? v.real("sigma") : 0;
  p.alpha = v.has("alpha") ? v.real("alpha") : 2;
  p.slope_factor = v.has("slope-factor") ? v.real("slope-factor") : 4;
  p.horizon = bounds::parse_sgd_horizon(v.has("horizon") ? v.text("horizon") : "infinite");
  p.contributions = bound::contribution_options(w);
  p.composition = bounds::parse_composition(w.composition);
  p.delta_prime = w.delta_prime;
  p.colluders = w.colluders;
  p.sender_known = w.sender_known;
  p.delta_tilde = w.delta_tilde;
  return p;
}

}  // namespace

Model sgd_rdp_bound_model() {
  using namespace declare;
  std::vector<Parameter> parameters = sgd_parameters("1");
  append(
      parameters,
      {real("eps0", "local (eps0, delta) level of a noisy gradient (sets sigma)").fallback("1").alias("eps"),
       real("sigma", "absolute noise std instead of eps0 (0 = from eps0)")
           .unit(units::absolute_std)
           .fallback("0"),
       real("alpha", "Renyi order reported").fallback("2"),
       real("slope-factor", "4 (thesis, Delta = 2L), 2 (reference code), 1 (Delta = L)")
           .fallback("4")
           .choices({"1", "2", "4"}),
       choice("horizon", "infinite (ln n, the thesis) or finite (exact sum up to T)", {"infinite", "finite"})
           .fallback("infinite")});
  return bound::bound_model(
      "sgd-rdp",
      "network RDP of random-walk DP-SGD on the complete graph (4.3.1, Prop D.11) and its (eps, delta) "
      "conversion; T = 10 n by default",
      std::move(parameters), [](const Values& v) {
        const bounds::SgdParams p = sgd_params(v);
        json parameters = sgd_manifest(v);
        parameters.update({{"sigma", v.real("sigma")},
                           {"alpha", v.real("alpha")},
                           {"slope_factor", v.real("slope-factor")},
                           {"horizon", v.text("horizon")}});
        return bound::BoundRun{"sgd-rdp", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::sgd_network_rdp(n, p).columns(); }};
      });
}

Model sgd_closed_form_bound_model() {
  using namespace declare;
  std::vector<Parameter> parameters = sgd_parameters("1");
  append(parameters,
         {real("eps0", "local (eps0, delta) level of a noisy gradient (< 1)").fallback("0.5").alias("eps")});
  return bound::bound_model(
      "sgd-closed-form",
      "Thm 7.2 closed form for random-walk DP-SGD on the complete graph (4.3.2); T = 10 n by default",
      std::move(parameters), [](const Values& v) {
        const bounds::SgdParams p = sgd_params(v);
        return bound::BoundRun{"sgd-closed-form", sgd_manifest(v), [p] { bounds::validate(p); },
                               [p](double n) { return bounds::sgd_closed_form(n, p).columns(); }};
      });
}

}  // namespace netdp::jobs
