// `bound complete-histogram`: histograms by a random walk on the complete graph (docs/math.md §4.2) over a
// grid of n.
#include "jobs/bound_job.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/complete_graph_histogram.hpp"

namespace netdp::jobs {

namespace {

struct CompleteHistogramJob : bound::WalkParamsJob<bounds::CompleteHistogramParams> {
  std::string analysis = "numerical";
};

}  // namespace

Model complete_histogram_bound_model() {
  using namespace declare;
  using Job = CompleteHistogramJob;
  Binding<Job> bind;
  std::vector<Parameter> parameters = bound::walk_grid_parameters(bind, "100", "1e-07");
  append(parameters,
         {bind(choice("analysis",
                      "closed: Thm D.1; numerical: un-simplified SH2 and SS2, max over cycle lengths (Remark "
                      "D.2); "
                      "preprint: [S2] Thm 6 with c tuned",
                      {"closed", "numerical", "preprint"})
                   .fallback("numerical"),
               &Job::analysis),
          bind(real("eps0", "LDP level eps0 of each RR_gamma contribution").fallback("0.5").alias("eps"),
               &Job::p, &bounds::CompleteHistogramParams::epsilon),
          bind(real("delta", "delta of the shuffling bound (SH2)").fallback("1e-07"), &Job::p,
               &bounds::CompleteHistogramParams::delta),
          bind(integer("categories", "histogram size L").fallback("2"), &Job::p,
               &bounds::CompleteHistogramParams::categories)});
  return bound::bound_model<Job>(
      "complete-histogram",
      "histograms (RR_gamma contributions) by a random walk on the complete graph (4.2, Thm D.1 / [S2] Thm "
      "6); "
      "T = 100 n by default",
      std::move(parameters), bind, [](const Job& job) {
        const bounds::CompleteHistogramParams p = job.walk_params();
        const bounds::HistogramAnalysis a = bounds::parse_histogram_analysis(job.analysis);
        return bound::walk_bound_run(
            "complete-histogram", job.walk, job.analysis, p, {{"categories", p.categories}},
            [p, a](double n) { return bounds::complete_histogram(a, n, p).columns(); });
      });
}

}  // namespace netdp::jobs
