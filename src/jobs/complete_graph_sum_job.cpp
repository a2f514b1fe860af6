// `bound complete-sum`: real summation by a random walk on the complete graph (docs/math.md §4.1) over a grid
// of n.
#include "jobs/bound_job.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/complete_graph_sum.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

Model complete_sum_bound_model() {
  using namespace declare;
  std::vector<Parameter> parameters = bound::walk_grid_parameters("100", "1e-07");
  append(
      parameters,
      {choice("analysis",
              "thesis: sqrt(n) amplification per cycle (4.1.1); preprint: n^{1/3}, c tuned (4.1.2)",
              {"thesis", "preprint"})
           .fallback("thesis"),
       real("eps0", "LDP level eps0 of one contribution: every Gaussian contribution is (eps0, delta)-LDP")
           .fallback("0.1")
           .alias("eps"),
       real("delta", "delta of every contribution").fallback("1e-07"),
       choice("cycle-bound",
              "thesis per-cycle level: closed (3 eps/sqrt(n), needs eps <= 1) or exact_max (max over m <= n)",
              {"closed", "exact_max"})
           .fallback("closed"),
       choice(
           "delta-cycle",
           "thesis per-cycle delta: assume_delta (the figures), k_delta, group_privacy, exact_gaussian (the "
           "last two need integer n)",
           {"assume_delta", "k_delta", "group_privacy", "exact_gaussian"})
           .fallback("assume_delta")});
  return bound::bound_model("complete-sum",
                            "real summation by a random walk on the complete graph (4.1, Thm 7.1 / [S2] Thm "
                            "3) and its LDP analogue; "
                            "T = 100 n by default",
                            std::move(parameters), [](const Values& v) {
                              const bound::WalkValues w = bound::walk_values(v);
                              bounds::CompleteSumParams p;
                              bound::set_walk_fields(p, v, w);
                              p.cycle_bound = bounds::parse_cycle_bound(v.text("cycle-bound"));
                              p.delta_cycle = bounds::parse_delta_cycle_rule(v.text("delta-cycle"));
                              const bounds::SumAnalysis a = bounds::parse_sum_analysis(v.text("analysis"));
                              json parameters = bound::walk_manifest(w);
                              parameters.update({{"analysis", v.text("analysis")},
                                                 {"eps", p.epsilon},
                                                 {"delta", p.delta},
                                                 {"cycle_bound", v.text("cycle-bound")},
                                                 {"delta_cycle", v.text("delta-cycle")}});
                              return bound::BoundRun{
                                  "complete-sum", parameters, [p] { bounds::validate(p); },
                                  [p, a](double n) { return bounds::complete_sum(a, n, p).columns(); }};
                            });
}

}  // namespace netdp::jobs
