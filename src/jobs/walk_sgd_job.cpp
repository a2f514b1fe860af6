// `netdp walk-sgd` (docs/walk_sgd.md): random-walk DP-SGD with the centralized, local and network noise of
// docs/math.md §4.3.3 on any graph netdp knows; utility curves over runs.
#include "netdp/jobs/walk_sgd_job.hpp"

#include <algorithm>
#include <cmath>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "jobs/walk_sgd_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

json run_walk_sgd_job(const WalkSgdJob& job) {
  const Stopwatch clock;
  WalkSgdParams p = job.params;
  const WalkSgdMeanLoss& ml = job.mean_loss;
  const bool mean_loss = ml.target > 0;
  const bool by_distance = job.node_data != WalkSgdNodeData::rows;
  if (mean_loss && p.variant != WalkSgdVariant::network)
    throw InvalidParameter(
        "target-mean-loss",
        "target-mean-loss calibrates the network variant (docs/math.md §5.8), got variant " +
            to_string(p.variant));
  if (mean_loss && job.sigma)
    throw InvalidParameter("target-mean-loss", "target-mean-loss and sigma exclude each other");
  if (by_distance && p.objective != Objective::quadratic)
    throw InvalidParameter("node-data", "node-data coordinates needs objective quadratic");
  if (job.distance_quantiles < 1)
    throw InvalidParameter("distance-quantiles", "distance-quantiles must be >= 1");
  Graph graph;
  const WalkModel walk = make_walk_model(job.graph, job.weights, &graph);
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
  if (!job.eval_every_given) p.eval_every = std::max<std::int64_t>(1, p.steps / job.eval_points);
  ProgressLine progress("walk-sgd", "of the runs", job.progress);
  const WalkSgdResult r = walk_sgd(walk, split.train, split.test, p, [&](double f) { progress.update(f); });
  progress.finish();

  ResultsDir out(job.out_dir);
  out.write_text("curves.csv", jobs::learning_curves_csv(r.step, r.objective, r.accuracy,
                                                         "max_contributions_mean", r.max_contributions_mean));
  json files = json::array({"curves.csv"});
  if (by_distance) {
    loss.sigma = p.sigma > 0 ? p.sigma / sensitivity : 0.0;
    ProgressLine discrepancy("walk-sgd by distance", "of the runs", job.progress);
    out.write_text("by_distance.csv", walk_sgd_by_distance_csv(walk, split.train, p, positions, *symmetric,
                                                               loss, job.distance_quantiles,
                                                               [&](double f) { discrepancy.update(f); }));
    discrepancy.finish();
    files.push_back("by_distance.csv");
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
  return publish_results(out, summary, std::move(manifest), files, clock.seconds());
}

namespace jobs {

namespace {

WalkSgdJob walk_sgd_job(const Values& v, const RunContext& context) {
  WalkSgdJob job;
  job.graph = v.text("graph");
  job.weights = v.text("weights");
  auto& p = job.params;
  p.objective = parse_objective(v.text("objective"));
  p.variant = parse_walk_sgd_variant(v.text("variant"));
  p.steps = v.integer("steps");
  p.step_size = v.real("step-size");
  if (p.step_size == 0)  // the tuned steps of the reference code (docs/math.md §11 E4)
    p.step_size = p.variant == WalkSgdVariant::local ? 0.0673 : 0.0342;
  p.clip = v.real("clip");
  p.clip_order = parse_walk_sgd_clip_order(v.text("clip-order"));
  p.l2 = v.real("l2");
  p.batch = static_cast<int>(v.integer("batch"));
  p.runs = v.integer("runs");
  p.seed = v.natural("seed");
  if (v.has("eval-every")) {
    p.eval_every = v.integer("eval-every");
    job.eval_every_given = true;
  }
  if (v.has("sigma")) job.sigma = v.real("sigma");
  if (!v.is_auto("cap")) job.cap = v.integer("cap");
  auto& s = job.search;
  s.epsilon = v.real("epsilon");
  s.delta = v.real("delta");
  s.procedure = bounds::parse_sigma_procedure(v.text("procedure"));
  s.slope_factor = v.real("slope-factor");
  s.cap_factor = v.real("cap-factor");
  s.central_constant = v.real("central-constant");
  s.steps = double(p.steps);
  s.lipschitz = p.clip;
  job.data = learning_data_spec(v);
  const MeanLossTarget t = mean_loss_target(v);
  job.mean_loss.target = t.target;
  job.mean_loss.alpha = t.alpha;
  job.mean_loss.statistic = t.statistic;
  job.mean_loss.sensitivity = t.sensitivity;
  job.mean_loss.contributions_cap = v.text("loss-contributions") == "cap";
  job.mean_loss.method = parse_walk_loss_method(v.text("loss-method"));
  p.capped = parse_walk_sgd_capped(v.text("after-cap"));
  p.local_initial_estimate = v.text("initial-estimate") == "local";
  const std::string& node_data = v.text("node-data");
  job.node_data = node_data == "coordinates"            ? WalkSgdNodeData::coordinates
                  : node_data == "shuffled-coordinates" ? WalkSgdNodeData::shuffled_coordinates
                                                        : WalkSgdNodeData::rows;
  job.distance_quantiles = static_cast<int>(v.integer("distance-quantiles"));
  set_run_context(job, context);
  return job;
}

}  // namespace

Model walk_sgd_model() {
  using namespace declare;
  Model m;
  m.name = "walk-sgd";
  m.example = "--graph complete:n=20 --variant network --epsilon 1 --steps 400 --runs 2 --out out/walk-sgd";
  m.help =
      "random-walk DP-SGD (Alg 7.2 / 7.3): one token carries the model along a walk, clipped noisy local "
      "steps; centralized, local or network noise calibrated to (epsilon, delta)";
  m.parameters = {
      text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. complete:n=2000").required(),
      text("weights",
           "walk rule: auto (J/n on complete, else uniform) | uniform | lazy-uniform | metropolis | ...")
          .fallback("auto"),
      choice("variant", "centralized | local | network DP-SGD (docs/walk_sgd.md)",
             {"centralized", "local", "network"})
          .fallback("network"),
      real("epsilon", "target epsilon of the variant's guarantee").fallback("1").range(above(0)),
      real("delta", "target delta").fallback("1e-06").range(between(0, 1)),
      integer("steps", "walk steps T").fallback("20000").range(at_least(1)),
      integer("runs", "independent runs R").fallback("1").range(at_least(1)),
      real("step-size", "step size gamma (0 = the reference values: local 0.0673, else 0.0342)")
          .fallback("0")
          .range(at_least(0)),
      real("clip", "clipping norm L (also the sensitivity of the calibration)")
          .fallback("0.4")
          .range(above(0)),
      choice("clip-order",
             "per-example (clip, average, noise) | after-noise (clip(gradient + noise), Fig. 7.2 code)",
             {"per-example", "after-noise"})
          .fallback("after-noise"),
      real("sigma", "absolute std of the gradient noise; given: no calibration")
          .range(at_least(0))
          .unit(units::absolute_std),
      count_or_auto("cap", "contributions K per node (local, network; 0 = none); auto: from the calibration")
          .fallback("auto")
          .range(at_least(0)),
      choice("procedure", "sigma search: code (the Fig. 7.2 findSigma) | thesis (Remark D.12)",
             {"code", "thesis"})
          .fallback("code"),
      real("slope-factor", "RDP slope factor 1 | 2 | 4 (0 = the procedure's own: code 2, thesis 4)")
          .fallback("0"),
      real("cap-factor", "code procedure: K = ceil(cap-factor T / n)").fallback("1.2").range(above(0)),
      real("central-constant", "code procedure: c in ln(c T/(delta n)) of the centralized sigma")
          .fallback("1.25")
          .range(above(0)),
      choice("objective", "logistic | least-squares | quadratic", {"logistic", "least-squares", "quadratic"})
          .fallback("logistic"),
      real("l2", "ridge term mu/2 ||theta||^2").fallback("0").range(at_least(0)),
      integer("batch", "mini-batch per visit (0 = the node's whole dataset)")
          .fallback("0")
          .range(at_least(0)),
      choice("after-cap",
             "visits over the cap K: variant (network: noise only, local: forward) | noise | forward",
             {"variant", "noise", "forward"})
          .fallback("variant"),
      choice("loss-contributions", "mean-loss calibration: N_u = T/n (expected, reference code) | K (cap)",
             {"expected", "cap"})
          .fallback("expected"),
      choice("loss-method", "mean-loss calibration: spectral (Thm 7.7 closed form) | finite (exact finite T)",
             {"spectral", "finite"})
          .fallback("spectral"),
      choice("node-data",
             "rows (data/synthetic rows) | coordinates | shuffled-coordinates (rgg: one target x+y per node, "
             "by_distance.csv)",
             {"rows", "coordinates", "shuffled-coordinates"})
          .fallback("rows"),
      integer("distance-quantiles", "by_distance.csv: classes of pairs by Euclidean distance")
          .fallback("10")
          .range(at_least(1)),
      choice("initial-estimate",
             "by_distance.csv: a node's estimate before its first visit: zero (x_0) | local (its own target)",
             {"zero", "local"})
          .fallback("zero"),
      natural("seed", "Philox seed of the walks and the noise").fallback("0"),
      integer("eval-every", "evaluate every e steps (default T/200)").range(at_least(1)),
      threads_parameter(),
      out_parameter(),
      quiet_parameter()};
  append(m.parameters, learning_data_parameters());
  append(m.parameters, mean_loss_parameters());
  m.validate = [](const Values& v) {
    const WalkSgdJob job = walk_sgd_job(v, {});
    if (!job.sigma || !job.cap) bounds::validate(job.search);
    if (job.mean_loss.target > 0 && job.params.variant != WalkSgdVariant::network)
      throw InvalidParameter("target-mean-loss", "target-mean-loss calibrates the network variant only");
    if (job.mean_loss.target > 0 && job.sigma)
      throw InvalidParameter("target-mean-loss", "target-mean-loss and sigma exclude each other");
  };
  m.execute = [](const Values& v, const RunContext& c) { return run_walk_sgd_job(walk_sgd_job(v, c)); };
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("walk-sgd: %s, n = %d, T = %lld, R = %lld, sigma %.6g, K = %lld, ",
                       s["variant"].get<std::string>().c_str(), s["n"].get<int>(),
                       s["steps"].get<long long>(), s["runs"].get<long long>(), s["sigma"].get<double>(),
                       s["cap"].get<long long>()) +
           final_learning_report(s, c);
  };
  m.resources = [](const Values& v) {
    const LearningRunSize z = learning_run_size(v);
    return Estimate{16 * z.rows * z.dim, z.runs * (z.steps * 10 * z.dim + 200 * z.rows * z.dim) / 3e8};
  };
  m.footer =
      "sigma: --sigma, else --target-mean-loss (network: docs/math.md §5.8 on the walk's graph), else the "
      "complete-graph search of --epsilon/--delta (docs/math.md §4.3.3); docs/walk_sgd.md";
  return m;
}

}  // namespace jobs

}  // namespace netdp
