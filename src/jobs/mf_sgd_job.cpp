// `netdp mf-sgd` (docs/mf.md "netdp mf-sgd"): MF-D-SGD on a graph with a correlation family, utility curves
// over runs and the privacy of the factorization.
#include "netdp/jobs/mf_sgd_job.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/mf_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/io/csv_table.hpp"
#include "netdp/mf/mf_trust.hpp"

namespace netdp {

using json = nlohmann::json;

void check_mf_sgd_job(const MfSgdJob& job) {
  check_mf_spec(job.spec, true);
  const auto& p = job.params;
  if (!(p.step_size > 0))
    throw InvalidParameter("step-size", "step-size must be > 0, got " + format_double(p.step_size));
  if (!(p.clip > 0)) throw InvalidParameter("clip", "clip must be > 0, got " + format_double(p.clip));
  if (!(p.sigma >= 0))
    throw InvalidParameter("noise-multiplier",
                           "noise-multiplier must be >= 0, got " + format_double(p.sigma));
  if (!(job.alpha > 1)) throw InvalidParameter("alpha", "alpha must be > 1, got " + format_double(job.alpha));
  if (!(job.delta > 0 && job.delta < 1))
    throw InvalidParameter("delta", "delta must be in (0, 1), got " + format_double(job.delta));
  if (!(job.data.test_fraction >= 0 && job.data.test_fraction < 1))
    throw InvalidParameter("test-fraction",
                           "test-fraction must be in [0, 1), got " + format_double(job.data.test_fraction));
  if (job.data.synthetic_rows < 2 || job.data.synthetic_rows >= (std::int64_t{1} << 31))
    throw InvalidParameter("synthetic-rows", "synthetic-rows must be in [2, 2^31), got " +
                                                 std::to_string(job.data.synthetic_rows));
  // A data file is read whole and checked (shape, finiteness, labels; file:line) before any work.
  if (!job.data.csv.empty()) (void)read_csv_data(job.data.csv, p.objective, 1);
}

namespace {

/// The curves of a run that diverged (a step size too large for the data) hold inf or NaN: the run stops
/// before they reach a file (docs/reliability.md §1 "No non-finite number in an output").
void require_finite_mf_curves(const mf::MfSgdResult& r) {
  for (const auto& [name, s] : {std::pair{"the training objective", &r.objective},
                                {"the test loss", &r.test_loss},
                                {"the consensus distance", &r.consensus}})
    for (std::size_t e = 0; e < s->mean.size(); ++e) {
      require_finite(s->max[e], std::string(name) + " at step " + std::to_string(r.step[e]),
                     "lower step-size");
      require_finite(s->std[e], std::string(name) + " at step " + std::to_string(r.step[e]),
                     "lower step-size");
    }
  for (const double x : r.noise_std) require_finite(x, "the noise std", "lower noise-multiplier or clip");
}

}  // namespace

namespace {

CsvTable curves_table(const mf::MfSgdResult& r) {
  CsvTable csv("curves.csv", jobs::statistics_columns({"objective", "test_loss", "accuracy", "consensus"}));
  for (std::size_t e = 0; e < r.step.size(); ++e) {
    std::vector<CsvCell> row{r.step[e]};
    for (const RunStatistics* s : {&r.objective, &r.test_loss, &r.accuracy, &r.consensus})
      jobs::append_statistics(row, *s, e);
    csv.row(row);
  }
  return csv;
}

}  // namespace

RunResult run_mf_sgd_job(const MfSgdJob& job) {
  const Stopwatch clock;
  const MfSetup setup = mf_setup(job.spec);
  mf::MfSgdParams p = job.params;
  p.participation = setup.participation;
  const LearningSplit split = load_learning_split(job.data, p.objective, setup.g.n);
  if (!job.eval_every_given)
    p.eval_every = std::max<std::int64_t>(1, p.participation.steps() / job.eval_points);
  ProgressLine progress("mf-sgd", "of the runs", job.progress);
  const mf::MfSgdResult r =
      mf::mf_sgd(setup.w, setup.c, split.train, split.test, p, [&](double f) { progress.update(f); });
  progress.finish();
  require_finite_mf_curves(r);

  RunResult result;
  result.node_ids = setup.g.file_ids;  // node_map.csv for a renumbered file graph
  result.add(curves_table(r));
  const mf::Matrix c = mf::stack_rows(setup.c);
  result.matrix("C.npy", c.rows, c.cols, c.a);
  json summary = {{"model", "mf-sgd"}};
  summary.update(mf_description(job.spec, setup));
  summary.update(mf_workload_losses(setup));
  // Under LDP every node's release is (1/sigma)-GDP by the calibration s_u = clip sigma sens_Pi(C_u)
  // (docs/math.md §9.4); no noise: +inf.
  const bool noiseless =
      p.sigma == 0 || std::all_of(r.noise_std.begin(), r.noise_std.end(), [](double s) { return s == 0.0; });
  const double mu = noiseless ? INFINITY : 1.0 / p.sigma;
  summary.update({
      {"objective", to_string(p.objective)},
      {"runs", p.runs},
      {"step_size", p.step_size},
      {"clip", p.clip},
      // noise_multiplier is the name since issue 29; sigma, the same number, stays for one release
      // (docs/outputs.md "mf-sgd").
      {"noise_multiplier", p.sigma},
      {"sigma", p.sigma},
      {"l2", p.l2},
      {"noise_std", r.noise_std.size() == 1 ? json(r.noise_std[0]) : json(r.noise_std)},
      {"privacy",
       {{"trust", "ldp"},
        {"mu", jobs::finite_or_null(mu)},
        {"alpha", job.alpha},
        {"rdp", jobs::finite_or_null(noiseless ? INFINITY : job.alpha * mu * mu / 2)},
        {"delta", job.delta},
        {"epsilon", jobs::finite_or_null(noiseless ? INFINITY : dp::gdp_epsilon(mu, job.delta))}}},
      {"final",
       {{"objective", jobs::final_statistics_json(r.objective)},
        {"test_loss", jobs::final_statistics_json(r.test_loss)},
        {"accuracy", jobs::final_statistics_json(r.accuracy)},
        {"consensus", jobs::final_statistics_json(r.consensus)}}},
      {"seconds_runs", r.seconds},
      {"threads", r.threads},
      {"seconds", clock.seconds()},
  });
  summary.update(jobs::learning_split_json(split));
  json manifest = manifest_header("mf-sgd", job.invocation);
  manifest["parameters"] = mf_spec_manifest(job.spec);
  manifest["parameters"].update(jobs::learning_data_json(job.data));
  manifest["parameters"].update({{"seed", p.seed}, {"eval_every", p.eval_every}});
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model mf_sgd_model() {
  using namespace declare;
  Model m = named_model(
      "mf-sgd",
      "MF-D-SGD (Algorithm 1): local SGD steps with correlated noise C^-1 Z, then gossip; utility over runs "
      "and the privacy of the factorization",
      "--graph er:n=10,p=0.4,seed=1 --steps 8 --participation cyclic:b=2,k=4 --correlation antipgd "
      "--noise-multiplier 2 "
      "--runs 3 --synthetic-rows 400 --out out/mf-sgd");
  using Job = MfSgdJob;
  Binding<Job> bind;
  m.parameters = mf_parameters(bind, true);
  append(m.parameters, {bind(choice("objective", "least-squares | logistic | quadratic",
                                    {"least-squares", "logistic", "quadratic"})
                                 .fallback("least-squares"),
                             [](Job& job, const std::string& objective) {
                               job.params.objective = parse_objective(objective);
                             }),
                        bind(real("step-size", "step size eta").fallback("0.1").range(above(0)), &Job::params,
                             &mf::MfSgdParams::step_size),
                        bind(real("clip", "per-example clipping norm (the sensitivity of a gradient)")
                                 .fallback("1")
                                 .range(above(0)),
                             &Job::params, &mf::MfSgdParams::clip),
                        // A noise multiplier, not an absolute std (issue 29): --sigma is its deprecated
                        // spelling; MfSgdParams::sigma is the multiplier (docs/mf.md).
                        bind(noise_multiplier("noise std over the sensitivity clip sens_Pi(C): every node's "
                                              "release is (1/noise-multiplier)-GDP under LDP; 0 = no noise",
                                              at_least(0)),
                             &Job::params, &mf::MfSgdParams::sigma),
                        bind(real("l2", "ridge term mu/2 ||theta||^2").fallback("0").range(at_least(0)),
                             &Job::params, &mf::MfSgdParams::l2),
                        bind(integer("runs", "independent runs R").fallback("5").range(at_least(1)),
                             [](Job& job, int runs) { job.params.runs = runs; }),
                        bind(natural("seed", "Philox seed of the noise").fallback("0"), &Job::params,
                             &mf::MfSgdParams::seed)});
  // The rows, bound to job.data as the learning models bind them (convex_model_job_parts.hpp).
  std::vector<Parameter> data = learning_data_parameters(
      bind, {"4000", "the test loss", "Philox seed of the synthetic data and the split"});
  append(m.parameters, data);
  append(m.parameters,
         {bind(integer("eval-every", "evaluate every e steps (default T/50)").range(at_least(1)),
               [](Job& job, int every) {
                 job.params.eval_every = every;
                 job.eval_every_given = true;
               }),
          bind(real("alpha", "Renyi order of the reported RDP").fallback("2").range(above(1)), &Job::alpha),
          bind(real("delta", "delta of the reported epsilon").fallback("1e-06"), &Job::delta),
          threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_mf_sgd_job);
  m.execute = bind.run(run_mf_sgd_job);
  m.describe = [](const json& s, const RunContext& c) {
    const json& f = s["final"];
    const json& eps = s["privacy"]["epsilon"];
    return format_line(
        "mf-sgd: %s, n = %d, T = %d, R = %lld, noise multiplier %.6g, epsilon %.6g, final objective %.6g, "
        "test loss %.6g, %.3f s -> %s\n",
        s["correlation_name"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<int>(),
        s["runs"].get<long long>(), s["noise_multiplier"].get<double>(),
        eps.is_null() ? INFINITY : eps.get<double>(), f["objective"]["mean"].get<double>(),
        f["test_loss"]["mean"].get<double>(), s["seconds"].get<double>(), c.out_dir.string().c_str());
  };
  // The rows (16 bytes per value), the iterates (n d per run, two copies) and C's T x T matrices, held whole:
  // Model::run refuses what does not fit.
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.spec.graph);
    const double rows = double(job.data.synthetic_rows), dim = double(job.data.synthetic_dim) + 1,
                 steps = job.spec.steps, runs = double(job.params.runs);
    const double required =
        16 * rows * dim + 8 * g.n * dim * 2 + mf_required_bytes(job.spec, node_t(std::min(g.n, 1e9)));
    return Estimate{required + 8 * g.n * steps * dim * 2, runs * steps * (rows * dim * 4 + g.m * dim) / 3e8,
                    required};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
