// `netdp mf-sgd` (docs/mf.md "netdp mf-sgd"): MF-D-SGD on a graph with a correlation family, utility curves
// over runs and the privacy of the factorization.
#include "netdp/jobs/mf_sgd_job.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/mf_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/io/results_dir.hpp"
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
}

namespace {

std::string curves_csv(const mf::MfSgdResult& r) {
  std::ostringstream csv;
  csv << "step";
  for (const char* name : {"objective", "test_loss", "accuracy", "consensus"})
    for (const char* stat : {"mean", "std", "min", "max"}) csv << ',' << name << '_' << stat;
  csv << '\n';
  for (std::size_t e = 0; e < r.step.size(); ++e) {
    csv << r.step[e];
    for (const RunStatistics* s : {&r.objective, &r.test_loss, &r.accuracy, &r.consensus})
      csv << jobs::statistics_cells(*s, e);
    csv << '\n';
  }
  return csv.str();
}

}  // namespace

json run_mf_sgd_job(const MfSgdJob& job) {
  const Stopwatch clock;
  check_mf_sgd_job(job);
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

  ResultsDir out(job.out_dir);
  out.write_text("curves.csv", curves_csv(r));
  mf::write_npy_matrix(out.file("C.npy").string(), mf::stack_rows(setup.c));
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
  return publish_results(out, summary, std::move(manifest), json::array({"curves.csv", "C.npy"}),
                         clock.seconds());
}

namespace jobs {

namespace {

MfSgdJob mf_sgd_job(const Values& v, const RunContext& context) {
  MfSgdJob job;
  job.spec = mf_spec(v);
  auto& p = job.params;
  p.objective = parse_objective(v.text("objective"));
  p.step_size = v.real("step-size");
  p.clip = v.real("clip");
  p.sigma = v.real("noise-multiplier");  // MfSgdParams::sigma is the multiplier (docs/mf.md)
  p.l2 = v.real("l2");
  p.runs = v.integer("runs");
  p.seed = v.natural("seed");
  if (v.has("eval-every")) {
    p.eval_every = v.integer("eval-every");
    job.eval_every_given = true;
  }
  job.alpha = v.real("alpha");
  job.delta = v.real("delta");
  job.data = learning_data_spec(v);
  set_run_context(job, context);
  return job;
}

}  // namespace

Model mf_sgd_model() {
  using namespace declare;
  Model m;
  m.name = "mf-sgd";
  m.example =
      "--graph er:n=10,p=0.4,seed=1 --steps 8 --participation cyclic:b=2,k=4 --correlation antipgd "
      "--noise-multiplier 2 "
      "--runs 3 --synthetic-rows 400 --out out/mf-sgd";
  m.help =
      "MF-D-SGD (Algorithm 1): local SGD steps with correlated noise C^-1 Z, then gossip; utility over runs "
      "and the privacy of the factorization";
  m.parameters = mf_parameters(true);
  append(
      m.parameters,
      {choice("objective", "least-squares | logistic | quadratic", {"least-squares", "logistic", "quadratic"})
           .fallback("least-squares"),
       real("step-size", "step size eta").fallback("0.1").range(above(0)),
       real("clip", "per-example clipping norm (the sensitivity of a gradient)")
           .fallback("1")
           .range(above(0)),
       // A noise multiplier, not an absolute std (issue 29): --sigma is its deprecated spelling.
       real(
           "noise-multiplier",
           "noise std over the sensitivity clip sens_Pi(C): every node's release is (1/noise-multiplier)-GDP "
           "under LDP; 0 = no noise")
           .fallback("1")
           .range(at_least(0))
           .unit(units::noise_multiplier)
           .alias("sigma"),
       real("l2", "ridge term mu/2 ||theta||^2").fallback("0").range(at_least(0)),
       integer("runs", "independent runs R").fallback("5").range(at_least(1)),
       natural("seed", "Philox seed of the noise").fallback("0")});
  append(m.parameters, learning_data_parameters(
                           {"4000", "the test loss", "Philox seed of the synthetic data and the split"}));
  append(m.parameters, {integer("eval-every", "evaluate every e steps (default T/50)").range(at_least(1)),
                        real("alpha", "Renyi order of the reported RDP").fallback("2").range(above(1)),
                        real("delta", "delta of the reported epsilon").fallback("1e-06"), threads_parameter(),
                        out_parameter(), quiet_parameter()});
  m.validate = [](const Values& v) { check_mf_sgd_job(mf_sgd_job(v, {})); };
  m.execute = [](const Values& v, const RunContext& c) { return run_mf_sgd_job(mf_sgd_job(v, c)); };
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
  m.resources = [](const Values& v) {
    const GraphSize g = graph_size(v.text("graph"));
    const LearningRunSize z = learning_run_size(v);
    return Estimate{16 * z.rows * z.dim + 8 * g.n * z.steps * z.dim * 2,
                    z.runs * z.steps * (z.rows * z.dim * 4 + g.m * z.dim) / 3e8};
  };
  return m;
}

}  // namespace jobs

}  // namespace netdp
