// `netdp walk-sgd` (docs/walk_sgd.md): random-walk DP-SGD with the centralized, local and network noise of
// docs/math.md §4.3.3 on any graph netdp knows; utility curves over runs.
#include "netdp/jobs/walk_sgd_job.hpp"

#include <algorithm>
#include <cmath>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/walk_sgd_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

void check_walk_sgd_job(const WalkSgdJob& job) {
  const WalkSgdParams& p = job.params;
  const bool mean_loss = job.mean_loss.target > 0;
  if (mean_loss && p.variant != WalkSgdVariant::network)
    throw InvalidParameter(
        "target-mean-loss",
        "target-mean-loss calibrates the network variant (docs/math.md §5.8), got variant " +
            to_string(p.variant));
  if (mean_loss && job.sigma)
    throw InvalidParameter("target-mean-loss", "target-mean-loss and sigma exclude each other");
  if (job.node_data != WalkSgdNodeData::rows && p.objective != Objective::quadratic)
    throw InvalidParameter("node-data", "node-data coordinates needs objective quadratic");
  if (job.distance_quantiles < 1)
    throw InvalidParameter("distance-quantiles", "distance-quantiles must be >= 1");
  if ((!job.sigma && !mean_loss) || !job.cap) bounds::validate(job.search);
  if (job.node_data == WalkSgdNodeData::rows) jobs::check_learning_data(job.data, p.objective);
  // The walk on a graph small enough to build at once (connectivity, the weights); the run builds a large
  // one.
  if (jobs::graph_size(job.graph).m <= 2e6)
    (void)make_walk_model(job.graph, job.weights, nullptr, "walk-sgd");
}

RunResult run_walk_sgd_job(const WalkSgdJob& job) {
  const Stopwatch clock;
  WalkSgdParams p = job.params;
  const WalkSgdMeanLoss& ml = job.mean_loss;
  const bool mean_loss = ml.target > 0;
  const bool by_distance = job.node_data != WalkSgdNodeData::rows;
  Graph graph;
  const WalkModel walk = make_walk_model(job.graph, job.weights, &graph, "walk-sgd");
  std::vector<double> positions;
  LearningSplit split;
  if (by_distance) {
    positions = walk_sgd_rgg_positions(job.graph);
    split.train =
        coordinate_targets(positions, job.node_data == WalkSgdNodeData::shuffled_coordinates, job.data.seed);
  } else {
    split = load_learning_split(job.data, p.objective, walk.n);
  }
  const double n = walk.n;
  std::optional<WalkSgdCalibration> calibration;
  if ((!job.sigma && !mean_loss) || !job.cap) calibration = calibrate_walk_sgd(p.variant, n, job.search);
  p.cap = job.cap ? *job.cap : calibration->cap;
  // The pairwise accountant (mean-loss calibration, by_distance.csv) on the walk's symmetric W.
  std::optional<WalkSgdGraph> symmetric;
  const double sensitivity = ml.sensitivity > 0 ? ml.sensitivity : 2 * p.clip;
  WalkLossParams loss;
  loss.alpha = ml.alpha;
  loss.steps = static_cast<int>(std::min<std::int64_t>(p.steps, 0x7fffffff));
  loss.method = ml.method;
  loss.clip =
      false;  // the figures clip at one step's level alpha / (2 sigma^2): it would cap N_u contributions
  if (ml.contributions_cap && p.cap > 0) loss.contributions = double(p.cap);
  double statistic_at_one = 0, multiplier = 0;
  if (mean_loss || by_distance) symmetric = walk_sgd_symmetric_walk(job.graph, job.weights);
  if (mean_loss) {
    multiplier = walk_mean_loss_multiplier(*symmetric, loss, ml.statistic, ml.target, &statistic_at_one);
    p.sigma = multiplier * sensitivity;
  } else {
    p.sigma = job.sigma ? *job.sigma : calibration->sigma;
  }
  require_finite(p.sigma, "the noise std sigma", "raise epsilon, delta or target-mean-loss");
  if (!job.eval_every_given) p.eval_every = std::max<std::int64_t>(1, p.steps / job.eval_points);
  ProgressLine progress("walk-sgd", "of the runs", job.progress);
  const WalkSgdResult r = walk_sgd(walk, split.train, split.test, p, [&](double f) { progress.update(f); });
  progress.finish();
  jobs::require_finite_curve(r.step, r.objective.mean, "the mean objective",
                             "lower step-size or sigma (the iterates diverge)");

  RunResult result;
  result.node_ids = graph.file_ids;  // node_map.csv for a renumbered file graph
  result.add(jobs::learning_curves_table(r.step, r.objective, r.accuracy, "max_contributions_mean",
                                         r.max_contributions_mean));
  if (by_distance) {
    loss.sigma = p.sigma > 0 ? p.sigma / sensitivity : 0.0;
    ProgressLine discrepancy("walk-sgd by distance", "of the runs", job.progress);
    result.add(walk_sgd_by_distance_table(walk, split.train, p, positions, *symmetric, loss,
                                          job.distance_quantiles, [&](double f) { discrepancy.update(f); }));
    discrepancy.finish();
  }
  json summary = {
      {"model", "walk-sgd"},
      {"graph", job.graph},
      {"walk", to_string(walk.kind)},
      {"weights", walk.weights},
      {"variant", to_string(p.variant)},
      {"after_cap", to_string(p.capped)},
      {"objective", to_string(p.objective)},
      {"n", walk.n},
      {"node_data",
       by_distance ? (job.node_data == WalkSgdNodeData::coordinates ? "coordinates" : "shuffled-coordinates")
                   : "rows"},
      {"initial_estimate", p.local_initial_estimate ? "local" : "zero"},
      {"steps", p.steps},
      {"runs", p.runs},
      {"step_size", p.step_size},
      {"clip", p.clip},
      {"clip_order", to_string(p.clip_order)},
      {"batch", p.batch},
      {"l2", p.l2},
      {"epsilon", job.search.epsilon},
      {"delta", job.search.delta},
      {"sigma", p.sigma},
      {"sigma_source", job.sigma   ? "given"
                       : mean_loss ? "mean-loss"
                                   : "calibrated"},
      {"cap", p.cap},
      {"final",
       {{"objective", jobs::final_statistics_json(r.objective)},
        {"accuracy", jobs::final_statistics_json(r.accuracy)},
        {"max_contributions_mean", r.max_contributions_mean.back()}}},
      {"seconds_runs", r.seconds},
      {"threads", r.threads},
  };
  summary.update(jobs::learning_split_json(split));
  if (calibration && !mean_loss && !job.sigma) {
    const auto& s = calibration->search;
    summary["calibration"] = {{"procedure", bounds::to_string(job.search.procedure)},
                              {"slope_factor", s.slope_factor},
                              {"contributions", s.contributions},
                              {"sigma_central", s.sigma_central},
                              {"sigma_local", s.sigma_local},
                              {"sigma_network", s.sigma_network}};
  }
  if (mean_loss) {
    loss.sigma = multiplier;
    summary["calibration"] = {{"procedure", "mean-loss"},
                              {"target_mean_loss", ml.target},
                              {"statistic", jobs::to_string(ml.statistic)},
                              {"alpha", ml.alpha},
                              {"method", to_string(ml.method)},
                              {"contributions", walk_contributions(loss, walk.n)},
                              {"contributions_rule", ml.contributions_cap && p.cap > 0 ? "cap" : "expected"},
                              {"statistic_at_one", statistic_at_one},
                              {"multiplier", multiplier},
                              {"sensitivity", sensitivity},
                              {"weak_convexity", walk_weak_convexity_holds(loss)}};
  }
  json manifest = manifest_header("walk-sgd", job.invocation);
  manifest["parameters"] = {{"graph", job.graph},
                            {"weights", job.weights},
                            {"seed", p.seed},
                            {"eval_every", p.eval_every},
                            {"procedure", bounds::to_string(job.search.procedure)},
                            {"cap_factor", job.search.cap_factor},
                            {"central_constant", job.search.central_constant},
                            {"slope_factor", job.search.slope_factor},
                            {"distance_quantiles", job.distance_quantiles}};
  manifest["parameters"].update(jobs::learning_data_json(job.data));
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model walk_sgd_model() {
  using namespace declare;
  Model m = named_model(
      "walk-sgd",
      "random-walk DP-SGD (Alg 7.2 / 7.3): one token carries the model along a walk, clipped noisy local "
      "steps; centralized, local or network noise calibrated to (epsilon, delta)",
      "--graph complete:n=20 --variant network --epsilon 1 --steps 400 --runs 2 --out out/walk-sgd");
  Binding<WalkSgdJob> bind;
  using Job = WalkSgdJob;
  using P = WalkSgdParams;
  using S = bounds::SigmaSearchParams;
  m.parameters = {
      bind(text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. complete:n=2000")
               .required(),
           &Job::graph),
      bind(text("weights",
                "walk rule: auto (J/n on complete, else uniform) | uniform | lazy-uniform | metropolis | ...")
               .fallback("auto"),
           &Job::weights),
      bind(choice("variant", "centralized | local | network DP-SGD (docs/walk_sgd.md)",
                  {"centralized", "local", "network"})
               .fallback("network"),
           [](Job& j, const std::string& variant) { j.params.variant = parse_walk_sgd_variant(variant); }),
      bind(real("epsilon", "target epsilon of the variant's guarantee").fallback("1").range(above(0)),
           &Job::search, &S::epsilon),
      bind(real("delta", "target delta").fallback("1e-06").range(between(0, 1)), &Job::search, &S::delta),
      bind(integer("steps", "walk steps T").fallback("20000").range(at_least(1)),
           [](Job& j, std::int64_t steps) {
             j.params.steps = steps;
             j.search.steps = double(steps);
           }),
      bind(integer("runs", "independent runs R").fallback("1").range(at_least(1)), &Job::params, &P::runs),
      // Declared after variant: 0 picks the variant's reference step.
      bind(real("step-size", "step size gamma (0 = the reference values: local 0.0673, else 0.0342)")
               .fallback("0")
               .range(at_least(0)),
           [](Job& j, double step) {
             j.params.step_size = step;
             if (step == 0)  // the tuned steps of the reference code (docs/math.md §11 E4)
               j.params.step_size = j.params.variant == WalkSgdVariant::local ? 0.0673 : 0.0342;
           }),
      bind(real("clip", "clipping norm L (also the sensitivity of the calibration)")
               .fallback("0.4")
               .range(above(0)),
           [](Job& j, double clip) {
             j.params.clip = clip;
             j.search.lipschitz = clip;
           }),
      bind(choice("clip-order",
                  "per-example (clip, average, noise) | after-noise (clip(gradient + noise), Fig. 7.2 code)",
                  {"per-example", "after-noise"})
               .fallback("after-noise"),
           [](Job& j, const std::string& order) { j.params.clip_order = parse_walk_sgd_clip_order(order); }),
      bind(real("sigma", "absolute std of the gradient noise; given: no calibration")
               .range(at_least(0))
               .unit(units::absolute_std),
           &Job::sigma),
      bind(count_or_auto("cap",
                         "contributions K per node (local, network; 0 = none); auto: from the calibration")
               .fallback("auto")
               .range(at_least(0)),
           [](Job& j, CountOrAuto cap) {
             if (!cap.is_auto) j.cap = cap.count;
           }),
      bind(choice("procedure", "sigma search: code (the Fig. 7.2 findSigma) | thesis (Remark D.12)",
                  {"code", "thesis"})
               .fallback("code"),
           [](Job& j, const std::string& procedure) {
             j.search.procedure = bounds::parse_sigma_procedure(procedure);
           }),
      bind(real("slope-factor", "RDP slope factor 1 | 2 | 4 (0 = the procedure's own: code 2, thesis 4)")
               .fallback("0"),
           &Job::search, &S::slope_factor),
      bind(real("cap-factor", "code procedure: K = ceil(cap-factor T / n)").fallback("1.2").range(above(0)),
           &Job::search, &S::cap_factor),
      bind(real("central-constant", "code procedure: c in ln(c T/(delta n)) of the centralized sigma")
               .fallback("1.25")
               .range(above(0)),
           &Job::search, &S::central_constant),
      bind(choice("objective", "logistic | least-squares | quadratic",
                  {"logistic", "least-squares", "quadratic"})
               .fallback("logistic"),
           [](Job& j, const std::string& objective) { j.params.objective = parse_objective(objective); }),
      bind(real("l2", "ridge term mu/2 ||theta||^2").fallback("0").range(at_least(0)), &Job::params, &P::l2),
      bind(integer("batch", "mini-batch per visit (0 = the node's whole dataset)")
               .fallback("0")
               .range(at_least(0)),
           &Job::params, &P::batch),
      bind(choice("after-cap",
                  "visits over the cap K: variant (network: noise only, local: forward) | noise | forward",
                  {"variant", "noise", "forward"})
               .fallback("variant"),
           [](Job& j, const std::string& capped) { j.params.capped = parse_walk_sgd_capped(capped); }),
      bind(
          choice("loss-contributions",
                 "mean-loss calibration: N_u = T/n (expected, reference code) | K (cap)", {"expected", "cap"})
              .fallback("expected"),
          [](Job& j, const std::string& rule) { j.mean_loss.contributions_cap = rule == "cap"; }),
      bind(choice("loss-method",
                  "mean-loss calibration: spectral (Thm 7.7 closed form) | finite (exact finite T)",
                  {"spectral", "finite"})
               .fallback("spectral"),
           [](Job& j, const std::string& method) { j.mean_loss.method = parse_walk_loss_method(method); }),
      bind(choice("node-data",
                  "rows (data/synthetic rows) | coordinates | shuffled-coordinates (rgg: one target x+y per "
                  "node, "
                  "by_distance.csv)",
                  {"rows", "coordinates", "shuffled-coordinates"})
               .fallback("rows"),
           [](Job& j, const std::string& node_data) {
             j.node_data = node_data == "coordinates"            ? WalkSgdNodeData::coordinates
                           : node_data == "shuffled-coordinates" ? WalkSgdNodeData::shuffled_coordinates
                                                                 : WalkSgdNodeData::rows;
           }),
      bind(integer("distance-quantiles", "by_distance.csv: classes of pairs by Euclidean distance")
               .fallback("10")
               .range(at_least(1)),
           &Job::distance_quantiles),
      bind(
          choice("initial-estimate",
                 "by_distance.csv: a node's estimate before its first visit: zero (x_0) | local (its own "
                 "target)",
                 {"zero", "local"})
              .fallback("zero"),
          [](Job& j, const std::string& estimate) { j.params.local_initial_estimate = estimate == "local"; }),
      bind(natural("seed", "Philox seed of the walks and the noise").fallback("0"), &Job::params, &P::seed),
      bind(integer("eval-every", "evaluate every e steps (default T/200)").range(at_least(1)),
           [](Job& j, std::int64_t every) {
             j.params.eval_every = every;
             j.eval_every_given = true;
           }),
      threads_parameter(), out_parameter(), quiet_parameter()};
  append(m.parameters, learning_data_parameters(bind));
  append(m.parameters, mean_loss_parameters(bind, [](Job& j) -> WalkSgdMeanLoss& { return j.mean_loss; }));
  m.validate = bind.check(check_walk_sgd_job);
  m.execute = bind.run(run_walk_sgd_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("walk-sgd: %s, n = %d, T = %lld, R = %lld, sigma %.6g, K = %lld, ",
                       s["variant"].get<std::string>().c_str(), s["n"].get<int>(),
                       s["steps"].get<long long>(), s["runs"].get<long long>(), s["sigma"].get<double>(),
                       s["cap"].get<long long>()) +
           final_learning_report(s, c);
  };
  m.resources = bind.estimate([](const Job& job) {
    const double rows = double(job.data.synthetic_rows), dim = double(job.data.synthetic_dim) + 1;
    Estimate e{16 * rows * dim,
               double(job.params.runs) * (double(job.params.steps) * 10 * dim + 200 * rows * dim) / 3e8};
    e.required_bytes = learning_data_bytes(job.data);  // the rows, drawn whole
    return e;
  });
  m.footer =
      "sigma: --sigma, else --target-mean-loss (network: docs/math.md §5.8 on the walk's graph), else the "
      "complete-graph search of --epsilon/--delta (docs/math.md §4.3.3); docs/walk_sgd.md";
  return m;
}

}  // namespace jobs

}  // namespace netdp
