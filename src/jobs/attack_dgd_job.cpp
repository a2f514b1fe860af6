// `attack dgd` (docs/attack.md "D-GD"): the reconstruction attack on decentralized gradient descent of
// docs/math.md §7.3, on the built-in convex models or on Assumption 4.7 itself.
#include "netdp/jobs/attack_dgd_job.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/progress.hpp"
#include "jobs/attack_dgd_parts.hpp"
#include "jobs/attack_writers.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/io/csv_table.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

std::size_t idx(auto i) {
  return static_cast<std::size_t>(i);
}

double norm(const double* x, std::size_t d) {
  double s = 0;
  for (std::size_t i = 0; i < d; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

// ||a - b|| / ||b|| (||a - b|| when b = 0).
double relative_error(const double* a, const double* b, std::size_t d) {
  std::vector<double> diff(d);
  for (std::size_t i = 0; i < d; ++i) diff[i] = a[i] - b[i];
  const double nb = norm(b, d);
  return nb > 0 ? norm(diff.data(), d) / nb : norm(diff.data(), d);
}

// Running mean and variance over runs (Welford), NaN-free: empty when nothing was added.
struct Moments {
  int count = 0;
  double mean = 0, m2 = 0;
  void add(double x) {
    ++count;
    const double delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
  }
  double sd() const { return count > 1 ? std::sqrt(m2 / (count - 1)) : 0.0; }
};

CsvCell cell(const Moments& m, bool sd = false) {
  return m.count ? CsvCell(sd ? m.sd() : m.mean) : CsvCell(csv_empty);
}

// One line of estimates.csv: run 0's estimates at T.
struct EstimateRow {
  node_t node;
  std::size_t coordinate;
  double reference, ols, gls;
};

json mean_or_null(const Moments& m) {
  return m.count ? json(m.mean) : json(nullptr);
}

}  // namespace

void check_attack_dgd_job(const AttackDgdJob& job) {
  if (job.runs < 1) throw InvalidParameter("runs", "runs must be >= 1, got " + std::to_string(job.runs));
  if (job.attackers == "all")
    throw InvalidParameter("attackers", "attack dgd takes a set of attackers (a list or random:K), not all");
  if (job.weights.scheme == Weighting::file)
    throw InvalidParameter(
        "weights", "attack dgd decides identifiability exactly: it needs a named weighting, not a file");
  if (job.objective == DgdObjective::assumption && !job.data.empty())
    throw InvalidParameter("data", "objective assumption draws its updates from the seed: it takes no data");
  // The attackers against the graph's nodes and the data file, read whole (shape, finiteness; file:line),
  // before any work: the study's validation and Python's check() see them too.
  const node_t n = planned_node_count(job.graph);
  bool every = false;
  (void)attack::parse_attackers(job.attackers, n, job.params.seed, &every);
  if (!job.data.empty())
    (void)read_csv_data(
        job.data, job.objective == DgdObjective::quadratic ? Objective::quadratic : Objective::least_squares,
        n, 0);
}

RunResult run_attack_dgd_job(const AttackDgdJob& job) {
  const Stopwatch clock;
  const Graph g = make_graph(job.graph);
  bool every = false;
  const std::vector<node_t> attackers = attack::parse_attackers(job.attackers, g.n, job.params.seed, &every);
  const attack::DgdKnowledge k =
      attack::dgd_knowledge(g, job.weights, attackers, job.params.steps, job.params.gossip_rounds);
  const DgdProblem problem = make_dgd_problem(job, g.n);
  const int dim = problem.dim, T = job.params.steps;
  const std::size_t d = idx(dim), c = k.targets.size(), n = idx(g.n);

  std::vector<attack::DgdEstimator> estimators;
  ProgressLine estimator_progress("attack dgd estimators", "of the steps", job.progress);
  for (int t = 1; t <= T; ++t) {
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
    estimators.push_back(attack::dgd_estimator(k, t));
    estimator_progress.update(double(t) / T);
  }
  estimator_progress.finish();
  const double seconds_knowledge = clock.seconds();

  // Per target at T: errors over runs; per prefix t: the mean over the targets identifiable at t, over runs.
  std::vector<Moments> ols_error(c), gls_error(c), ols_data(c), gls_data(c);
  std::vector<Moments> step_ols(idx(T)), step_gls(idx(T)), step_ols_data(idx(T)), step_gls_data(idx(T));
  std::vector<EstimateRow> estimates;
  ProgressLine progress("attack dgd", "of the runs", job.progress);
  for (int r = 0; r < job.runs; ++r) {
    throw_if_stopped();
    attack::DgdAttackParams params = job.params;
    params.run = r;
    const attack::DgdRun run = attack::simulate_dgd(k, problem.theta0, dim, problem.update, params);
    const std::vector<double> y = attack::remove_contributions(k, problem.theta0, run);
    for (int t = 1; t <= T; ++t) {
      const attack::DgdEstimate e = attack::estimate_gradients(estimators[idx(t - 1)], y, dim);
      const double* reference = run.mean_updates.data() + idx(t - 1) * n * d;
      for (std::size_t j = 0; j < c; ++j) {
        if (k.identifiable_after[j] == 0 || k.identifiable_after[j] > t) continue;
        const std::size_t v = idx(k.targets[j]);
        const double eo = relative_error(e.ols.data() + j * d, reference + v * d, d);
        const double eg = relative_error(e.gls.data() + j * d, reference + v * d, d);
        // Noise of a huge sigma, or a step size times a gradient, overflows the updates: stop before a
        // non-finite estimate or error reaches a file (docs/reliability.md §1).
        require_finite(eo + eg,
                       "the reconstruction error of node " + std::to_string(k.targets[j]) + " at step " +
                           std::to_string(t),
                       "lower sigma or step-size");
        step_ols[idx(t - 1)].add(eo), step_gls[idx(t - 1)].add(eg);
        std::optional<double> dol, dgl;
        if (problem.invert) {
          dol = problem.invert(k.targets[j], e.ols.data() + j * d);
          dgl = problem.invert(k.targets[j], e.gls.data() + j * d);
          step_ols_data[idx(t - 1)].add(*dol), step_gls_data[idx(t - 1)].add(*dgl);
        }
        if (t == T) {
          ols_error[j].add(eo), gls_error[j].add(eg);
          if (dol) ols_data[j].add(*dol), gls_data[j].add(*dgl);
        }
      }
      if (r == 0 && t == T)
        for (std::size_t j = 0; j < c; ++j)
          for (std::size_t q = 0; q < d; ++q)
            estimates.push_back(
                {k.targets[j], q, reference[idx(k.targets[j]) * d + q], e.ols[j * d + q], e.gls[j * d + q]});
    }
    progress.update(double(r + 1) / job.runs);
  }
  progress.finish();

  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  // nodes.csv: one line per node; errors at T for the identifiable targets.
  std::vector<node_t> distance(n, std::numeric_limits<node_t>::max());
  for (node_t a : attackers) {
    const std::vector<node_t> da = bfs_distances(g, a);
    for (std::size_t v = 0; v < n; ++v)
      if (da[v] >= 0) distance[v] = std::min(distance[v], da[v]);
  }
  const attack::DgdEstimator& last = estimators.back();
  constexpr CsvType kInt = CsvType::int64, kFloat = CsvType::float64;
  CsvTable& nodes = result.table("nodes.csv", {{"node", kInt},
                                               {"role", CsvType::text},
                                               {"distance", kInt},  // empty: no attacker reaches the node
                                               {"identifiable_after", kInt},
                                               {"ols_error", kFloat},
                                               {"gls_error", kFloat},
                                               {"ols_error_sd", kFloat},
                                               {"gls_error_sd", kFloat},
                                               {"ols_data_error", kFloat},
                                               {"gls_data_error", kFloat},
                                               {"ols_sd", kFloat},
                                               {"gls_sd", kFloat}});
  std::vector<node_t> identifiable;
  Moments final_ols, final_gls, final_ols_data, final_gls_data;
  for (node_t v = 0; v < g.n; ++v) {
    const bool attacker = std::binary_search(attackers.begin(), attackers.end(), v);
    const bool observed = std::binary_search(k.observed.begin(), k.observed.end(), v);
    std::vector<CsvCell> row{v,
                             attacker   ? "attacker"
                             : observed ? "observed"
                                        : "target",
                             distance[idx(v)] != std::numeric_limits<node_t>::max()
                                 ? CsvCell(distance[idx(v)])
                                 : CsvCell(csv_empty)};
    if (attacker) {
      row.resize(12, csv_empty);
      nodes.row(row);
      continue;
    }
    const auto j = idx(std::lower_bound(k.targets.begin(), k.targets.end(), v) - k.targets.begin());
    const int after = k.identifiable_after[j];
    row.insert(row.end(), {after, cell(ols_error[j]), cell(gls_error[j]), cell(ols_error[j], true),
                           cell(gls_error[j], true), cell(ols_data[j]), cell(gls_data[j])});
    if (after > 0) {
      const double ols_sd = job.params.sigma * std::sqrt(last.ols_variance[j]),
                   gls_sd = job.params.sigma * std::sqrt(last.gls_variance[j]);
      require_finite(ols_sd + gls_sd, "the estimators' standard deviation of node " + std::to_string(v),
                     "lower sigma");
      row.insert(row.end(), {ols_sd, gls_sd});
    } else {
      row.resize(12, csv_empty);
    }
    nodes.row(row);
    if (after > 0) {
      identifiable.push_back(v);
      if (ols_error[j].count) final_ols.add(ols_error[j].mean), final_gls.add(gls_error[j].mean);
      if (ols_data[j].count) final_ols_data.add(ols_data[j].mean), final_gls_data.add(gls_data[j].mean);
    }
  }
  CsvTable& iterations = result.table("iterations.csv", {{"steps", kInt},
                                                         {"rows", kInt},
                                                         {"identifiable", kInt},
                                                         {"ols_error", kFloat},
                                                         {"gls_error", kFloat},
                                                         {"ols_data_error", kFloat},
                                                         {"gls_data_error", kFloat}});
  for (int t = 1; t <= T; ++t) {
    const auto i = idx(t - 1);
    const auto known = std::count_if(k.identifiable_after.begin(), k.identifiable_after.end(),
                                     [&](int a) { return a > 0 && a <= t; });
    iterations.row({t, k.rows_after(t), known, cell(step_ols[i]), cell(step_gls[i]), cell(step_ols_data[i]),
                    cell(step_gls_data[i])});
  }
  CsvTable& estimates_csv = result.table(
      "estimates.csv",
      {{"node", kInt}, {"coordinate", kInt}, {"reference", kFloat}, {"ols", kFloat}, {"gls", kFloat}});
  for (const EstimateRow& e : estimates) estimates_csv.row({e.node, e.coordinate, e.reference, e.ols, e.gls});

  json primes = json::array();
  for (const auto& p : k.primes)
    primes.push_back({{"prime", p.prime}, {"rank", p.rank}, {"identifiable", p.reconstructed}});
  json summary = {{"model", "attack dgd"},
                  {"n", g.n},
                  {"edges", g.num_edges()},
                  {"weights", to_string(job.weights)},
                  {"attackers", attackers},
                  {"observed", k.observed},
                  {"targets", c},
                  {"steps", T},
                  {"gossip_rounds", job.params.gossip_rounds},
                  {"rows", k.rows},
                  {"objective", to_string(job.objective)},
                  {"data", job.data.empty() ? json("synthetic") : json(job.data)},
                  {"dim", dim},
                  {"examples", problem.examples},
                  {"step_size", job.step_size},
                  {"sigma", job.params.sigma},
                  {"init", to_string(job.init)},
                  {"runs", job.runs},
                  {"seed", job.params.seed},
                  {"rank", k.rank},
                  {"identifiable", identifiable},
                  {"identifiable_fraction", c ? double(identifiable.size()) / double(c) : 0.0},
                  {"certificate",
                   {{"primes", primes},
                    {"agree", k.primes_agree},
                    {"statement",
                     "e_j in the row space of the knowledge matrix decided over Z/pZ for each prime, W's "
                     "rational entries "
                     "mapped to the field (docs/attack.md \"Exact method\")"}}},
                  {"error",
                   {{"ols", mean_or_null(final_ols)},
                    {"gls", mean_or_null(final_gls)},
                    {"ols_data", mean_or_null(final_ols_data)},
                    {"gls_data", mean_or_null(final_gls_data)},
                    {"inversion", problem.inversion}}},
                  {"seconds_knowledge", seconds_knowledge},
                  {"seconds", clock.seconds()}};
  json manifest = manifest_header("attack dgd", job.invocation);
  manifest["parameters"] = {{"graph", job.graph},
                            {"weights", to_string(job.weights)},
                            {"attackers", job.attackers},
                            {"steps", T},
                            {"gossip_rounds", job.params.gossip_rounds},
                            {"objective", to_string(job.objective)},
                            {"data", job.data},
                            {"dim", dim},
                            {"samples", job.samples},
                            {"step_size", job.step_size},
                            {"sigma", job.params.sigma},
                            {"init", to_string(job.init)},
                            {"runs", job.runs},
                            {"seed", job.params.seed}};
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model attack_dgd_model() {
  using namespace declare;
  Model m = named_model(
      "attack dgd",
      "reconstruction attack on decentralized gradient descent: OLS/GLS estimates of every target's gradient "
      "(docs/math.md §7.3)",
      "--graph florentine --weights max-degree --attackers 0 --steps 5 --objective least-squares --dim 3 "
      "--sigma 0.01 --runs 2 --out out/attack-dgd");
  using Job = AttackDgdJob;
  Binding<Job> bind;
  m.parameters = graph_parameters(
      bind,
      {bind(text("attackers", "attacking nodes: a list (0,1) or random:K").fallback("0"), &Job::attackers),
       bind(integer("steps", "gradient steps T observed").required().range(between(1, 1e5)), &Job::params,
            &attack::DgdAttackParams::steps),
       bind(integer("gossip-rounds", "gossip rounds K per gradient step (Remark 4.11)")
                .fallback("1")
                .range(between(1, 1e4)),
            &Job::params, &attack::DgdAttackParams::gossip_rounds),
       bind(choice("objective",
                   "assumption (Assumption 4.7: constant N(0, I) updates) | quadratic | least-squares",
                   {"assumption", "quadratic", "least-squares"})
                .fallback("assumption"),
            [](Job& job, const std::string& objective) { job.objective = parse_dgd_objective(objective); }),
       bind(text("data",
                 "CSV file: p features then a label (quadratic: p values) per row, split across the nodes "
                 "in file order; default: synthetic data from the seed"),
            [](Job& job, const std::string& path) { job.data = path; }),
       bind(integer("dim", "dimension p of synthetic data and of assumption updates")
                .fallback("1")
                .range(at_least(1)),
            &Job::dim),
       bind(integer("samples", "synthetic examples per node").fallback("1").range(at_least(1)),
            &Job::samples),
       bind(real("step-size", "learning rate eta of the models' updates -eta grad f_v")
                .fallback("0.1")
                .range(above(0)),
            &Job::step_size),
       bind(real("sigma",
                 "absolute std of the Gaussian noise added to every update coordinate (Assumption 4.7)")
                .unit(units::absolute_std)
                .fallback("0")
                .range(at_least(0)),
            &Job::params, &attack::DgdAttackParams::sigma),
       bind(choice("init", "public theta^0: optimum (near convergence) | zero | random (N(0, I) per node)",
                   {"optimum", "zero", "random"})
                .fallback("optimum"),
            [](Job& job, const std::string& init) { job.init = parse_dgd_init(init); }),
       bind(integer("runs", "replicates with independent noise (same data)")
                .fallback("1")
                .range(between(1, 1e6)),
            &Job::runs),
       bind(natural("seed", "seed of the data, the noise, random:K and a random theta^0").fallback("0"),
            &Job::params, &attack::DgdAttackParams::seed),
       out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_attack_dgd_job);
  m.execute = bind.run(run_attack_dgd_job);
  m.describe = [](const json& s, const RunContext& c) {
    // The mean relative error of one estimate, "-" when no target is identifiable.
    const auto error = [&s](const char* estimate) {
      const json& e = s["error"][estimate];
      return e.is_null() ? std::string("-") : format_double(e.get<double>());
    };
    return format_line(
        "attack dgd: n = %d, T = %d, %zu of %d targets identifiable, mean relative error OLS %s, GLS %s, "
        "%.3f s -> %s\n",
        s["n"].get<int>(), s["steps"].get<int>(), s["identifiable"].size(), s["targets"].get<int>(),
        error("ols").c_str(), error("gls").c_str(), s["seconds"].get<double>(), c.out_dir.string().c_str());
  };
  // The covariance (m x m, m = T K |N(A)|) and one SVD of up to m x n per step t dominate; each run adds two
  // products per step (~1 ns per multiply-add).
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, degree = n > 0 ? 2 * g.m / n : 0, T = job.params.steps,
                 rows = T * job.params.gossip_rounds * std::max(1.0, degree), runs = job.runs;
    return Estimate{8 * rows * (rows + n) * 3,
                    1e-9 * T * (rows * rows * (rows + n) + runs * rows * n * job.dim)};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
