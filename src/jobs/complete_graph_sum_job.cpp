// `bound complete-sum`: real summation by a random walk on the complete graph (docs/math.md §4.1) over a grid
// of n.
#include "jobs/bound_job.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/complete_graph_sum.hpp"

namespace netdp::jobs {

namespace {

struct CompleteSumJob : bound::WalkParamsJob<bounds::CompleteSumParams> {
  std::string analysis = "thesis", cycle_bound = "closed", delta_cycle = "assume_delta";
};

}  // namespace

Model complete_sum_bound_model() {
  using namespace declare;
  using Job = CompleteSumJob;
  Binding<Job> bind;
  std::vector<Parameter> parameters = bound::walk_grid_parameters(bind, "100", "1e-07");
  append(
      parameters,
      {bind(choice("analysis",
                   "thesis: sqrt(n) amplification per cycle (4.1.1); preprint: n^{1/3}, c tuned (4.1.2)",
                   {"thesis", "preprint"})
                .fallback("thesis"),
            &Job::analysis),
       bind(real("c",
                 "preprint analysis: its free constant c, fixed for every n (0 = tuned for each n, the "
                 "smallest "
                 "eps; docs/math.md §4.1.2)")
                .fallback("0")
                .range(at_least(0))
                .needs("analysis", {"preprint"}),
            &Job::p, &bounds::CompleteSumParams::preprint_c),
       bind(real("eps0",
                 "LDP level eps0 of one contribution: every Gaussian contribution is (eps0, delta)-LDP")
                .fallback("0.1")
                .alias("eps"),
            &Job::p, &bounds::CompleteSumParams::epsilon),
       bind(real("delta", "delta of every contribution").fallback("1e-07"), &Job::p,
            &bounds::CompleteSumParams::delta),
       bind(choice(
                "cycle-bound",
                "thesis per-cycle level: closed (3 eps/sqrt(n), needs eps <= 1) or exact_max (max over m <= "
                "n)",
                {"closed", "exact_max"})
                .fallback("closed"),
            &Job::cycle_bound),
       bind(choice(
                "delta-cycle",
                "thesis per-cycle delta: assume_delta (the figures), k_delta, group_privacy, exact_gaussian "
                "(the "
                "last two need integer n)",
                {"assume_delta", "k_delta", "group_privacy", "exact_gaussian"})
                .fallback("assume_delta"),
            &Job::delta_cycle)});
  return bound::bound_model<Job>(
      "complete-sum",
      "real summation by a random walk on the complete graph (4.1, Thm 7.1 / [S2] Thm "
      "3) and its LDP analogue; "
      "T = 100 n by default",
      std::move(parameters), bind, [](const Job& job) {
        bounds::CompleteSumParams p = job.walk_params();
        p.cycle_bound = bounds::parse_cycle_bound(job.cycle_bound);
        p.delta_cycle = bounds::parse_delta_cycle_rule(job.delta_cycle);
        const bounds::SumAnalysis a = bounds::parse_sum_analysis(job.analysis);
        return bound::walk_bound_run(
            "complete-sum", job.walk, job.analysis, p,
            {{"cycle_bound", job.cycle_bound}, {"delta_cycle", job.delta_cycle}, {"c", p.preprint_c}},
            [p, a](double n) { return bounds::complete_sum(a, n, p).columns(); });
      });
}

}  // namespace netdp::jobs
