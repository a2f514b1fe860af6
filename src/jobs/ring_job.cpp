// `bound ring-sum` and `bound ring-histogram`: a token on a directed ring, K turns (docs/math.md §3), over a
// grid of n.
#include "jobs/bound_job.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/ring.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

namespace {

std::vector<Parameter> ring_parameters() {
  using namespace declare;
  std::vector<Parameter> parameters = bound::grid_parameters();
  append(parameters, {integer("turns", "K full turns of the token").fallback("1"),
                      real("delta", "delta").fallback("1e-06"),
                      real("delta-prime", "composition slack delta'").fallback("1e-06"),
                      choice("composition", "advanced (C2, Thm 5.5 / 5.7), optimal_min (C3) or simple (C1)",
                             {"optimal_min", "optimal-min", "advanced", "simple"})
                          .fallback("advanced"),
                      integer("colluders", "2 or more colluders break network DP on the ring (eps = inf)")
                          .fallback("1")
                          .range(at_least(1))});
  return parameters;
}

json ring_manifest(const Values& v) {
  return {{"turns", v.integer("turns")},
          {"eps", v.real("eps0")},
          {"delta", v.real("delta")},
          {"delta_prime", v.real("delta-prime")},
          {"composition", bounds::to_string(bounds::parse_composition(v.text("composition")))},
          {"colluders", double(v.integer("colluders"))}};
}

}  // namespace

Model ring_sum_bound_model() {
  using namespace declare;
  std::vector<Parameter> parameters = ring_parameters();
  append(parameters, {real("eps0", "Perturb is (eps0, delta)-LDP").fallback("1").alias("eps"),
                      real("sensitivity", "Delta, for sigma_loc").fallback("1")});
  return bound::bound_model(
      "ring-sum", "real summation by a token on a directed ring, K turns (3.1, Thm 5.5)",
      std::move(parameters), [](const Values& v) {
        bounds::RingSumParams p;
        p.turns = static_cast<int>(v.integer("turns"));
        p.epsilon = v.real("eps0");
        p.delta = v.real("delta");
        p.delta_prime = v.real("delta-prime");
        p.sensitivity = v.real("sensitivity");
        p.composition = bounds::parse_composition(v.text("composition"));
        p.colluders = double(v.integer("colluders"));
        json parameters = ring_manifest(v);
        parameters["sensitivity"] = p.sensitivity;
        return bound::BoundRun{"ring-sum", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::ring_sum(n, p).columns(); }};
      });
}

Model ring_histogram_bound_model() {
  using namespace declare;
  std::vector<Parameter> parameters = ring_parameters();
  append(parameters, {real("eps0", "per-cycle level eps0 after shuffling (SH1); Thm 5.7 needs eps0 < 1/2")
                          .fallback("0.25")
                          .alias("eps"),
                      integer("categories", "histogram size L").fallback("2"),
                      choice("gamma", "corrected (docs/math.md §3.2) or literal (as printed, inverted)",
                             {"corrected", "literal"})
                          .fallback("corrected")});
  return bound::bound_model(
      "ring-histogram", "histograms by a token on a directed ring, K turns (3.2, Thm 5.7)",
      std::move(parameters), [](const Values& v) {
        bounds::RingHistogramParams p;
        p.turns = static_cast<int>(v.integer("turns"));
        p.epsilon = v.real("eps0");
        p.delta = v.real("delta");
        p.delta_prime = v.real("delta-prime");
        p.categories = static_cast<int>(v.integer("categories"));
        p.gamma_rule = bounds::parse_histogram_gamma(v.text("gamma"));
        p.composition = bounds::parse_composition(v.text("composition"));
        p.colluders = double(v.integer("colluders"));
        json parameters = ring_manifest(v);
        parameters.update({{"categories", p.categories}, {"gamma", v.text("gamma")}});
        return bound::BoundRun{"ring-histogram", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::ring_histogram(n, p).columns(); }};
      });
}

}  // namespace netdp::jobs
