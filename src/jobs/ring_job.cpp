// `bound ring-sum` and `bound ring-histogram`: a token on a directed ring, K turns (docs/math.md §3), over a
// grid of n.
#include "jobs/bound_job.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/bounds/ring.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

namespace {

/// A ring bound's job: its parameters `p` (RingSumParams or RingHistogramParams) and the composition and
/// gamma as given.
template <class Params>
struct RingJob : bound::BoundJob {
  Params p;
  std::string composition = "advanced", gamma = "corrected";
};

/// The grid and the options both ring bounds share, bound to job.p.
template <class Job>
std::vector<Parameter> ring_parameters(Binding<Job>& bind) {
  using namespace declare;
  std::vector<Parameter> parameters = bound::grid_parameters(bind);
  append(parameters,
         {bind(integer("turns", "K full turns of the token").fallback("1"),
               [](Job& job, int turns) { job.p.turns = turns; }),
          bind(real("delta", "delta").fallback("1e-06"), [](Job& job, double delta) { job.p.delta = delta; }),
          bind(real("delta-prime", "composition slack delta'").fallback("1e-06"),
               [](Job& job, double delta) { job.p.delta_prime = delta; }),
          bind(choice("composition", "advanced (C2, Thm 5.5 / 5.7), optimal_min (C3) or simple (C1)",
                      {"optimal_min", "optimal-min", "advanced", "simple"})
                   .fallback("advanced"),
               [](Job& job, const std::string& composition) {
                 job.composition = composition;
                 job.p.composition = bounds::parse_composition(composition);
               }),
          bind(integer("colluders", "2 or more colluders break network DP on the ring (eps = inf)")
                   .fallback("1")
                   .range(at_least(1)),
               [](Job& job, int colluders) { job.p.colluders = colluders; })});
  return parameters;
}

template <class Params>
json ring_manifest(const RingJob<Params>& job) {
  return {{"turns", job.p.turns},
          {"eps", job.p.epsilon},
          {"delta", job.p.delta},
          {"delta_prime", job.p.delta_prime},
          {"composition", bounds::to_string(bounds::parse_composition(job.composition))},
          {"colluders", job.p.colluders}};
}

}  // namespace

Model ring_sum_bound_model() {
  using namespace declare;
  using Job = RingJob<bounds::RingSumParams>;
  Binding<Job> bind;
  std::vector<Parameter> parameters = ring_parameters(bind);
  append(parameters, {bind(real("eps0", "Perturb is (eps0, delta)-LDP").fallback("1").alias("eps"), &Job::p,
                           &bounds::RingSumParams::epsilon),
                      bind(real("sensitivity", "Delta, for sigma_loc").fallback("1"), &Job::p,
                           &bounds::RingSumParams::sensitivity)});
  return bound::bound_model<Job>(
      "ring-sum", "real summation by a token on a directed ring, K turns (3.1, Thm 5.5)",
      std::move(parameters), bind, [](const Job& job) {
        const bounds::RingSumParams p = job.p;
        json parameters = ring_manifest(job);
        parameters["sensitivity"] = p.sensitivity;
        return bound::BoundRun{"ring-sum", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::ring_sum(n, p).columns(); }};
      });
}

Model ring_histogram_bound_model() {
  using namespace declare;
  using Job = RingJob<bounds::RingHistogramParams>;
  Binding<Job> bind;
  std::vector<Parameter> parameters = ring_parameters(bind);
  append(parameters,
         {bind(real("eps0", "per-cycle level eps0 after shuffling (SH1); Thm 5.7 needs eps0 < 1/2")
                   .fallback("0.25")
                   .alias("eps"),
               &Job::p, &bounds::RingHistogramParams::epsilon),
          bind(integer("categories", "histogram size L").fallback("2"), &Job::p,
               &bounds::RingHistogramParams::categories),
          bind(choice("gamma", "corrected (docs/math.md §3.2) or literal (as printed, inverted)",
                      {"corrected", "literal"})
                   .fallback("corrected"),
               [](Job& job, const std::string& gamma) {
                 job.gamma = gamma;
                 job.p.gamma_rule = bounds::parse_histogram_gamma(gamma);
               })});
  return bound::bound_model<Job>(
      "ring-histogram", "histograms by a token on a directed ring, K turns (3.2, Thm 5.7)",
      std::move(parameters), bind, [](const Job& job) {
        const bounds::RingHistogramParams p = job.p;
        json parameters = ring_manifest(job);
        parameters.update({{"categories", p.categories}, {"gamma", job.gamma}});
        return bound::BoundRun{"ring-histogram", parameters, [p] { bounds::validate(p); },
                               [p](double n) { return bounds::ring_histogram(n, p).columns(); }};
      });
}

}  // namespace netdp::jobs
