// `netdp admm` (docs/admm.md): private consensus ADMM in its centralized, federated and random-walk forms
// (docs/math.md §8.2), the noise calibrated by the accounting of §8.3, the Thm 8.5 bound beside the runs.
#include "netdp/jobs/admm_job.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/simulation/admm_prox.hpp"

namespace netdp {

using json = nlohmann::json;

std::int64_t admm_default_sampled(std::int64_t users) {
  return std::max<std::int64_t>(1, (users + 4) / 5 - 1);
}

AdmmPrivacyParams admm_privacy_params(const AdmmJob& job, std::int64_t users, double lipschitz) {
  AdmmPrivacyParams p = job.privacy;
  p.setting = job.params.setting;
  p.users = users;
  p.sampled = job.sampled ? *job.sampled : admm_default_sampled(users);
  p.steps = job.params.steps;
  p.lipschitz = lipschitz;
  p.step_size = job.params.step_size;
  p.prox_scale = job.params.prox_scale;
  return p;
}

namespace {

/// The block activation probability q of Thm 8.5: 1, m / n, 1 / n.
double activation(const AdmmParams& p, std::int64_t users) {
  if (p.setting == AdmmSetting::centralized) return 1.0;
  return (p.setting == AdmmSetting::federated ? double(p.sampled) : 1.0) / double(users);
}

std::string curves_csv(const AdmmResult& r, const std::vector<double>& bound) {
  std::ostringstream csv;
  csv << jobs::learning_curves_header()
      << ",distance_mean,distance_std,utility_bound,max_participations_mean\n";
  for (std::size_t e = 0; e < r.step.size(); ++e) {
    csv << r.step[e] << jobs::statistics_cells(r.objective, e) << jobs::statistics_cells(r.accuracy, e);
    csv << ',' << format_double(r.distance.mean[e]) << ',' << format_double(r.distance.std[e]) << ','
        << format_double(bound[e]) << ',' << format_double(r.max_participations_mean[e]) << '\n';
  }
  return csv.str();
}

json guarantee_json(const AdmmPrivacyParams& p, AdmmGuarantee g, double sigma) {
  const AdmmEpsilon e = admm_epsilon(p, g, sigma);
  return {{"epsilon", jobs::finite_or_null(e.epsilon)},
          {"delta", p.delta},
          {"order", e.order},
          {"order_at_grid_edge", e.at_grid_edge},
          {"participations", admm_participations(p, g)}};
}

/// L: given, or max_j ||x_j|| for logistic (the loss's gradient norm is at most ||x_j||); 0 when unknown
/// (another loss with sigma given: no privacy is reported; check_admm_job refuses the calibration).
double lipschitz_of(const AdmmJob& job, const LocalData& train) {
  if (job.lipschitz > 0) return job.lipschitz;
  if (job.params.objective != Objective::logistic) return 0;
  double largest = 0;
  for (std::int64_t j = 0; j < train.examples(); ++j) {
    double s = 0;
    for (double v : train.x(j)) s += v * v;
    largest = std::max(largest, s);
  }
  return std::sqrt(largest);
}

}  // namespace

json run_admm_job(const AdmmJob& job) {
  const Stopwatch clock;
  AdmmParams p = job.params;
  if (job.users < 2) throw InvalidParameter("users", "users must be >= 2, got " + std::to_string(job.users));
  if (job.test_fraction < 0 || job.test_fraction >= 1)
    throw InvalidParameter("test-fraction",
                           "test-fraction must be in [0, 1), got " + format_double(job.test_fraction));
  const LocalData rows = job.data.empty()
                             ? synthetic_data(p.objective, 1, job.synthetic_dim,
                                              static_cast<int>(job.synthetic_rows), job.data_seed)
                             : read_csv_data(job.data, p.objective, 1);
  const LearningSplit split = [&] {
    try {
      return learning_split(rows, p.objective, static_cast<node_t>(job.users), job.test_fraction,
                            job.intercept, job.data_seed);
    } catch (const InvalidParameter& e) {  // the split names the users "graph" (walk-sgd's parameter)
      if (e.parameter() != "graph") throw;
      throw InvalidParameter("users",
                             "users: " + std::string(e.what()).substr(std::string("graph: ").size()));
    }
  }();
  const LocalData& train = split.train;
  p.sampled = job.sampled ? *job.sampled : admm_default_sampled(job.users);
  if (p.step_size == 0) p.step_size = p.prox_scale == AdmmProxScale::weighted ? double(job.users) : 1.0;
  const double lipschitz = lipschitz_of(job, train);
  AdmmJob resolved = job;
  resolved.params.step_size = p.step_size;
  const AdmmPrivacyParams privacy = admm_privacy_params(resolved, job.users, lipschitz > 0 ? lipschitz : 1.0);
  validate(privacy);
  p.sigma = job.sigma ? *job.sigma : calibrate_admm_sigma(privacy, job.epsilon);
  if (!job.eval_every_given) p.eval_every = std::max<std::int64_t>(1, p.steps / job.eval_points);
  validate(p, train);

  const Optimum opt = objective_optimum(p.objective, train, p.l2);
  const std::vector<double> u_star = admm_fixed_point(p, train, opt.theta);
  ProgressLine progress("admm", "of the runs", job.progress);
  const AdmmResult r = admm(train, split.test, p, u_star, [&](double f) { progress.update(f); });
  progress.finish();
  const double c = admm_prox_step(p, train.n), tau = admm_contraction(p.objective, train, p.l2, c);
  double d0 = 0;
  for (double v : u_star) d0 += v * v;
  const double q = activation(p, job.users), dim = double(u_star.size());
  std::vector<double> bound;
  for (std::int64_t k : r.step) bound.push_back(admm_utility_bound(k, q, tau, d0, dim, p.sigma));

  ResultsDir out(job.out_dir);
  out.write_text("curves.csv", curves_csv(r, bound));
  json privacy_json = lipschitz > 0 ? json::object() : json(nullptr);
  const AdmmGuarantee main = calibrated_guarantee(p.setting);
  if (lipschitz > 0) privacy_json[to_string(main)] = guarantee_json(privacy, main, p.sigma);
  if (lipschitz > 0 && p.setting == AdmmSetting::federated)
    privacy_json[to_string(AdmmGuarantee::federated_local)] =
        guarantee_json(privacy, AdmmGuarantee::federated_local, p.sigma);
  json summary = {
      {"model", "admm"},
      {"setting", to_string(p.setting)},
      {"objective", to_string(p.objective)},
      {"users", train.n},
      {"sampled", p.setting == AdmmSetting::federated ? json(p.sampled) : json(nullptr)},
      {"examples_per_user", train.size(0)},
      {"dim", train.dim},
      {"train_rows", train.examples()},
      {"test_rows", split.test.examples()},
      {"dropped_rows", split.dropped},
      {"steps", p.steps},
      {"runs", p.runs},
      {"step_size", p.step_size},
      {"prox_scale", to_string(p.prox_scale)},
      {"prox_step", c},
      {"relaxation", p.relaxation},
      {"l2", p.l2},
      {"lipschitz", lipschitz > 0 ? json(lipschitz) : json(nullptr)},
      {"epsilon", job.epsilon},
      {"delta", privacy.delta},
      {"sigma", p.sigma},
      {"sigma_source", job.sigma ? "given" : "calibrated"},
      {"calibrated_guarantee", to_string(main)},
      {"privacy", privacy_json},
      {"conversion", dp::to_string(privacy.conversion)},
      {"subsampling_constant", privacy.subsampling_constant},
      {"optimum", {{"objective", opt.value}, {"method", opt.method}, {"converged", opt.converged}}},
      {"utility_bound",
       {{"theorem", "8.5"},
        {"tau", tau},
        {"q", q},
        {"distance0", d0},
        {"dim", dim},
        {"sigma_squared_above_gap", p.sigma * p.sigma > 1 - tau},
        {"final", jobs::finite_or_null(bound.back())}}},
      {"final",
       {{"objective", jobs::final_statistics_json(r.objective)},
        {"accuracy", jobs::final_statistics_json(r.accuracy)},
        {"distance", jobs::final_statistics_json(r.distance)},
        {"max_participations_mean", r.max_participations_mean.back()}}},
      {"seconds_runs", r.seconds},
      {"threads", r.threads},
  };
  json manifest = manifest_header("admm", job.invocation);
  manifest["parameters"] = {{"data", job.data},
                            {"synthetic_rows", job.data.empty() ? json(job.synthetic_rows) : json(nullptr)},
                            {"synthetic_dim", job.data.empty() ? json(job.synthetic_dim) : json(nullptr)},
                            {"test_fraction", job.test_fraction},
                            {"intercept", job.intercept},
                            {"newton_steps", p.newton_steps},
                            {"seed", p.seed},
                            {"data_seed", job.data_seed},
                            {"eval_every", p.eval_every}};
  return publish_results(out, summary, std::move(manifest), json::array({"curves.csv"}), clock.seconds());
}

namespace jobs {

namespace {

AdmmJob admm_job(const Values& v, const RunContext& context) {
  AdmmJob job;
  auto& p = job.params;
  p.objective = parse_objective(v.text("objective"));
  p.setting = parse_admm_setting(v.text("setting"));
  p.prox_scale = parse_admm_prox_scale(v.text("prox-scale"));
  p.steps = v.integer("steps");
  p.step_size = v.real("step-size");
  p.relaxation = v.real("relaxation");
  p.l2 = v.real("l2");
  p.newton_steps = static_cast<int>(v.integer("newton-steps"));
  p.runs = v.integer("runs");
  p.seed = v.natural("seed");
  job.users = v.integer("users");
  if (!v.is_auto("sampled")) job.sampled = v.integer("sampled");
  if (v.has("sigma")) job.sigma = v.real("sigma");
  if (v.has("eval-every")) {
    p.eval_every = v.integer("eval-every");
    job.eval_every_given = true;
  }
  job.epsilon = v.real("epsilon");
  job.lipschitz = v.real("lipschitz");
  job.privacy.delta = v.real("delta");
  job.privacy.conversion = dp::parse_rdp_conversion(v.text("conversion"));
  job.privacy.subsampling_constant = v.real("subsampling-constant");
  job.data = v.has("data") ? v.text("data") : "";
  job.data_seed = v.natural("data-seed");
  job.synthetic_rows = v.integer("synthetic-rows");
  job.synthetic_dim = static_cast<int>(v.integer("synthetic-dim"));
  job.test_fraction = v.real("test-fraction");
  job.intercept = !v.flag("no-intercept");
  set_run_context(job, context);
  return job;
}

/// The checks that need no data.
void check_admm_job(const AdmmJob& job) {
  if (job.users < 2) throw InvalidParameter("users", "users must be >= 2, got " + std::to_string(job.users));
  if (job.sampled && (*job.sampled < 1 || *job.sampled > job.users))
    throw InvalidParameter("sampled", "sampled must be in [1, users = " + std::to_string(job.users) +
                                          "], got " + std::to_string(*job.sampled));
  if (job.params.objective != Objective::logistic && job.lipschitz == 0 && !job.sigma)
    throw InvalidParameter("lipschitz", "lipschitz: give L for " + to_string(job.params.objective) +
                                            " (its loss is not Lipschitz on all of R^p)");
  if (job.data.empty() && job.synthetic_rows < job.users)
    throw InvalidParameter("synthetic-rows",
                           "synthetic-rows must be >= users = " + std::to_string(job.users) + ", got " +
                               std::to_string(job.synthetic_rows));
}

}  // namespace

Model admm_model() {
  using namespace declare;
  Model m;
  m.name = "admm";
  m.example = "--setting walk --epsilon 2 --users 40 --runs 3 --steps 60 --synthetic-rows 600 --out out/admm";
  m.help =
      "private consensus ADMM (Alg 8.1-8.4): noisy Douglas-Rachford blocks, centralized, federated or "
      "random-walk, noise calibrated to (epsilon, delta) by Thm 8.7 / E.9 / 8.12";
  m.parameters = {
      choice("setting", "centralized (Alg 8.2) | federated (Alg 8.3) | walk (Alg 8.4)",
             {"centralized", "federated", "walk"})
          .fallback("centralized"),
      real("epsilon", "target epsilon of the setting's guarantee").fallback("1").range(above(0)),
      real("delta", "target delta").fallback("1e-06").range(between(0, 1)),
      real("sigma", "absolute std of the noise eta; given: no calibration")
          .range(at_least(0))
          .unit(units::absolute_std),
      integer("steps", "iterations K: rounds (centralized, federated) or token moves (walk)")
          .fallback("100")
          .range(at_least(1)),
      integer("runs", "independent runs R").fallback("1").range(at_least(1)),
      integer("users", "users n (blocks)").fallback("100").range(at_least(2)),
      count_or_auto("sampled", "federated: users m per round; auto: the largest m with m/n < 1/5")
          .fallback("auto")
          .range(at_least(1)),
      real("step-size", "gamma (0 = auto: n for prox-scale weighted, 1 for unweighted: prox step 1)")
          .fallback("0")
          .range(at_least(0)),
      real("relaxation", "lambda in (0, 1]").fallback("0.5").range(between(0, 1)),
      choice("prox-scale",
             "weighted: prox_{(gamma/n) f_i} (DR on (1/n) sum f_i) | unweighted: prox_{gamma f_i}",
             {"weighted", "unweighted"})
          .fallback("weighted"),
      real("lipschitz", "L of every loss (0 = auto: logistic max_j ||x_j||; required for the others)")
          .fallback("0")
          .range(at_least(0)),
      real("subsampling-constant", "Thm E.9 constant c in c alpha K L^2 gamma^2/(n^2 sigma^2): 16 or 32")
          .fallback("32")
          .range(above(0)),
      choice("conversion", "RDP -> (epsilon, delta): improved | classic", {"improved", "classic"})
          .fallback("improved"),
      choice("objective", "logistic | least-squares | quadratic", {"logistic", "least-squares", "quadratic"})
          .fallback("logistic"),
      real("l2", "ridge term mu/2 ||x||^2 in every f_i").fallback("0.01").range(at_least(0)),
      integer("newton-steps", "Newton steps of the logistic prox").fallback("3").range(at_least(1)),
      natural("seed", "Philox seed of the sampling, the walk and the noise").fallback("0")};
  append(m.parameters, learning_data_parameters());  // the rows, as walk-sgd and muffliato-sgd read them
  append(m.parameters, {integer("eval-every", "evaluate every e steps (default K/200)").range(at_least(1)),
                        threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = [](const Values& v) {
    AdmmJob job = admm_job(v, {});
    check_admm_job(job);
    if (job.params.step_size == 0)
      job.params.step_size = job.params.prox_scale == AdmmProxScale::weighted ? double(job.users) : 1.0;
    validate(admm_privacy_params(job, job.users, job.lipschitz > 0 ? job.lipschitz : 1.0));
  };
  m.execute = [](const Values& v, const RunContext& c) {
    const AdmmJob job = admm_job(v, c);
    check_admm_job(job);
    return run_admm_job(job);
  };
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("admm: %s, n = %d, K = %lld, R = %lld, sigma %.6g, ",
                       s["setting"].get<std::string>().c_str(), s["users"].get<int>(),
                       s["steps"].get<long long>(), s["runs"].get<long long>(), s["sigma"].get<double>()) +
           final_learning_report(s, c);
  };
  m.resources = [](const Values& v) {
    const LearningRunSize z = learning_run_size(v);
    const double users = double(v.integer("users"));
    const double per_step = v.text("setting") == "walk" ? z.rows / users : z.rows;
    return Estimate{16 * z.rows * z.dim, z.runs * z.steps * per_step * 4 * z.dim * z.dim / 3e8};
  };
  return m;
}

}  // namespace jobs

}  // namespace netdp
