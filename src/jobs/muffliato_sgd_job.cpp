// `netdp muffliato-sgd` (docs/muffliato_sgd.md): Muffliato-SGD on the learning data of walk-sgd with its
// noise calibrated to a target mean privacy loss, by the LDP composition (a valid bound) or eq. 6.4
// (docs/math.md §6.1, not an upper bound), the gossip side of Table 7.1.
#include "netdp/jobs/muffliato_sgd_job.hpp"

#include <cmath>
#include <cstdio>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp {

using json = nlohmann::json;

void check_muffliato_sgd_job(const MuffliatoSgdJob& job) {
  if (job.sigma && job.mean_loss.target > 0)
    throw InvalidParameter("target-mean-loss", "target-mean-loss and sigma exclude each other");
  if (!job.sigma && !(job.mean_loss.target > 0))
    throw InvalidParameter("target-mean-loss", "give target-mean-loss > 0 or sigma");
  // Delta = 2 L needs a clip: without one nothing bounds the gradients, and Delta = 0 would report a loss of
  // 0.
  if (!(job.params.clip > 0) && !(job.mean_loss.sensitivity > 0))
    throw InvalidParameter("sensitivity",
                           "clip 0 leaves the gradients unbounded: give sensitivity, or clip > 0");
  check_job_weights(job.graph, parse_weights_spec(job.weights));  // a W file, read whole
  jobs::check_learning_data(job.data, job.params.objective);
}

RunResult run_muffliato_sgd_job(const MuffliatoSgdJob& job) {
  const Stopwatch clock;
  MuffliatoGdParams p = job.params;
  const JobGraph jg =
      load_job_graph(job.graph, parse_weights_spec(job.weights), p.gap_definition, true, job.progress);
  p.spectral_gap = jg.gap;
  p.gossip_steps = job.gossip_steps ? *job.gossip_steps : muffliato_sgd_gossip_steps(jg.g.n, jg.gap);
  const LearningSplit split = load_learning_split(job.data, p.objective, jg.g.n);
  const double sensitivity = job.mean_loss.sensitivity > 0 ? job.mean_loss.sensitivity : 2 * p.clip;
  const bool all_pairs = job.mean_loss.statistic == TargetStatistic::all_pairs;
  // Both statistics at noise multiplier 1; the accounting chosen calibrates (docs/muffliato_sgd.md
  // "Accounting").
  const double theorem_one =
      muffliato_sgd_mean_loss(jg.g, p.gossip_steps, p.steps, job.mean_loss.alpha, job.composition, all_pairs);
  const double ldp_one = muffliato_sgd_ldp_mean_loss(jg.g.n, p.steps, job.mean_loss.alpha, all_pairs);
  const bool theorem = job.accounting == "theorem";
  const double at_one = theorem ? theorem_one : ldp_one;
  double sigma = 0, multiplier = 0;
  if (job.sigma) {
    sigma = *job.sigma;
  } else {
    if (!(at_one > 0))
      throw InvalidParameter("target-mean-loss",
                             "target-mean-loss: the graph has no edge, nothing to calibrate");
    multiplier = std::sqrt(at_one / job.mean_loss.target);  // eps_bar scales as 1 / multiplier^2
    sigma = multiplier * sensitivity;
  }
  // The engine's reference-code order draws sigma / 2 (muffliato_gd.md): hand it 2 sigma so that the
  // gradient noise std is sigma in both orders.
  require_finite(2 * sigma * sigma, "the square of the noise std sigma", "raise target-mean-loss");
  p.sigma = p.noise_order == NoiseOrder::reference_code ? 2 * sigma : sigma;
  ProgressLine progress("muffliato-sgd", "of the runs", job.progress);
  const MuffliatoSgdResult r =
      muffliato_sgd(jg.g, jg.w, split.train, split.test, p, [&](double f) { progress.update(f); });
  progress.finish();
  jobs::require_finite_curve(r.step, r.objective.mean, "the mean objective",
                             "lower step-size or sigma (the iterates diverge)");
  // Every term scales as (Delta / sigma)^2; sigma = 0 spends an infinite loss (null in summary.json).
  const auto spent_at = [&](double one) {
    return sigma > 0 ? one * sensitivity * sensitivity / (sigma * sigma) : INFINITY;
  };
  const double spent = spent_at(at_one);
  const double mu = sigma > 0 ? std::sqrt(double(p.steps)) * sensitivity / sigma : INFINITY;
  json ldp = {{"bound", "valid: P Gaussian releases of u's clipped mean gradient, composed"},
              {"statistic_at_one", ldp_one},
              {"mean_loss", jobs::finite_or_null(spent_at(ldp_one))},
              {"pair_loss",
               jobs::finite_or_null(spent_at(ldp_one > 0 ? double(p.steps) * job.mean_loss.alpha / 2 : 0.0))},
              {"mu", jobs::finite_or_null(mu)}};
  if (job.delta)  // the analytic Gaussian curve of mu (docs/math.md §1.2 G4), as muffliato-gd --delta
    ldp["epsilon_at_delta"] = {
        {"delta", *job.delta},
        {"epsilon", jobs::finite_or_null(sigma > 0 ? dp::gdp_epsilon(mu, *job.delta) : INFINITY)}};
  const json privacy = {
      {"accounting", job.accounting},
      {"statistic", jobs::to_string(job.mean_loss.statistic)},
      {"alpha", job.mean_loss.alpha},
      {"sensitivity", sensitivity},
      {"sigma", sigma},
      {"ldp", ldp},
      {"theorem",
       {{"bound", "not an upper bound: eq. 6.4 sums per-message losses (docs/math.md §6.9)"},
        {"composition", job.composition == MuffliatoSgdComposition::squared ? "squared" : "participations"},
        {"statistic_at_one", theorem_one},
        {"mean_loss", jobs::finite_or_null(spent_at(theorem_one))}}}};

  RunResult result;
  result.node_ids = jg.g.file_ids;  // node_map.csv for a renumbered file graph
  result.add(
      jobs::learning_curves_table(r.step, r.objective, r.accuracy, "consensus_mean", r.consensus.mean));
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
      {"accounting", job.accounting},
      {"mean_loss", jobs::finite_or_null(spent)},
      {"privacy", privacy},
      {"calibration",
       {{"target_mean_loss", job.mean_loss.target},
        {"statistic", jobs::to_string(job.mean_loss.statistic)},
        {"alpha", job.mean_loss.alpha},
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
  json warnings = json::array();
  if (theorem) warnings.push_back(built_on_theorem_warning("the mean loss of eq. 6.4 (calibration)"));
  // After-noise clipping clips the noisy gradient: the release is the unclipped gradient plus noise, whose
  // change 2 L does not bound (docs/muffliato_sgd.md "Accounting").
  if (!theorem && p.noise_order == NoiseOrder::reference_code && !(job.mean_loss.sensitivity > 0))
    warnings.push_back(
        "clip-order after-noise adds the noise before the clip: the LDP composition holds only with a "
        "sensitivity that bounds the change of u's unclipped mean gradient, which 2 L does not; give "
        "sensitivity");
  for (const auto& w : warnings)  // --quiet: summary.json only
    if (job.progress) std::fprintf(stderr, "netdp: warning: %s\n", w.get<std::string>().c_str());
  if (!warnings.empty()) summary["warnings"] = warnings;
  json manifest = manifest_header("muffliato-sgd", job.invocation);
  manifest["parameters"] = {{"graph", job.graph},
                            {"weights", job.weights},
                            {"seed", p.seed},
                            {"accounting", job.accounting},
                            {"delta", job.delta ? json(*job.delta) : json(nullptr)}};
  manifest["parameters"].update(jobs::learning_data_json(job.data));
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model muffliato_sgd_model() {
  using namespace declare;
  Model m = named_model(
      "muffliato-sgd",
      "Muffliato-SGD (Alg 6.3) on the learning data of walk-sgd, noise calibrated to a target mean privacy "
      "loss (the LDP composition; eq. 6.4 on request): the gossip side of Table 7.1",
      "--graph ring:n=20 --target-mean-loss 0.5 --steps 4 --gossip-steps 3 --runs 3 --synthetic-rows 400 "
      "--out out/muffliato-sgd");
  Binding<MuffliatoSgdJob> bind;
  using Job = MuffliatoSgdJob;
  using P = MuffliatoGdParams;
  m.parameters = {
      bind(text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. hypercube:dim=11")
               .required(),
           &Job::graph),
      bind(text("weights",
                "gossip matrix W: metropolis | hamilton-literal | max-degree | lazy-uniform | file:PATH")
               .fallback("metropolis"),
           &Job::weights),
      bind(integer("steps", "participations P: outer iterations, one local step and one Muffliato each")
               .fallback("10")
               .range(between(1, 1 << 23)),
           &Job::params, &P::steps),
      bind(count_or_auto("gossip-steps", "K accelerated gossip steps per participation; auto: from the gap")
               .fallback("auto")
               .range(at_least(1)),
           [](Job& j, CountOrAuto k) {
             if (k.is_auto) return;
             if (k.count > 0x7fffffff)  // an int field: refused, never wrapped (docs/reliability.md §1)
               throw InvalidParameter("gossip-steps",
                                      "gossip-steps: expected a positive integer or auto, got '" +
                                          std::to_string(k.count) + "'");
             j.gossip_steps = static_cast<int>(k.count);
           }),
      bind(real("step-size", "step size nu").fallback("0.7").range(above(0)), &Job::params, &P::step_size),
      bind(real("clip", "clipping norm L").fallback("0.4").range(at_least(0)), &Job::params, &P::clip),
      bind(choice(
               "clip-order",
               "per-example (clip, average, noise; Alg 6.3) | after-noise (clip(gradient + noise), [R-MUF])",
               {"per-example", "after-noise"})
               .fallback("per-example"),
           [](Job& j, const std::string& order) {
             j.params.noise_order =
                 order == "after-noise" ? NoiseOrder::reference_code : NoiseOrder::clip_then_noise;
           }),
      bind(real("sigma", "absolute gradient noise std; given: no calibration")
               .range(at_least(0))
               .unit(units::absolute_std),
           &Job::sigma),
      bind(
          choice("accounting",
                 "ldp: calibrate to the LDP composition of the P noisy gradients, a valid bound; theorem: "
                 "to eq. 6.4 (Theorem 6.1's mean), not an upper bound (docs/math.md §6.9); both are reported",
                 {"ldp", "theorem"})
              .fallback("ldp"),
          &Job::accounting),
      bind(real("delta",
                "also epsilon at this delta of the LDP composition (mu = sqrt(P) Delta / sigma, analytic "
                "Gaussian curve; summary.json privacy.ldp.epsilon_at_delta)")
               .range(Range{.min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true}),
           &Job::delta),
      bind(choice("composition",
                  "accounting theorem: participations: P x eq. 6.4 | squared: P^2 x eq. 6.4 (the T^2 of Thm "
                  "6.9); with ldp only the reported theorem value uses it",
                  {"participations", "squared"})
               .fallback("participations"),
           [](Job& j, const std::string& composition) {
             j.composition = composition == "squared" ? MuffliatoSgdComposition::squared
                                                      : MuffliatoSgdComposition::participations;
           }),
      bind(choice("objective", "logistic | least-squares | quadratic",
                  {"logistic", "least-squares", "quadratic"})
               .fallback("logistic"),
           [](Job& j, const std::string& objective) { j.params.objective = parse_objective(objective); }),
      bind(real("l2", "ridge term mu/2 ||theta||^2").fallback("0").range(at_least(0)), &Job::params, &P::l2),
      bind(integer("batch", "mini-batch per node and step (0 = the node's whole dataset)")
               .fallback("0")
               .range(at_least(0)),
           &Job::params, &P::batch),
      bind(integer("runs", "independent runs R").fallback("1").range(at_least(1)), &Job::params, &P::runs),
      bind(gap_parameter("spectral gap of W: second (1 - lambda_2) or abs (min 1 - |lambda|)"),
           [](Job& j, const std::string& gap) { j.params.gap_definition = parse_gap_definition(gap); }),
      bind(natural("seed", "Philox seed of the noise and the mini-batches").fallback("0"), &Job::params,
           &P::seed),
      threads_parameter(),
      out_parameter(),
      quiet_parameter()};
  append(m.parameters, learning_data_parameters(bind));
  append(m.parameters,
         mean_loss_parameters(bind, [](Job& j) -> MuffliatoSgdMeanLoss& { return j.mean_loss; }));
  m.validate = bind.check(check_muffliato_sgd_job);
  m.execute = bind.run(run_muffliato_sgd_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("muffliato-sgd: n = %d, P = %lld, K = %d, R = %lld, sigma %.6g, ", s["n"].get<int>(),
                       s["participations"].get<long long>(), s["gossip_steps"].get<int>(),
                       s["runs"].get<long long>(), s["sigma"].get<double>()) +
           final_learning_report(s, c);
  };
  m.resources = bind.estimate([](const Job& job) {
    const double rows = double(job.data.synthetic_rows), dim = double(job.data.synthetic_dim) + 1,
                 steps = double(job.params.steps);
    Estimate e{16 * rows * dim * (steps + 2), double(job.params.runs) * steps * 40 * rows * dim / 3e8};
    e.required_bytes = learning_data_bytes(job.data);  // the rows, drawn whole
    return e;
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
