// `netdp walk-sgd` (docs/walk_sgd.md): random-walk DP-SGD with the centralized, local and network noise of
// docs/math.md §4.3.3 on any graph netdp knows; utility curves over runs.
#include "netdp/jobs/walk_sgd_job.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/progress.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

WalkSgdCalibration calibrate_walk_sgd(WalkSgdVariant variant, double n, const bounds::SigmaSearchParams& p) {
  WalkSgdCalibration c;
  c.search = bounds::sgd_sigma_search(n, p);
  const auto& s = c.search;
  switch (variant) {
    case WalkSgdVariant::centralized:
      c.sigma = s.sigma_central;
      return c;
    case WalkSgdVariant::local:
      c.sigma = s.sigma_local;
      break;
    case WalkSgdVariant::network:
      c.sigma = s.sigma_network;
      break;
  }
  c.cap = p.procedure == bounds::SigmaProcedure::code
              ? static_cast<std::int64_t>(std::ceil(p.cap_factor * s.steps / n))
              : static_cast<std::int64_t>(std::ceil(s.contributions));
  return c;
}

namespace {

json finite_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

std::string curves_csv(const WalkSgdResult& r) {
  std::ostringstream csv;
  csv << "step,objective_mean,objective_std,objective_min,objective_max,accuracy_mean,accuracy_std,"
         "accuracy_min,accuracy_max,max_contributions_mean\n";
  auto put = [&](const RunStatistics& s, std::size_t e) {
    csv << ',' << format_double(s.mean[e]) << ',' << format_double(s.std[e]) << ',' << format_double(s.min[e])
        << ',' << format_double(s.max[e]);
  };
  for (std::size_t e = 0; e < r.step.size(); ++e) {
    csv << r.step[e];
    put(r.objective, e);
    put(r.accuracy, e);
    csv << ',' << format_double(r.max_contributions_mean[e]) << '\n';
  }
  return csv.str();
}

json final_json(const RunStatistics& s) {
  return {{"mean", finite_or_null(s.mean.back())},
          {"std", finite_or_null(s.std.back())},
          {"min", finite_or_null(s.min.back())},
          {"max", finite_or_null(s.max.back())}};
}

}  // namespace

json run_walk_sgd_job(const WalkSgdJob& job) {
  const Stopwatch clock;
  WalkSgdParams p = job.params;
  if (job.test_fraction < 0 || job.test_fraction >= 1)
    throw InvalidParameter("test-fraction",
                           "test-fraction must be in [0, 1), got " + format_double(job.test_fraction));
  const WalkModel walk = make_walk_model(job.graph, job.weights);
  const LocalData rows = job.data.empty()
                             ? synthetic_data(p.objective, 1, job.synthetic_dim,
                                              static_cast<int>(job.synthetic_rows), job.data_seed)
                             : read_csv_data(job.data, p.objective, 1);
  const LearningSplit split =
      learning_split(rows, p.objective, walk.n, job.test_fraction, job.intercept, job.data_seed);
  const double n = walk.n;
  std::optional<WalkSgdCalibration> calibration;
  if (!job.sigma || !job.cap) calibration = calibrate_walk_sgd(p.variant, n, job.search);
  p.sigma = job.sigma ? *job.sigma : calibration->sigma;
  p.cap = job.cap ? *job.cap : calibration->cap;
  if (!job.eval_every_given) p.eval_every = std::max<std::int64_t>(1, p.steps / job.eval_points);
  const WalkSgdResult r = walk_sgd(walk, split.train, split.test, p);

  ResultsDir out(job.out_dir);
  out.write_text("curves.csv", curves_csv(r));
  json summary = {
      {"model", "walk-sgd"},
      {"graph", job.graph},
      {"walk", to_string(walk.kind)},
      {"weights", walk.weights},
      {"variant", to_string(p.variant)},
      {"objective", to_string(p.objective)},
      {"n", walk.n},
      {"examples_per_user", split.train.size(0)},
      {"dim", split.train.dim},
      {"train_rows", split.train.examples()},
      {"test_rows", split.test.examples()},
      {"dropped_rows", split.dropped},
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
      {"sigma_source", job.sigma ? "given" : "calibrated"},
      {"cap", p.cap},
      {"final",
       {{"objective", final_json(r.objective)},
        {"accuracy", final_json(r.accuracy)},
        {"max_contributions_mean", r.max_contributions_mean.back()}}},
      {"seconds_runs", r.seconds},
      {"threads", r.threads},
  };
  if (calibration) {
    const auto& s = calibration->search;
    summary["calibration"] = {{"procedure", bounds::to_string(job.search.procedure)},
                              {"slope_factor", s.slope_factor},
                              {"contributions", s.contributions},
                              {"sigma_central", s.sigma_central},
                              {"sigma_local", s.sigma_local},
                              {"sigma_network", s.sigma_network}};
  }
  json manifest = manifest_header("walk-sgd", job.invocation);
  manifest["parameters"] = {{"graph", job.graph},
                            {"weights", job.weights},
                            {"data", job.data},
                            {"synthetic_rows", job.data.empty() ? json(job.synthetic_rows) : json(nullptr)},
                            {"synthetic_dim", job.data.empty() ? json(job.synthetic_dim) : json(nullptr)},
                            {"test_fraction", job.test_fraction},
                            {"intercept", job.intercept},
                            {"seed", p.seed},
                            {"data_seed", job.data_seed},
                            {"eval_every", p.eval_every},
                            {"procedure", bounds::to_string(job.search.procedure)},
                            {"cap_factor", job.search.cap_factor},
                            {"central_constant", job.search.central_constant},
                            {"slope_factor", job.search.slope_factor}};
  return publish_results(out, summary, std::move(manifest), json::array({"curves.csv"}), clock.seconds());
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
  job.data_seed = v.natural("data-seed");
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
  job.data = v.has("data") ? v.text("data") : "";
  job.synthetic_rows = v.integer("synthetic-rows");
  job.synthetic_dim = static_cast<int>(v.integer("synthetic-dim"));
  job.test_fraction = v.real("test-fraction");
  job.intercept = !v.flag("no-intercept");
  job.out_dir = context.out_dir.string();
  job.invocation = context.invocation;
  return job;
}

}  // namespace

Model walk_sgd_model() {
  using namespace declare;
  Model m;
  m.name = "walk-sgd";
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
      real("sigma", "absolute noise std; given: no calibration").range(at_least(0)),
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
      text("data", "CSV file: rows of features then a label (+-1 for logistic); default: synthetic data"),
      integer("synthetic-rows", "synthetic rows before the split").fallback("20640").range(at_least(2)),
      integer("synthetic-dim", "synthetic features").fallback("8").range(at_least(1)),
      real("test-fraction", "fraction of the rows held out for the test accuracy")
          .fallback("0.2")
          .range(between(0, 0.99)),
      flag("no-intercept", "do not append the constant feature 1"),
      natural("seed", "Philox seed of the walks and the noise").fallback("0"),
      natural("data-seed", "Philox seed of the synthetic data and the split (the same data for every seed)")
          .fallback("0"),
      integer("eval-every", "evaluate every e steps (default T/200)").range(at_least(1)),
      threads_parameter(),
      out_parameter()};
  m.validate = [](const Values& v) {
    const WalkSgdJob job = walk_sgd_job(v, {});
    if (!job.sigma || !job.cap) bounds::validate(job.search);
  };
  m.execute = [](const Values& v, const RunContext& c) { return run_walk_sgd_job(walk_sgd_job(v, c)); };
  m.describe = [](const json& s, const RunContext& c) {
    const auto& f = s["final"];
    return format_line(
        "walk-sgd: %s, n = %d, T = %lld, R = %lld, sigma %.6g, K = %lld, final objective %.6g, "
        "accuracy %.4g, %.3f s -> %s\n",
        s["variant"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<long long>(),
        s["runs"].get<long long>(), s["sigma"].get<double>(), s["cap"].get<long long>(),
        f["objective"]["mean"].get<double>(),
        f["accuracy"]["mean"].is_null() ? NAN : f["accuracy"]["mean"].get<double>(),
        s["seconds_runs"].get<double>(), c.out_dir.string().c_str());
  };
  m.resources = [](const Values& v) {
    const double runs = double(v.integer("runs")), steps = double(v.integer("steps"));
    const double rows = double(v.integer("synthetic-rows")), dim = double(v.integer("synthetic-dim")) + 1;
    return Estimate{16 * rows * dim, runs * (steps * 10 * dim + 200 * rows * dim) / 3e8};
  };
  return m;
}

}  // namespace jobs

}  // namespace netdp
