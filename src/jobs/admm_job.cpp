// `netdp admm` (docs/admm.md): private consensus ADMM in its centralized, federated and random-walk forms
// (docs/math.md §8.2), the noise calibrated by the accounting of §8.3, the Thm 8.5 bound beside the runs.
#include "netdp/jobs/admm_job.hpp"

#include <algorithm>
#include <cmath>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/run_result.hpp"
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

CsvTable curves_table(const AdmmResult& r, const std::vector<double>& bound) {
  CsvTable csv("curves.csv", jobs::learning_curve_columns({"distance_mean", "distance_std", "utility_bound",
                                                           "max_participations_mean"}));
  for (std::size_t e = 0; e < r.step.size(); ++e) {
    auto row = jobs::learning_curve_cells(r.step[e], r.objective, r.accuracy, e);
    row.insert(row.end(), {r.distance.mean[e], r.distance.std[e], bound[e], r.max_participations_mean[e]});
    csv.row(row);
  }
  return csv;
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

void check_admm_job(const AdmmJob& job) {
  if (job.users < 2) throw InvalidParameter("users", "users must be >= 2, got " + std::to_string(job.users));
  if (job.sampled && (*job.sampled < 1 || *job.sampled > job.users))
    throw InvalidParameter("sampled", "sampled must be in [1, users = " + std::to_string(job.users) +
                                          "], got " + std::to_string(*job.sampled));
  if (job.params.objective != Objective::logistic && job.lipschitz == 0 && !job.sigma)
    throw InvalidParameter("lipschitz", "lipschitz: give L for " + to_string(job.params.objective) +
                                            " (its loss is not Lipschitz on all of R^p)");
  if (job.data.csv.empty() && job.data.synthetic_rows < job.users)
    throw InvalidParameter("synthetic-rows",
                           "synthetic-rows must be >= users = " + std::to_string(job.users) + ", got " +
                               std::to_string(job.data.synthetic_rows));
  jobs::check_learning_data(job.data, job.params.objective);
  AdmmJob resolved = job;  // the calibration's parameters, with the step size auto resolves to
  if (resolved.params.step_size == 0)
    resolved.params.step_size = job.params.prox_scale == AdmmProxScale::weighted ? double(job.users) : 1.0;
  validate(admm_privacy_params(resolved, job.users, job.lipschitz > 0 ? job.lipschitz : 1.0));
}

RunResult run_admm_job(const AdmmJob& job) {
  AdmmParams p = job.params;
  const LearningDataSpec& d = job.data;
  const LocalData rows =
      d.csv.empty() ? synthetic_data(p.objective, 1, d.synthetic_dim, static_cast<int>(d.synthetic_rows),
                                     d.seed, d.synthetic_separation)
                    : read_csv_data(d.csv, p.objective, 1);
  const LearningSplit split = [&] {
    try {
      return learning_split(rows, p.objective, static_cast<node_t>(job.users), d.test_fraction, d.intercept,
                            d.seed);
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
  require_finite(p.sigma * p.sigma, "the square of the noise std sigma", "lower sigma or raise epsilon");
  if (!job.eval_every_given) p.eval_every = std::max<std::int64_t>(1, p.steps / job.eval_points);
  validate(p, train);

  const Optimum opt = objective_optimum(p.objective, train, p.l2);
  const std::vector<double> u_star = admm_fixed_point(p, train, opt.theta);
  ProgressLine progress("admm", "of the runs", job.progress);
  const AdmmResult r = admm(train, split.test, p, u_star, [&](double f) { progress.update(f); });
  progress.finish();
  jobs::require_finite_curve(r.step, r.objective.mean, "the mean objective",
                             "lower step-size or sigma (the iterates diverge)");
  const double c = admm_prox_step(p, train.n), tau = admm_contraction(p.objective, train, p.l2, c);
  double d0 = 0;
  for (double v : u_star) d0 += v * v;
  const double q = activation(p, job.users), dim = double(u_star.size());
  std::vector<double> bound;
  for (std::int64_t k : r.step) bound.push_back(admm_utility_bound(k, q, tau, d0, dim, p.sigma));

  RunResult result;
  result.add(curves_table(r, bound));
  json privacy_json = lipschitz > 0 ? json::object() : json(nullptr);
  const AdmmGuarantee main = calibrated_guarantee(p.setting);
  if (lipschitz > 0) privacy_json[to_string(main)] = guarantee_json(privacy, main, p.sigma);
  if (lipschitz > 0 && p.setting == AdmmSetting::federated)
    privacy_json[to_string(AdmmGuarantee::federated_local)] =
        guarantee_json(privacy, AdmmGuarantee::federated_local, p.sigma);
  result.summary = {
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
  result.manifest = manifest_header("admm", job.invocation);
  result.manifest["parameters"] = {{"data", d.csv},
                                   {"synthetic_rows", d.csv.empty() ? json(d.synthetic_rows) : json(nullptr)},
                                   {"synthetic_dim", d.csv.empty() ? json(d.synthetic_dim) : json(nullptr)},
                                   {"test_fraction", d.test_fraction},
                                   {"intercept", d.intercept},
                                   {"newton_steps", p.newton_steps},
                                   {"seed", p.seed},
                                   {"data_seed", d.seed},
                                   {"eval_every", p.eval_every}};
  return result;
}

namespace jobs {

Model admm_model() {
  using namespace declare;
  Model m = named_model(
      "admm",
      "private consensus ADMM (Alg 8.1-8.4): noisy Douglas-Rachford blocks, centralized, federated or "
      "random-walk, noise calibrated to (epsilon, delta) by Thm 8.7 / E.9 / 8.12",
      "--setting walk --epsilon 2 --users 40 --runs 3 --steps 60 --synthetic-rows 600 --out out/admm");
  Binding<AdmmJob> bind;
  using Job = AdmmJob;
  using P = AdmmParams;
  m.parameters = {
      bind(choice("setting", "centralized (Alg 8.2) | federated (Alg 8.3) | walk (Alg 8.4)",
                  {"centralized", "federated", "walk"})
               .fallback("centralized"),
           [](Job& j, const std::string& setting) { j.params.setting = parse_admm_setting(setting); }),
      bind(real("epsilon", "target epsilon of the setting's guarantee").fallback("1").range(above(0)),
           &Job::epsilon),
      bind(real("delta", "target delta").fallback("1e-06").range(between(0, 1)), &Job::privacy,
           &AdmmPrivacyParams::delta),
      bind(real("sigma", "absolute std of the noise eta; given: no calibration")
               .range(at_least(0))
               .unit(units::absolute_std),
           &Job::sigma),
      bind(integer("steps", "iterations K: rounds (centralized, federated) or token moves (walk)")
               .fallback("100")
               .range(at_least(1)),
           &Job::params, &P::steps),
      bind(integer("runs", "independent runs R").fallback("1").range(at_least(1)), &Job::params, &P::runs),
      bind(integer("users", "users n (blocks)").fallback("100").range(at_least(2)), &Job::users),
      bind(count_or_auto("sampled", "federated: users m per round; auto: the largest m with m/n < 1/5")
               .fallback("auto")
               .range(at_least(1)),
           [](Job& j, CountOrAuto m) {
             if (!m.is_auto) j.sampled = m.count;
           }),
      bind(real("step-size", "gamma (0 = auto: n for prox-scale weighted, 1 for unweighted: prox step 1)")
               .fallback("0")
               .range(at_least(0)),
           &Job::params, &P::step_size),
      bind(real("relaxation", "lambda in (0, 1]").fallback("0.5").range(between(0, 1)), &Job::params,
           &P::relaxation),
      bind(choice("prox-scale",
                  "weighted: prox_{(gamma/n) f_i} (DR on (1/n) sum f_i) | unweighted: prox_{gamma f_i}",
                  {"weighted", "unweighted"})
               .fallback("weighted"),
           [](Job& j, const std::string& scale) { j.params.prox_scale = parse_admm_prox_scale(scale); }),
      bind(real("lipschitz", "L of every loss (0 = auto: logistic max_j ||x_j||; required for the others)")
               .fallback("0")
               .range(at_least(0)),
           &Job::lipschitz),
      bind(real("subsampling-constant", "Thm E.9 constant c in c alpha K L^2 gamma^2/(n^2 sigma^2): 16 or 32")
               .fallback("32")
               .range(above(0)),
           &Job::privacy, &AdmmPrivacyParams::subsampling_constant),
      bind(choice("conversion", "RDP -> (epsilon, delta): improved | classic", {"improved", "classic"})
               .fallback("improved"),
           [](Job& j, const std::string& c) { j.privacy.conversion = dp::parse_rdp_conversion(c); }),
      bind(choice("objective", "logistic | least-squares | quadratic",
                  {"logistic", "least-squares", "quadratic"})
               .fallback("logistic"),
           [](Job& j, const std::string& objective) { j.params.objective = parse_objective(objective); }),
      bind(real("l2", "ridge term mu/2 ||x||^2 in every f_i").fallback("0.01").range(at_least(0)),
           &Job::params, &P::l2),
      bind(integer("newton-steps", "Newton steps of the logistic prox").fallback("3").range(at_least(1)),
           &Job::params, &P::newton_steps),
      bind(natural("seed", "Philox seed of the sampling, the walk and the noise").fallback("0"), &Job::params,
           &P::seed)};
  append(m.parameters, learning_data_parameters(bind));  // the rows, as walk-sgd and muffliato-sgd read them
  append(m.parameters,
         {bind(integer("eval-every", "evaluate every e steps (default K/200)").range(at_least(1)),
               [](Job& j, std::int64_t every) {
                 j.params.eval_every = every;
                 j.eval_every_given = true;
               }),
          threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_admm_job);
  m.execute = bind.run(run_admm_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("admm: %s, n = %d, K = %lld, R = %lld, sigma %.6g, ",
                       s["setting"].get<std::string>().c_str(), s["users"].get<int>(),
                       s["steps"].get<long long>(), s["runs"].get<long long>(), s["sigma"].get<double>()) +
           final_learning_report(s, c);
  };
  m.resources = bind.estimate([](const Job& job) {
    const double rows = double(job.data.synthetic_rows), dim = double(job.data.synthetic_dim) + 1;
    const double users = double(job.users);
    const double per_step = job.params.setting == AdmmSetting::walk ? rows / users : rows;
    Estimate e{16 * rows * dim,
               double(job.params.runs) * double(job.params.steps) * per_step * 4 * dim * dim / 3e8};
    e.required_bytes = learning_data_bytes(job.data);  // the rows, drawn whole
    return e;
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
