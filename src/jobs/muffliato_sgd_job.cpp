// `netdp muffliato-sgd` (docs/muffliato_sgd.md): Muffliato-SGD on the learning data of walk-sgd with its
// noise calibrated to a target mean privacy loss (docs/math.md §6.1), the gossip side of Table 7.1.
#include "netdp/jobs/muffliato_sgd_job.hpp"

#include <cmath>
#include <cstdio>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

json run_muffliato_sgd_job(const MuffliatoSgdJob& job) {
  const Stopwatch clock;
  MuffliatoGdParams p = job.params;
  if (job.sigma && job.target_mean_loss > 0)
    throw InvalidParameter("target-mean-loss", "target-mean-loss and sigma exclude each other");
  if (!job.sigma && !(job.target_mean_loss > 0))
    throw InvalidParameter("target-mean-loss", "give target-mean-loss > 0 or sigma");
  const JobGraph jg =
      load_job_graph(job.graph, parse_weights_spec(job.weights), p.gap_definition, true, job.progress);
  p.spectral_gap = jg.gap;
  p.gossip_steps = job.gossip_steps ? *job.gossip_steps : muffliato_sgd_gossip_steps(jg.g.n, jg.gap);
  const LearningSplit split = load_learning_split(job.data, p.objective, jg.g.n);
  const double sensitivity = job.sensitivity > 0 ? job.sensitivity : 2 * p.clip;
  const bool all_pairs = job.statistic == TargetStatistic::all_pairs;
  const double at_one =
      muffliato_sgd_mean_loss(jg.g, p.gossip_steps, p.steps, job.alpha, job.composition, all_pairs);
  double sigma = 0, multiplier = 0;
  if (job.sigma) {
    sigma = *job.sigma;
  } else {
    if (!(at_one > 0))
      throw InvalidParameter("target-mean-loss",
                             "target-mean-loss: the graph has no edge, nothing to calibrate");
    multiplier = std::sqrt(at_one / job.target_mean_loss);  // eps_bar scales as 1 / multiplier^2
    sigma = multiplier * sensitivity;
  }
  // The engine's reference-code order draws sigma / 2 (muffliato_gd.md): hand it 2 sigma so that the
  // gradient noise std is sigma in both orders.
  p.sigma = p.noise_order == NoiseOrder::reference_code ? 2 * sigma : sigma;
  ProgressLine progress("muffliato-sgd", "of the runs", job.progress);
  const MuffliatoSgdResult r =
      muffliato_sgd(jg.g, jg.w, split.train, split.test, p, [&](double f) { progress.update(f); });
  progress.finish();
  const double spent = sigma > 0 ? at_one * sensitivity * sensitivity / (sigma * sigma) : INFINITY;

  ResultsDir out(job.out_dir);
  out.write_text("curves.csv", jobs::learning_curves_csv(r.step, r.objective, r.accuracy, "consensus_mean",
                                                         r.consensus.mean));
  json summary = {
      {"model", "muffliato-sgd"},
      {"graph", job.graph},
      {"weights", job.weights},
      {"objective", to_string(p.objective)},
      {"n", jg.g.n},
      {"participations", p.steps},
      {"gossip_steps", p.gossip_steps},
      {"spectral_gap", r.spectral_gap},
      {"gamma", r.gamma},
      {"runs", p.runs},
      {"step_size", p.step_size},
      {"clip", p.clip},
      {"clip_order", p.noise_order == NoiseOrder::reference_code ? "after-noise" : "per-example"},
      {"batch", p.batch},
      {"l2", p.l2},
      {"sigma", sigma},
      {"sigma_source", job.sigma ? "given" : "mean-loss"},
      {"mean_loss", jobs::finite_or_null(spent)},
      {"calibration",
       {{"target_mean_loss", job.target_mean_loss},
        {"statistic", jobs::to_string(job.statistic)},
        {"alpha", job.alpha},
        {"composition", job.composition == MuffliatoSgdComposition::squared ? "squared" : "participations"},
        {"statistic_at_one", at_one},
        {"multiplier", multiplier},
        {"sensitivity", sensitivity}}},
      {"final",
       {{"objective", jobs::final_statistics_json(r.objective)},
        {"accuracy", jobs::final_statistics_json(r.accuracy)},
        {"consensus", jobs::finite_or_null(r.consensus.mean.back())}}},
      {"seconds_runs", r.seconds},
      {"threads", r.threads},
  };
  summary.update(jobs::learning_split_json(split));
  const std::string warning = built_on_theorem_warning("the mean loss of eq. 6.4 (calibration)");
  if (job.progress) std::fprintf(stderr, "netdp: warning: %s\n", warning.c_str());  // --quiet: summary.json
  summary["warnings"] = json::array({warning});
  json manifest = manifest_header("muffliato-sgd", job.invocation);
  manifest["parameters"] = {{"graph", job.graph}, {"weights", job.weights}, {"seed", p.seed}};
  manifest["parameters"].update(jobs::learning_data_json(job.data));
  return publish_results(out, summary, std::move(manifest), json::array({"curves.csv"}), clock.seconds());
}

namespace jobs {

namespace {

MuffliatoSgdJob muffliato_sgd_job(const Values& v, const RunContext& context) {
  MuffliatoSgdJob job;
  job.graph = v.text("graph");
  job.weights = v.text("weights");
  auto& p = job.params;
  p.objective = parse_objective(v.text("objective"));
  p.steps = static_cast<int>(v.integer("steps"));
  if (!v.is_auto("gossip-steps")) job.gossip_steps = static_cast<int>(v.integer("gossip-steps"));
  p.step_size = v.real("step-size");
  p.clip = v.real("clip");
  p.noise_order =
      v.text("clip-order") == "after-noise" ? NoiseOrder::reference_code : NoiseOrder::clip_then_noise;
  p.l2 = v.real("l2");
  p.batch = static_cast<int>(v.integer("batch"));
  p.runs = v.integer("runs");
  p.seed = v.natural("seed");
  p.gap_definition = parse_gap_definition(v.text("gap"));
  if (v.has("sigma")) job.sigma = v.real("sigma");
  const MeanLossTarget t = mean_loss_target(v);
  job.target_mean_loss = t.target;
  job.alpha = t.alpha;
  job.statistic = t.statistic;
  job.sensitivity = t.sensitivity;
  job.composition = v.text("composition") == "squared" ? MuffliatoSgdComposition::squared
                                                       : MuffliatoSgdComposition::participations;
  job.data = learning_data_spec(v);
  set_run_context(job, context);
  return job;
}

}  // namespace

Model muffliato_sgd_model() {
  using namespace declare;
  Model m;
  m.name = "muffliato-sgd";
  m.example =
      "--graph ring:n=20 --target-mean-loss 0.5 --steps 4 --gossip-steps 3 --runs 3 --synthetic-rows 400 "
      "--out out/muffliato-sgd";
  m.help =
      "Muffliato-SGD (Alg 6.3) on the learning data of walk-sgd, noise calibrated to a target mean privacy "
      "loss (eq. 6.4): the gossip side of Table 7.1";
  m.parameters = {
      text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. hypercube:dim=11").required(),
      text("weights",
           "gossip matrix W: metropolis | hamilton-literal | max-degree | lazy-uniform | file:PATH")
          .fallback("metropolis"),
      integer("steps", "participations P: outer iterations, one local step and one Muffliato each")
          .fallback("10")
          .range(between(1, 1 << 23)),
      count_or_auto("gossip-steps", "K accelerated gossip steps per participation; auto: from the gap")
          .fallback("auto")
          .range(at_least(1)),
      real("step-size", "step size nu").fallback("0.7").range(above(0)),
      real("clip", "clipping norm L").fallback("0.4").range(at_least(0)),
      choice("clip-order",
             "per-example (clip, average, noise; Alg 6.3) | after-noise (clip(gradient + noise), [R-MUF])",
             {"per-example", "after-noise"})
          .fallback("per-example"),
      real("sigma", "absolute gradient noise std; given: no calibration")
          .range(at_least(0))
          .unit(units::absolute_std),
      choice("composition", "participations: P x eq. 6.4 | squared: P^2 x eq. 6.4 (the T^2 of Thm 6.9)",
             {"participations", "squared"})
          .fallback("participations"),
      choice("objective", "logistic | least-squares | quadratic", {"logistic", "least-squares", "quadratic"})
          .fallback("logistic"),
      real("l2", "ridge term mu/2 ||theta||^2").fallback("0").range(at_least(0)),
      integer("batch", "mini-batch per node and step (0 = the node's whole dataset)")
          .fallback("0")
          .range(at_least(0)),
      integer("runs", "independent runs R").fallback("1").range(at_least(1)),
      gap_parameter("spectral gap of W: second (1 - lambda_2) or abs (min 1 - |lambda|)"),
      natural("seed", "Philox seed of the noise and the mini-batches").fallback("0"),
      threads_parameter(),
      out_parameter(),
      quiet_parameter()};
  append(m.parameters, learning_data_parameters());
  append(m.parameters, mean_loss_parameters());
  m.validate = [](const Values& v) {
    const MuffliatoSgdJob job = muffliato_sgd_job(v, {});
    if (job.sigma && job.target_mean_loss > 0)
      throw InvalidParameter("target-mean-loss", "target-mean-loss and sigma exclude each other");
    if (!job.sigma && !(job.target_mean_loss > 0))
      throw InvalidParameter("target-mean-loss", "give target-mean-loss > 0 or sigma");
  };
  m.execute = [](const Values& v, const RunContext& c) {
    return run_muffliato_sgd_job(muffliato_sgd_job(v, c));
  };
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("muffliato-sgd: n = %d, P = %lld, K = %d, R = %lld, sigma %.6g, ", s["n"].get<int>(),
                       s["participations"].get<long long>(), s["gossip_steps"].get<int>(),
                       s["runs"].get<long long>(), s["sigma"].get<double>()) +
           final_learning_report(s, c);
  };
  m.resources = [](const Values& v) {
    const LearningRunSize z = learning_run_size(v);
    return Estimate{16 * z.rows * z.dim * (z.steps + 2), z.runs * z.steps * 40 * z.rows * z.dim / 3e8};
  };
  return m;
}

}  // namespace jobs

}  // namespace netdp
