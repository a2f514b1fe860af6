// `netdp muffliato-gd` as a library call: graph, data, Algorithm 6.3's runs, privacy accounting, results
// directory (docs/muffliato_gd.md).
#include "netdp/jobs/muffliato_gd_job.hpp"

#include <cmath>
#include <cstdio>

#include "core/progress.hpp"
#include "jobs/convex_model_job_parts.hpp"  // require_finite_curve
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/accounting/loss_statistics.hpp"
#include "netdp/accounting/muffliato_exact.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

/// Delta_phi and the rule that gave it (docs/muffliato_gd.md "Privacy").
std::pair<double, std::string> sensitivity_of(const MuffliatoGdJob& job) {
  const auto& p = job.params;
  if (job.sensitivity) return {*job.sensitivity, "given (sensitivity)"};
  if (p.noise_order == NoiseOrder::reference_code)
    return {0.5, "reference code: 0.5, the [R-MUF] assumption for normalised features"};
  if (p.clip > 0) return {2 * p.clip, "2 L: per-example gradients clipped to L, D_u replaced as a whole"};
  return {1.0, "assumed 1: nothing bounds the gradients without clip; give sensitivity"};
}

/// Why the run's states are not linear in the data and the noise (docs/math.md §6.5 "Exact accounting of
/// linear runs"); empty for a linear run.
std::string nonlinear_reason(const MuffliatoGdJob& job) {
  const auto& p = job.params;
  if (p.objective == Objective::logistic)
    return "nonlinear gradient: the logistic gradient is nonlinear in theta";
  if (p.objective == Objective::least_squares)
    return "nonlinear in the data: u's least-squares features multiply theta";
  if (p.clip > 0) return "clip makes the gradient nonlinear";
  if (p.noise_order == NoiseOrder::reference_code) return "reference-code clips the noisy gradient";
  return "";
}

/// The accountant: the one given, else exact for linear runs and the LDP composition otherwise.
std::string accounting_of(const MuffliatoGdJob& job) {
  if (!job.accounting.empty()) return job.accounting;
  return nonlinear_reason(job).empty() ? "exact" : "ldp";
}

/// The pairwise Renyi losses of the chosen accountant into `sink`; `name` gets privacy.csv's accountant and
/// `label` summary.json's (docs/muffliato_gd.md "Privacy accounting").
GossipLossRun account_privacy(const MuffliatoGdJob& job, const Graph& g, const CsrMatrix& w,
                              const MuffliatoGdParams& p, const GossipLossParams& loss, double gamma,
                              LossRowSink& sink, LossRowSink* epsilon, std::string& name,
                              std::string& label) {
  const std::string accounting = accounting_of(job);
  if (accounting == "theorem") {
    name = p.er_per_round ? "thm-C.9" : "thm-6.9";
    label = p.er_per_round ? "Theorem C.9 (eq. C.4): run 0's graph sequence" : "Theorem 6.9: fixed W";
    return muffliato_gd_privacy(g, w, p, loss, 0, sink);
  }
  const node_t n = g.n, first = job.source.value_or(0), rows = job.source ? 1 : n;
  std::vector<double> out(std::size_t(rows) * std::size_t(n));
  GossipLossRun run;
  if (accounting == "ldp") {  // u's T noisy updates composed; everything v sees is computed from them
    name = "ldp", label = "LDP composition: T Gaussian releases of u's update";
    for (node_t i = 0; i < rows; ++i)
      for (node_t v = 0; v < n; ++v)
        out[std::size_t(i) * n + v] = v == first + i ? 0.0 : p.steps * gossip_ldp_loss(loss);
    run.accounting = "ldp";
  } else {  // run 0's rounds, mu_uv^2 = (Delta / s)^2 share
    const GossipSchedule s = muffliato_gd_schedule(g, w, p, 0);
    std::vector<double> gammas(1, gamma);
    if (p.er_per_round) {
      gammas.assign(std::size_t(p.steps), 1.0);  // K = 1 uses none
      for (int t = 0; p.gossip_steps > 1 && t < p.steps; ++t)
        gammas[std::size_t(t)] = chebyshev_gamma(spectral_summary(s.round(t).w).gap(p.gap_definition));
    }
    MuffliatoExactParams e;
    e.rounds = p.steps;
    e.gossip_steps = p.gossip_steps;
    e.state_factor = 1 - p.step_size * (1 + p.l2);  // theta - nu ((1 + mu) theta - ybar)
    e.same_shift = p.batch == 0;
    e.knows_noise = job.observer_knows == ObserverKnowledge::input_and_noise;
    e.source = job.source;
    e.memory_limit = job.memory_limit;
    // --device cuda (or auto finding a device): the accountant's CUDA twin (docs/cuda_backend.md "Muffliato
    // exact twins"); the training stays on the CPU.
    e.device = job.device_given ? parse_device_spec(job.device) : DeviceSpec{DeviceKind::cpu, 0};
    const MuffliatoExactResult r = muffliato_exact_shares(s, gammas, e);
    name = r.bound ? "bound" : "exact";
    label = r.bound ? "bound: the linear view of run 0, sum |M| over the rounds' shifts (mini-batches)"
                    : "exact: the Gaussian view of run 0's T rounds";
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = gossip_ldp_loss(loss) * r.share[i];
    run = r.run;
  }
  sink.consume(first, rows, out);
  if (epsilon && job.delta) {  // mu = sqrt(2 loss / alpha), then the analytic Gaussian curve (§1.2 G4)
    for (double& x : out) x = x > 0 ? dp::gdp_epsilon(std::sqrt(2 * x / loss.alpha), *job.delta) : 0.0;
    epsilon->consume(first, rows, out);
  }
  return run;
}

json aggregate_json(const LossAggregate& a) {
  return {
      {"pairs", a.count}, {"mean", a.mean()}, {"min", a.count ? a.min : 0.0}, {"max", a.count ? a.max : 0.0}};
}

/// privacy.csv's rows of one accountant: "all", then by distance ("inf" last); the distance column is text.
void privacy_csv_rows(CsvTable& csv, const std::string& name, const json& all, const json& rows) {
  auto line = [&](const std::string& distance, const json& r) {
    csv.row({name, distance, r["pairs"].get<std::int64_t>(), r["mean"].get<double>(), r["min"].get<double>(),
             r["max"].get<double>()});
  };
  line("all", all);
  for (const auto& r : rows)
    line(r["distance"].is_string() ? r["distance"].get<std::string>()
                                   : std::to_string(r["distance"].get<int>()),
         r);
}

/// curves.csv (docs/muffliato_gd.md "Outputs").
CsvTable curves_table(const MuffliatoGdResult& r) {
  const bool logistic = !r.accuracy.mean.empty();
  std::vector<CsvColumn> columns{{"t", CsvType::int64}};
  for (const char* c : {"objective", "gap", "node_objective", "consensus", "accuracy"}) {
    if (std::string(c) == "accuracy" && !logistic) continue;
    columns.push_back({std::string(c) + "_mean", CsvType::float64});
    columns.push_back({std::string(c) + "_stderr", CsvType::float64});
  }
  CsvTable csv("curves.csv", columns);
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    std::vector<CsvCell> row{r.t[i]};
    for (const MeanCurve* c : {&r.objective, &r.gap, &r.node_objective, &r.consensus, &r.accuracy})
      if (!c->mean.empty()) row.insert(row.end(), {c->mean[i], c->std_error[i]});
    csv.row(row);
  }
  return csv;
}

json final_json(const MuffliatoGdResult& r) {
  const std::size_t last = r.t.size() - 1;
  json f = {{"t", r.t[last]}};
  const std::pair<const char*, const MeanCurve*> curves[] = {{"objective", &r.objective},
                                                             {"gap", &r.gap},
                                                             {"node_objective", &r.node_objective},
                                                             {"consensus", &r.consensus},
                                                             {"accuracy", &r.accuracy}};
  for (const auto& [name, c] : curves)
    if (!c->mean.empty())
      f[name] = {{"mean", c->mean[last]}, {"stderr", jobs::finite_or_null(c->std_error[last])}};
  return f;
}

/// The checks that need no data and no built graph: the command runs them first, the study's validation at
/// every grid point (source < n included).
void check_muffliato_gd_job(const MuffliatoGdJob& job) {
  const MuffliatoGdParams& p = job.params;
  if (const DeviceSpec device = job.device_given ? parse_device_spec(job.device) : DeviceSpec{};
      device.kind == DeviceKind::cuda) {
    if (accounting_of(job) != "exact")
      throw InvalidParameter("device",
                             "device " + job.device +
                                 ": only the exact accountant of muffliato-gd runs on CUDA (accounting " +
                                 accounting_of(job) + " runs on the CPU); use device cpu or auto");
    resolve_device(device);  // DeviceUnavailable before any work
  }
  if (job.er_c && !(*job.er_c > 0 && std::isfinite(*job.er_c)))
    throw InvalidParameter("er-c", "er-c must be a finite number > 0, got " + format_double(*job.er_c));
  if (job.dim < 0) throw InvalidParameter("dim", "dim must be >= 1, got " + std::to_string(job.dim));
  if (job.samples < 0)
    throw InvalidParameter("samples", "samples must be >= 1, got " + std::to_string(job.samples));
  // Iterates of size nu s (s = gradient-noise) are squared by the objective: above ~1e150 the squares
  // overflow to inf and the curves to NaN (docs/muffliato_gd.md "Options").
  if (p.step_size * p.sigma > 1e150)
    throw InvalidParameter("gradient-noise", "gradient-noise: the iterate's noise std nu s = " +
                                                 format_double(p.step_size * p.sigma) +
                                                 " is beyond 1e150, where the objective's squares overflow");
  if (!job.er_c) check_job_weights(job.graph, job.weights);  // a W file, read whole
  if (job.delta && accounting_of(job) == "theorem")
    throw InvalidParameter("delta", "delta needs accounting exact or ldp: Theorem 6.9 / C.9 give no mu");
  if (job.observer_knows_given && accounting_of(job) != "exact")
    throw InvalidParameter("observer-knows",
                           "observer-knows is only used by accounting exact (docs/math.md "
                           "§6.9); accounting " +
                               accounting_of(job) + " would ignore it");
  if (job.accounting == "exact" && !nonlinear_reason(job).empty())
    throw InvalidParameter("accounting",
                           "accounting exact needs a linear run (quadratic objective, no clip, "
                           "no reference-code): " +
                               nonlinear_reason(job) + "; use accounting ldp (a valid bound) or theorem");
  if (p.sigma > 0)
    validate(muffliato_gd_loss_params(p, job.alpha, sensitivity_of(job).first, job.cap_ldp, job.source),
             planned_node_count(job.graph));
}

}  // namespace

RunResult run_muffliato_gd_job(const MuffliatoGdJob& job) {
  const Stopwatch clock;
  MuffliatoGdParams p = job.params;
  p.er_per_round = job.er_c.has_value();
  const auto [sensitivity, sensitivity_rule] = sensitivity_of(job);

  JobGraph jg;
  if (p.er_per_round) {
    jg.g = make_graph(job.graph);
  } else {
    jg = load_job_graph(job.graph, job.weights, p.gap_definition, true, job.progress);
    p.spectral_gap = jg.gap;
  }
  const Graph& g = jg.g;
  if (p.er_per_round) p.edge_probability = g.n > 1 ? *job.er_c * std::log(double(g.n)) / g.n : 1.0;
  const int samples = job.samples > 0 ? job.samples : p.objective == Objective::quadratic ? 1 : 10;
  const LocalData data = job.data.empty() ? synthetic_data(p.objective, g.n, job.dim, samples, p.seed)
                                          : read_csv_data(job.data, p.objective, g.n, job.dim);
  validate(p, data);
  // The trusted aggregator sees every update: no pairwise accounting (docs/muffliato_gd.md "Federated
  // baseline").
  const bool private_run = p.sigma > 0 && !p.exact_averaging;
  GossipLossParams loss = muffliato_gd_loss_params(p, job.alpha, sensitivity, job.cap_ldp, job.source);
  loss.memory_limit = job.memory_limit;
  if (private_run) validate(loss, g.n);
  if (p.er_per_round) muffliato_gd_schedule(g, jg.w, p, 0);  // a q too small for connected graphs fails here
  const double setup_seconds = clock.seconds();

  RunResult result;
  result.node_ids = jg.g.file_ids;  // node_map.csv for a renumbered file graph
  ProgressLine progress("muffliato-gd", "of the runs", job.progress);
  const MuffliatoGdResult r = muffliato_gd(g, jg.w, data, p, [&](double f) { progress.update(f); });
  progress.finish();
  jobs::require_finite_curve(r.t, r.objective.mean, "the mean objective",
                             "lower step-size or gradient-noise (the iterates diverge)");
  result.add(curves_table(r));
  json privacy = nullptr;
  double privacy_seconds = 0;
  if (private_run) {
    const Stopwatch privacy_clock;
    LossStatistics stats(g);
    std::string name, label;
    LossStatistics epsilon_stats(g);
    const GossipLossRun run =
        account_privacy(job, g, jg.w, p, loss, r.gamma, stats, &epsilon_stats, name, label);
    const LossAggregate all = stats.overall();
    if (all.count > 0) {  // no non-finite number in an output (docs/reliability.md §1)
      require_finite(all.max, "the largest pairwise loss",
                     "lower alpha or sensitivity, or raise gradient-noise");
      require_finite(all.mean(), "the mean pairwise loss",
                     "lower alpha or sensitivity, or raise gradient-noise");
    }
    const json rows = distance_rows(stats.by_distance());
    const double ldp = gossip_ldp_loss(loss);
    privacy = {{"accountant", label},
               {"accounting", accounting_of(job)},
               {"delta", job.delta ? json(*job.delta) : json(nullptr)},
               {"observer_knows",
                accounting_of(job) == "exact" ? json(to_string(job.observer_knows)) : json(nullptr)},
               {"alpha", loss.alpha},
               {"sigma", loss.sigma},
               {"sensitivity", loss.sensitivity},
               {"sensitivity_rule", sensitivity_rule},
               {"ldp_per_step", ldp},
               {"ldp_total", p.steps * ldp},
               {"cap", job.cap_ldp ? "T x LDP" : "none"},
               {"source", job.source ? json(*job.source) : json(nullptr)},
               {"by_distance", rows},
               {"accountant_seconds", run.seconds},
               {"accountant_device", run.device.empty() ? json(nullptr) : json(run.device)},
               {"memory_estimate_bytes", run.memory_estimate}};
    privacy.update(aggregate_json(all));
    if (job.delta) {
      const LossAggregate e = epsilon_stats.overall();
      privacy["epsilon_at_delta"] = {{"delta", *job.delta},
                                     {"mean", e.mean()},
                                     {"min", e.count ? e.min : 0.0},
                                     {"max", e.count ? e.max : 0.0},
                                     {"by_distance", distance_rows(epsilon_stats.by_distance())}};
    }
    json warnings = json::array();
    if (name.starts_with("thm"))
      warnings.push_back(built_on_theorem_warning(p.er_per_round ? std::string("Theorem C.9's accountant")
                                                                 : std::string("Theorem 6.9's accountant")));
    if (run.accounting == "exact" || run.accounting == "bound")  // what the bases kept (docs/math.md §6.9)
      privacy["view"] = {{"rank_min", run.view_rank_min}, {"rank_mean", run.view_rank_mean},
                         {"rank_max", run.view_rank_max}, {"dropped", run.view_dropped},
                         {"floor", run.view_floor},       {"smallest_kept", run.view_smallest_kept},
                         {"observer_batches", run.passes}};
    if (p.er_per_round)
      warnings.push_back(
          built_on_theorem_warning("the per-round Erdos-Renyi bound (Theorem 6.6, er-round-sum)"));
    for (const auto& w : warnings)  // --quiet: summary.json only
      if (job.progress) std::fprintf(stderr, "netdp: warning: %s\n", w.get<std::string>().c_str());
    privacy["warnings"] = warnings;
    if (!job.source) {
      const auto mean = stats.observer_mean();
      privacy["max_mean_observer"] = *std::max_element(mean.begin(), mean.end());
    }
    CsvTable& csv = result.table("privacy.csv", {{"accountant", CsvType::text},
                                                 {"distance", CsvType::text},  // "all", 1, 2, ..., "inf"
                                                 {"pairs", CsvType::int64},
                                                 {"mean", CsvType::float64},
                                                 {"min", CsvType::float64},
                                                 {"max", CsvType::float64}});
    privacy_csv_rows(csv, name, aggregate_json(all), rows);

    if (p.er_per_round) {  // Fig. 6.1c: the per-round bound of Thm 6.6, summed over the T iterations
      const node_t u = job.source.value_or(0);
      const ErBoundVariant variant = p.noise_order == NoiseOrder::reference_code
                                         ? ErBoundVariant::reference_code
                                         : ErBoundVariant::theorem;
      const auto sums = er_round_loss_sum(muffliato_gd_schedule(g, jg.w, p, 0), p.edge_probability,
                                          p.gossip_steps, loss, u, variant);
      const auto distance = bfs_distances(g, u);
      std::vector<LossAggregate> buckets;
      LossAggregate total;
      for (node_t v = 0; v < g.n; ++v) {
        if (v == u) continue;
        const std::size_t b = static_cast<std::size_t>(distance[v] + 1);
        if (buckets.size() <= b) buckets.resize(b + 1);
        buckets[b].add(sums[v]);
        total.add(sums[v]);
      }
      if (buckets.empty()) buckets.resize(1);
      const json er_rows = distance_rows(buckets);
      const double sigma = loss.sigma, delta = loss.sensitivity, a = loss.alpha;
      json er = {{"source", u},
                 {"variant", variant == ErBoundVariant::theorem ? "theorem" : "reference-code"},
                 {"valid", sigma * sigma >= delta * delta * a * (a - 1) / 2},
                 {"by_distance", er_rows}};
      er.update(aggregate_json(total));
      privacy["er_round_sum"] = er;
      privacy_csv_rows(csv, "er-round-sum", aggregate_json(total), er_rows);
    }
    privacy_seconds = privacy_clock.seconds();
  }

  const auto degrees = degree_stats(g);
  json optimum = {{"value", r.optimum.value},
                  {"theta", r.optimum.theta},
                  {"method", r.optimum.method},
                  {"iterations", r.optimum.iterations},
                  {"gradient_norm", r.optimum.gradient_norm},
                  {"converged", r.optimum.converged}};
  json summary = {
      {"model", "muffliato-gd"},
      {"objective", to_string(p.objective)},
      {"data", job.data.empty() ? json("synthetic") : json(job.data)},
      {"n", g.n},
      {"edges", g.num_edges()},
      {"degree", {{"min", degrees.min}, {"mean", degrees.mean}, {"max", degrees.max}}},
      {"dim", data.dim},
      {"examples", data.examples()},
      {"steps", p.steps},
      {"gossip_rounds", p.gossip_steps},
      {"averaging", p.exact_averaging ? "exact" : "gossip"},
      {"step_size", p.step_size},
      // gradient_noise is the name since issue 29; sigma, the same number, stays for one release
      // (docs/outputs.md "muffliato-gd").
      {"gradient_noise", p.sigma},
      {"sigma", p.sigma},
      {"gradient_noise_std", gradient_noise_std(p.sigma, p.noise_order)},
      {"noise_order", p.noise_order == NoiseOrder::reference_code ? "reference-code" : "clip-then-noise"},
      {"batch", p.batch},
      {"clip", p.clip},
      {"l2", p.l2},
      {"runs", p.runs},
      {"seed", p.seed},
      {"graphs", p.er_per_round ? "fresh G(n, q) per iteration, W-MH" : "fixed W"},
      {"optimum", optimum},
      {"final", final_json(r)},
      {"privacy", privacy},
      {"device", r.device},
      {"seconds", r.seconds},
      {"seconds_privacy", privacy_seconds},
      {"seconds_total", clock.seconds()},
  };
  if (private_run && !privacy["warnings"].empty()) summary["warnings"] = privacy["warnings"];
  if (p.er_per_round) {
    summary["er_c"] = *job.er_c;
    summary["edge_probability"] = p.edge_probability;
  } else {
    summary["weights"] = to_string(job.weights);
    summary["spectral_gap"] = r.spectral_gap;
    summary["gap_definition"] = to_string(p.gap_definition);
    summary["gamma"] = r.gamma;
  }
  json manifest = manifest_header("muffliato-gd", job.invocation);
  manifest.update({
      {"parameters",
       {{"graph", job.graph},
        {"weights", to_string(job.weights)},
        {"objective", to_string(p.objective)},
        {"data", job.data},
        {"dim", data.dim},
        {"samples", job.data.empty() ? json(samples) : json(nullptr)},
        {"steps", p.steps},
        {"gossip_rounds", p.gossip_steps},
        {"averaging", p.exact_averaging ? "exact" : "gossip"},
        {"step_size", p.step_size},
        {"gradient_noise", p.sigma},
        {"sigma", p.sigma},  // the old name, for one release
        {"runs", p.runs},
        {"seed", p.seed},
        {"er_c", job.er_c ? json(*job.er_c) : json(nullptr)},
        {"batch", p.batch},
        {"clip", p.clip},
        {"l2", p.l2},
        {"noise_order", p.noise_order == NoiseOrder::reference_code ? "reference-code" : "clip-then-noise"},
        {"gap_definition", to_string(p.gap_definition)},
        {"alpha", job.alpha},
        {"sensitivity", sensitivity},
        {"cap", job.cap_ldp ? "ldp" : "none"},
        {"accounting", accounting_of(job)},
        {"delta", job.delta ? json(*job.delta) : json(nullptr)},
        {"observer_knows",
         accounting_of(job) == "exact" ? json(to_string(job.observer_knows)) : json(nullptr)},
        {"source", job.source ? json(*job.source) : json(nullptr)}}},
      {"backend", {{"device", r.device}, {"propagation", "sparse, one run per thread"}}},
      {"seconds_setup", setup_seconds},
  });
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model muffliato_gd_model() {
  using namespace declare;
  Model m = named_model(
      "muffliato-gd",
      "Muffliato-GD / SGD (Alg 6.3): local gradient steps, Gaussian noise, K accelerated gossip steps; "
      "utility "
      "curves over runs and privacy (exact for linear runs, else LDP; Thm 6.9 / C.9 on request)",
      "--graph ring:n=16 --steps 50 --gossip-rounds 3 --dim 2 --gradient-noise 0.1 --out out/muffliato-gd");
  Binding<MuffliatoGdJob> bind;
  using Job = MuffliatoGdJob;
  using P = MuffliatoGdParams;
  m.parameters = graph_parameters(
      bind,
      {bind(choice("objective", "quadratic | least-squares | logistic",
                   {"quadratic", "least-squares", "logistic"})
                .fallback("quadratic"),
            [](Job& j, const std::string& o) { j.params.objective = parse_objective(o); }),
       bind(text("data",
                 "CSV file: rows of p features then a label (+-1 for logistic; quadratic: p values), split "
                 "across "
                 "the nodes in file order; default: synthetic data from the seed"),
            [](Job& j, const std::string& path) { j.data = path; }),
       bind(integer("dim", "dimension p (synthetic data: required; with data: from the file)"),
            [](Job& j, int dim) { j.dim = dim; }),
       bind(integer("samples", "synthetic examples per node (default 1 for quadratic, 10 otherwise)"),
            [](Job& j, int samples) { j.samples = samples; }),
       bind(integer("steps", "outer iterations T (gradient steps)").required().range(at_least(1)),
            &Job::params, &P::steps),
       bind(
           integer("gossip-rounds", "accelerated gossip steps K per iteration").required().range(at_least(1)),
           &Job::params, &P::gossip_steps),
       bind(choice("averaging",
                   "gossip: K accelerated gossip steps per iteration (Muffliato-GD); exact: the "
                   "trusted-aggregator "
                   "baseline of Fig. 6.1c, every node gets the mean of the noisy updates (no pairwise "
                   "accounting)",
                   {"gossip", "exact"})
                .fallback("gossip"),
            [](Job& j, const std::string& averaging) { j.params.exact_averaging = averaging == "exact"; }),
       bind(real("step-size", "step size nu").fallback("0.1").range(above(0)), &Job::params, &P::step_size),
       // The std of the noise on a gradient, which reaches the iterate times the step size: not the absolute
       // std that sigma is elsewhere (issue 29; docs/muffliato_gd.md "Algorithm"). --sigma is its deprecated
       // spelling.
       // MuffliatoGdParams::sigma: the gradient's std s (docs/muffliato_gd.md)
       bind(real("gradient-noise",
                 "std s of the Gaussian noise on each gradient coordinate, in gradient units: theta_hat gets "
                 "N(0, nu^2 s^2) per coordinate (0 = no noise)")
                .fallback("0")
                .range(at_least(0))
                .unit(units::gradient_std)
                .alias("sigma"),
            &Job::params, &P::sigma),
       bind(integer("runs", "independent runs R").fallback("1").range(at_least(1)), &Job::params, &P::runs),
       bind(natural("seed", "Philox seed of data, noise, batches and graphs").fallback("0"), &Job::params,
            &P::seed),
       // Declared after seed, so that it wins (setters run in declaration order). A study replaces seed by
       // the unit's own seed, different for every experiment; two experiments that must see the same draws
       // (the Fig. 6.1c trusted-aggregator baseline beside Muffliato-GD) both give common-seed instead.
       bind(
           natural("common-seed",
                   "Philox seed in place of seed (data, noise, batches, graphs), kept as given by a study: "
                   "experiments with the same common-seed draw the same data and noise (docs/muffliato_gd.md "
                   "\"Federated baseline\")"),
           [](Job& j, std::uint64_t seed) { j.params.seed = seed; }),
       bind(real("er-c", "a fresh connected G(n, c ln(n)/n), W-MH, per outer iteration").range(above(0)),
            &Job::er_c),
       bind(integer("batch", "mini-batch size b per node (0 = full local gradient)")
                .fallback("0")
                .range(at_least(0)),
            &Job::params, &P::batch),
       bind(real("clip", "per-example gradient clipping norm L (0 = none)").fallback("0").range(at_least(0)),
            &Job::params, &P::clip),
       bind(real("l2", "ridge term mu/2 ||theta||^2 of every f_v").fallback("0").range(at_least(0)),
            &Job::params, &P::l2),
       bind(flag("reference-code",
                 "Fig. 6.1c code order: clip(gradient + N(0, (s/2)^2), L), s = gradient-noise, instead of "
                 "clip, "
                 "then noise"),
            [](Job& j, bool reference) {
              j.params.noise_order = reference ? NoiseOrder::reference_code : NoiseOrder::clip_then_noise;
            }),
       bind(real("alpha", "Renyi order of the privacy accounting").fallback("2"), &Job::alpha),
       bind(real("sensitivity",
                 "Delta_phi of the accounting (default: 2L with clip, 0.5 with reference-code, else 1)")
                .range(above(0)),
            &Job::sensitivity),
       bind(integer("source", "privacy of this source only (all pairs by default)")
                .range(between(0, 0x7fffffff))
                .needs("averaging", {"gossip"}, "the trusted aggregator sees every update"),
            &Job::source),
       bind(choice("cap", "ldp: cap the pairwise losses at T x the LDP level; none: the raw sums",
                   {"ldp", "none"})
                .fallback("ldp")
                .needs("averaging", {"gossip"}, "the trusted aggregator sees every update"),
            [](Job& j, const std::string& cap) { j.cap_ldp = cap == "ldp"; }),
       bind(choice(
                "accounting",
                "exact: the Gaussian view of the T rounds (linear runs: quadratic, no clip, no "
                "reference-code; with batch a bound); ldp: T x the LDP level; theorem: Thm 6.9 / C.9, not a "
                "bound (default: exact for linear runs, else ldp)",
                {"exact", "ldp", "theorem"})
                .needs("averaging", {"gossip"}, "the trusted aggregator sees every update"),
            [](Job& j, const std::string& accounting) { j.accounting = accounting; }),
       bind(real("delta",
                 "exact or ldp accounting: also epsilon at this delta for every pair (summary.json "
                 "epsilon_at_delta), from the analytic Gaussian curve of each pair's mu")
                .range(Range{.min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true})
                .needs("averaging", {"gossip"}, "the trusted aggregator sees every update"),
            &Job::delta),
       // Declared as gossip-loss's; needs accounting exact, which may be the default: checked by
       // check_muffliato_gd_job.
       bind.mark_given(
           bind(
               [] {
                 Parameter knows = observer_knows_parameter(
                     "exact accounting: what v knows besides its view, its input or also its own "
                     "noise (docs/math.md §6.9)");
                 knows.needs.push_back({"averaging", {"gossip"}, "the trusted aggregator sees every update"});
                 return knows;
               }(),
               [](Job& j, const std::string& knows) { j.observer_knows = parse_observer_knowledge(knows); }),
           &Job::observer_knows_given),
       bind(flag("no-cap", "the older spelling of cap none").replaced_by("cap none"),
            [](Job& j, bool no_cap) {
              if (no_cap) j.cap_ldp = false;
            }),
       bind(gap_parameter("spectral gap for gamma: second (1 - lambda_2) or abs"),
            [](Job& j, const std::string& gap) { j.params.gap_definition = parse_gap_definition(gap); }),
       // The training is the CPU's; cuda runs the exact accountant on the GPU and is refused for the others
       // (check_muffliato_gd_job); a study worker's device (not given) runs on the CPU.
       bind.mark_given(
           bind(device_parameter("where the exact accountant runs: cpu, or cuda[:N] / auto (its CUDA "
                                 "twin, the same views to rounding); the training runs on the CPU"),
                &Job::device),
           &Job::device_given),
       bind(memory_limit_parameter(), [](Job& j, double gib) { j.memory_limit = gib_to_bytes(gib); }),
       threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_muffliato_gd_job);
  m.execute = bind.run(run_muffliato_gd_job);
  m.describe = [](const json& s, const RunContext& c) {
    const auto& f = s["final"];
    return format_line(
        "muffliato-gd: %s, n = %d, T = %d, K = %d, R = %lld, final objective %.6g (optimum %.6g), consensus "
        "%.3g, %.3f s -> %s\n",
        s["objective"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<int>(),
        s["gossip_rounds"].get<int>(), s["runs"].get<long long>(), f["objective"]["mean"].get<double>(),
        s["optimum"]["value"].get<double>(), f["consensus"]["mean"].get<double>(),
        s["seconds_total"].get<double>(), c.out_dir.string().c_str());
  };
  // R runs of n x p iterates; T outer steps of K gossip rounds each (docs/muffliato_gd.md "Cost"): operations
  // counted at 3e8 per second, a logistic loss or gradient term as dim + 30 (exp and log1p).
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, T = estimate_steps(job.params.steps, n);
    const double runs = double(job.params.runs), dim = job.dim > 0 ? double(job.dim) : 10.0,
                 rounds = double(job.params.gossip_steps);
    // W's entries: the graph's, or (er-c) those of a G(n, c ln(n)/n) with its diagonal
    const double entries = job.er_c ? n * (*job.er_c * std::log(std::max(n, 2.0)) + 1) : 2 * g.m + n;
    const bool logistic = job.params.objective == Objective::logistic;
    const double samples = job.samples > 0                                ? job.samples
                           : job.params.objective == Objective::quadratic ? 1
                                                                          : 10;
    const double N = n * samples, term = logistic ? dim + 30 : 2 * dim;  // examples, cost of one loss term
    // Per run: T local steps over the data, T x K sparse products (none with exact averaging), and T + 1
    // measurements of the average iterate (a pass over the data). node_objective evaluates phi at every
    // node's iterate: for logistic a pass over all the data per node (n N terms) at every t >= 1 of gossip
    // runs; rows all equal (exact averaging) cost one pass (muffliato_gd.cpp measure).
    const double node_passes = !logistic ? 0 : job.params.exact_averaging ? T : T * n;
    const double gossip = job.params.exact_averaging ? 0 : T * rounds * entries * dim;
    double work = runs * (T * N * term + gossip + (T + 1) * N * term + node_passes * N * term);
    // every W_t's dense spectrum (LAPACK, about 4 n^3 / 3 flops at BLAS speed, ~16 times 3e8 per second)
    if (job.er_c && n <= 1024) work += runs * T * n * n * n / 12;
    Estimate e{16 * entries + 32 * n * dim * runs, work / 3e8};
    // Theorem C.9's accountant (er-c with noise) holds two dense n x sources share matrices at once: refused
    // by Model::run before the runs start when they do not fit (the fixed-W accountant tiles its rows). Its
    // T(T+1)K/2 products of n x n by W_t (docs/muffliato_gd.md "Cost") run on run 0's graphs; Theorem 6.9's
    // K.
    const bool accounted = job.params.sigma > 0 && !job.params.exact_averaging;
    if (accounted && accounting_of(job) == "theorem")
      e.seconds += (job.er_c ? T * (T + 1) / 2 * rounds : rounds) * entries * n / 3e8;
    if (accounted && job.er_c && accounting_of(job) == "theorem")
      e.required_bytes = e.bytes + 16 * n * (job.source ? 1 : n);
    // The exact accountant (docs/math.md §6.5): n x nT coefficients three times and at least one observer's
    // basis of nT x r, r <= K T (mean degree), held at once; O(nT r^2) per observer.
    if (accounted && accounting_of(job) == "exact") {
      const double N = n * T, r = std::min(N, rounds * T * 2 * g.m / std::max(n, 1.0));
      e.bytes += 24 * n * N + 8 * N * r;
      e.required_bytes = e.bytes;
      e.seconds += n * N * r * r / 3e8;
    }
    return e;
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
