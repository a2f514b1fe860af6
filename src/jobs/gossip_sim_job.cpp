#include "netdp/jobs/gossip_sim_job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "jobs/convex_model_job_parts.hpp"  // require_finite_curve
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/io/csv_table.hpp"
#include "simulation/gossip_sim_privacy_internal.hpp"

#include "core/progress.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

/// mse.csv: t, mean, stderr, noisy_mean, noisy_stderr, bound (docs/gossip_sim.md).
CsvTable mse_table(const GossipSimResult& r, const GossipBoundInputs& theory) {
  CsvTable csv("mse.csv", {{"t", CsvType::int64},
                           {"mean", CsvType::float64},
                           {"stderr", CsvType::float64},
                           {"noisy_mean", CsvType::float64},
                           {"noisy_stderr", CsvType::float64},
                           {"bound", CsvType::float64}});
  for (std::size_t i = 0; i < r.t.size(); ++i)
    csv.row({r.t[i], r.mean[i], r.std_error[i], r.noisy_mean[i], r.noisy_std_error[i],
             gossip_sim_bound(theory, r.t[i])});
  return csv;
}

const char* bound_rule(GossipProtocol p) {
  switch (p) {
    case GossipProtocol::accelerated:
      return "Thm 6.2 x 2: 2 (S + D sigma^2) exp(-t sqrt(gap)) + 2 D sigma^2 / n";
    case GossipProtocol::sync:
      return "plain powers: (S + D sigma^2) exp(-2 t gap) + D sigma^2 / n";
    case GossipProtocol::randomized:
      return "Thm 6.4 x 2: 2 (S + D sigma^2) exp(-t 2 gap / n) + 2 D sigma^2 / n";
    default:
      return "none";
  }
}

json privacy_parameters(const GossipPrivacyParams& q) {
  const bool exact = q.accounting == GossipAccounting::exact;
  return {{"accounting", exact ? "exact" : "theorem"},
          {"observer_knows", exact ? json(to_string(q.observer_knows)) : json(nullptr)},
          {"alpha", q.alpha},
          {"sensitivity", q.sensitivity},
          {"t_start", q.t_start},
          {"cap", q.cap_ldp ? "ldp" : "none"},
          {"source", q.source ? json(*q.source) : json(nullptr)},
          {"quantiles", q.quantiles}};
}

}  // namespace

void check_gossip_sim_job(const GossipSimJob& job) {
  const GossipProtocol protocol = job.params.protocol;
  if (protocol == GossipProtocol::sequence && job.sequence.empty())
    throw InvalidParameter("sequence",
                           "sequence PATH is required by protocol sequence (a list of weight-matrix files)");
  // (the sequence's matrices are checked against the graph's n once both are loaded)
  if (protocol == GossipProtocol::dropout_er && !job.er_p)
    throw InvalidParameter(
        "er-p", "er-p (the edge probability of every round's G(n, p)) is required by protocol dropout-er");
  GossipSimParams early = job.params;
  if (job.auto_steps) early.steps = 1;
  if (job.er_p) early.edge_probability = *job.er_p;
  if (protocol != GossipProtocol::sequence)
    validate(early, planned_node_count(job.graph));  // source < n: the study's validation sees it too
  // Every pairwise loss is at most the one-message level alpha Delta^2 / (2 sigma^2) times the messages of
  // a run; a level whose sum over the run's T + 1 rounds and n nodes overflows is refused (the losses and
  // their mean would be inf and NaN; gossip-loss --alpha 1e308 wrote NaN means).
  if (job.privacy && job.params.sigma > 0) {
    const GossipPrivacyParams& q = job.privacy_params;
    const double level = q.alpha * q.sensitivity * q.sensitivity / (2 * job.params.sigma * job.params.sigma);
    const double n = protocol == GossipProtocol::sequence ? 1.0 : double(planned_node_count(job.graph));
    if (!std::isfinite(level * (job.auto_steps ? 1.0 : job.params.steps + 1.0) * n))
      throw InvalidParameter(
          q.alpha > 1e100 ? "alpha" : "sigma",
          "alpha Delta^2 / (2 sigma^2) = " + format_double(level) + " (alpha " + format_double(q.alpha) +
              ", sensitivity " + format_double(q.sensitivity) + ", sigma " + format_double(job.params.sigma) +
              ") overflows the losses of the run; lower alpha or sensitivity, or raise sigma");
  }
  if (job.params.device.kind == DeviceKind::cuda && job.privacy)
    throw InvalidParameter(
        "privacy",
        "privacy runs on the CPU only for now, not on device cuda; use device cpu or auto (auto runs the "
        "error curves on a GPU when one answers and the privacy pass on the CPU)");
  if (!(job.er_c >= 0) || !std::isfinite(job.er_c))
    throw InvalidParameter("er-c", "er-c must be a finite number >= 0, got " + format_double(job.er_c));
  if (job.target && !(*job.target >= 0 && std::isfinite(*job.target)))
    throw InvalidParameter("target",
                           "target must be a finite number >= 0, got " + format_double(*job.target));
  if (uses_graph_weights(protocol)) check_job_weights(job.graph, job.params.weights);  // a W file, read whole
  require_device(early.device);  // after the checks that name a better reason (privacy on cuda)
}

RunResult run_gossip_sim_job(const GossipSimJob& job) {
  const Stopwatch clock;

  GossipSimParams params = job.params;
  const GossipProtocol protocol = params.protocol;
  if (params.device.kind == DeviceKind::cuda)
    (void)resolve_device(params.device);  // DeviceUnavailable when no such CUDA device answers

  const bool uses_w = uses_graph_weights(protocol);
  JobGraph jg;
  if (uses_w) {
    jg = load_job_graph(job.graph, params.weights, job.gap, true, job.progress);
  } else {
    jg.g = make_graph(job.graph);
  }
  const Graph& g = jg.g;
  if (protocol == GossipProtocol::dropout_er) params.edge_probability = *job.er_p;  // checked above
  if (protocol == GossipProtocol::er_per_round)
    params.edge_probability = g.n > 1 ? job.er_c * std::log(double(g.n)) / g.n : 1.0;
  if (protocol == GossipProtocol::accelerated) params.spectral_gap = jg.gap;
  if (protocol == GossipProtocol::sequence)
    params.sequence =
        std::make_shared<const std::vector<GossipRound>>(load_gossip_sequence(job.sequence, g.n));
  const double graph_seconds = clock.seconds();

  const std::vector<double> x = initial_values(g.n, params);
  const GossipBoundInputs theory{protocol, g.n, params.dim, params.sigma, initial_spread(x, params.dim),
                                 jg.gap};
  if (job.auto_steps) {
    if (uses_w) require_connected_for_auto_steps(g, "the stopping time T_stop");
    params.steps = gossip_sim_stopping_time(theory);
  }
  validate(params, g.n);
  GossipPrivacyParams privacy = job.privacy_params;
  privacy.memory_limit = params.memory_limit;
  if (job.privacy) gossip_sim_privacy_memory(g, jg.w, params, privacy);  // fail before the simulation

  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  ProgressLine progress("gossip-sim", "of the run-steps", job.progress);
  const GossipSimResult r = gossip_sim(g, jg.w, x, params, [&](double f) { progress.update(f); });
  progress.finish();
  jobs::require_finite_curve(r.t, r.noisy_mean, "the mean error of the noisy values",
                             "lower sigma (the squares overflow)");
  jobs::require_finite_curve(r.t, r.mean, "the mean error", "lower sigma (the squares overflow)");
  result.add(mse_table(r, theory));
  json privacy_summary;
  if (job.privacy) {
    ProgressLine privacy_progress("gossip-sim privacy", "of the runs", job.progress);
    const GossipPrivacyResult pr =
        gossip_sim_privacy(g, jg.w, params, privacy, [&](double f) { privacy_progress.update(f); });
    privacy_progress.finish();
    if (pr.overall.count > 0) {  // no non-finite number in an output (docs/reliability.md §1)
      require_finite(pr.overall.max, "the largest pairwise loss",
                     "lower alpha or sensitivity, or raise sigma");
      require_finite(pr.overall.mean(), "the mean pairwise loss",
                     "lower alpha or sensitivity, or raise sigma");
    }
    privacy_summary = gossip_sim_detail::add_privacy_outputs(result, params, privacy, pr);
  }
  json stop_summary;
  if (job.stop_at) {  // privacy at equal accuracy (docs/gossip_sim.md "Stopping at an accuracy rule")
    ProgressLine stop_progress("gossip-sim stop-at", "of the runs", job.progress);
    const GossipStopResult sr = gossip_sim_stop(g, jg.w, x, params, privacy, *job.stop_at,
                                                [&](double f) { stop_progress.update(f); });
    stop_progress.finish();
    stop_summary = gossip_sim_detail::add_stop_outputs(result, sr);
  }

  const std::size_t last = r.t.size() - 1;
  const auto reached = job.target ? first_reaching(r, *job.target) : std::nullopt;
  const auto degrees = degree_stats(g);
  json summary = {
      {"model", "gossip-sim"},
      {"protocol", to_string(protocol)},
      {"n", g.n},
      {"edges", g.num_edges()},
      {"degree", {{"min", degrees.min}, {"mean", degrees.mean}, {"max", degrees.max}}},
      {"steps", params.steps},
      {"steps_rule", job.auto_steps ? "auto: T_stop of docs/math.md §2.3 / 6.3" : "given"},
      {"runs", params.runs},
      {"dim", params.dim},
      {"sigma", params.sigma},
      {"seed", params.seed},
      {"init", to_string(params.init)},
      {"initial_spread", r.initial_spread},
      {"true_average", r.true_average},
      {"noise_floor", params.dim * params.sigma * params.sigma / g.n},
      {"record_every", params.record_every},
      {"final",
       {{"t", r.t[last]},
        {"mean", r.mean[last]},
        {"stderr", jobs::finite_or_null(r.std_error[last])},
        {"noisy_mean", r.noisy_mean[last]},
        {"noisy_stderr", jobs::finite_or_null(r.noisy_std_error[last])},
        {"bound", jobs::finite_or_null(gossip_sim_bound(theory, r.t[last]))}}},
      {"bound_rule", bound_rule(protocol)},
      {"target", job.target ? json(*job.target) : json(nullptr)},
      {"target_reached_t", reached ? json(*reached) : json(nullptr)},
      {"device", r.device},
      {"device_note", r.device_note},
      {"batch_runs", r.batch_runs},
      {"batches", r.batches},
      {"memory_estimate_bytes", r.memory_estimate},
      {"seconds", r.seconds},
      {"seconds_graph", graph_seconds},
      {"seconds_total", clock.seconds()},
  };
  if (uses_w) {
    summary["weights"] = to_string(params.weights);
    summary["spectral_gap"] = jg.gap;
    summary["gap_definition"] = to_string(job.gap);
    summary["lambda_2"] = jg.spectrum.lambda_2;
    summary["lambda_min"] = jg.spectrum.lambda_min;
  }
  if (protocol == GossipProtocol::accelerated) summary["gamma"] = r.gamma;
  if (protocol == GossipProtocol::randomized) summary["lambda_p"] = 2 * jg.gap / g.n;
  if (protocol == GossipProtocol::er_per_round) {
    summary["er_c"] = job.er_c;
    summary["edge_probability"] = params.edge_probability;
  }
  if (protocol == GossipProtocol::dropout || protocol == GossipProtocol::dropout_er)
    summary["dropout"] = params.dropout;
  if (protocol == GossipProtocol::dropout_er) summary["er_p"] = params.edge_probability;
  if (protocol == GossipProtocol::sequence)
    summary["sequence"] = {{"path", job.sequence}, {"length", params.sequence->size()}};
  if (job.privacy) summary["privacy"] = privacy_summary;
  if (job.stop_at) summary["stop"] = stop_summary;
  json warnings = privacy_summary.contains("warnings") ? privacy_summary["warnings"] : json::array();
  if (stop_summary.contains("warning")) warnings.push_back(stop_summary["warning"]);  // a run never stopped
  if (!warnings.empty()) {  // theorem accounting, the ER bound, stop-at: also on stderr
    summary["warnings"] = warnings;
    for (const auto& w : summary["warnings"])  // --quiet: summary.json only, as walk-loss's warnings
      if (job.progress) std::fprintf(stderr, "netdp: warning: %s\n", w.get<std::string>().c_str());
  }
  json manifest = manifest_header("gossip-sim", job.invocation);
  json backend = jobs::backend_fields(r);
  backend["propagation"] = "sparse";
  manifest.update({
      {"parameters",
       {{"graph", job.graph},
        {"weights", to_string(params.weights)},
        {"protocol", to_string(protocol)},
        {"steps", job.auto_steps ? json("auto") : json(params.steps)},
        {"steps_resolved", params.steps},
        {"runs", params.runs},
        {"dim", params.dim},
        {"sigma", params.sigma},
        {"clip_start", params.clip_start},
        {"seed", params.seed},
        {"init", to_string(params.init)},
        {"er_c", job.er_c},
        {"er_p", protocol == GossipProtocol::dropout_er ? json(params.edge_probability) : json(nullptr)},
        {"edge_probability", params.edge_probability},
        {"dropout", params.dropout},
        {"stop_at", job.stop_at ? json(to_string(*job.stop_at)) : json(nullptr)},
        {"target", job.target ? json(*job.target) : json(nullptr)},
        {"gap_definition", to_string(job.gap)},
        {"record_every", params.record_every},
        {"batch_runs", params.batch_runs},
        {"memory_limit", params.memory_limit},
        {"sequence", job.sequence.empty() ? json(nullptr) : json(job.sequence)},
        {"privacy", job.privacy ? privacy_parameters(privacy) : json(nullptr)}}},
      {"backend", backend},
  });
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model gossip_sim_model() {
  using namespace declare;
  Model m = named_model(
      "gossip-sim",
      "Monte Carlo runs of private gossip averaging (Muffliato, Alg 6.1 / 6.2): error to the true average "
      "per "
      "round, over runs, next to Thm 6.2 / 6.4",
      "--graph ring:n=16 --steps 20 --runs 10 --out out/gossip-sim");
  Binding<GossipSimJob> bind;
  using Job = GossipSimJob;
  using Q = GossipPrivacyParams;
  // An option the run would ignore is refused rather than dropped in silence (docs/gossip_sim.md): needs().
  const std::string exact_why = "exact losses never exceed the LDP level";
  m.parameters = graph_parameters();
  m.parameters[0] = bind(m.parameters[0], &Job::graph);
  m.parameters[1] =
      bind(m.parameters[1], [](Job& j, const std::string& w) { j.params.weights = parse_weights_spec(w); });
  append(
      m.parameters,
      {bind(choice("protocol",
                   "sync | accelerated (Chebyshev, 2.4) | randomized (one edge per tick, 6.3) | er-per-round "
                   "(a "
                   "fresh "
                   "G(n, c ln n / n) per round, 6.4) | dropout (of the graph's nodes, 6.8) | dropout-er (a "
                   "fresh G(n, er-p) per round, then dropout: the thesis' App C.8.6, 6.8) | sequence (the "
                   "matrices of sequence, 6.1)",
                   {"sync", "accelerated", "randomized", "er-per-round", "dropout", "dropout-er", "sequence"})
                .fallback("sync"),
            [](Job& j, const std::string& p) { j.params.protocol = parse_gossip_protocol(p); }),
       bind(text("sequence",
                 "sequence: a file listing one weight-matrix file per line (W_0, W_1, ...; repeated "
                 "cyclically)")
                .needs("protocol", {"sequence"}),
            [](Job& j, const std::string& path) { j.sequence = path; }),
       bind(count_or_auto("steps",
                          "rounds T (ticks for randomized), or auto for T_stop (docs/math.md §2.3 / 6.3)")
                .required()
                .range(at_least(1)),
            [](Job& j, CountOrAuto steps) {
              j.auto_steps = steps.is_auto;
              if (steps.is_auto) return;
              if (steps.count > 0x7fffffff)
                throw InvalidParameter("steps", "steps: expected a positive integer or auto, got '" +
                                                    std::to_string(steps.count) + "'");
              j.params.steps = static_cast<int>(steps.count);
            }),
       bind(integer("runs", "independent runs R").fallback("1").range(at_least(1)), &Job::params,
            &GossipSimParams::runs),
       bind(integer("dim", "dimension D of every node's value").fallback("1").range(at_least(1)),
            &Job::params, &GossipSimParams::dim),
       bind(real("sigma",
                 "absolute std of the Gaussian noise each node adds once, in the units of the values (0 = "
                 "none)")
                .unit(units::absolute_std)
                .fallback("1")
                .range(at_least(0)),
            &Job::params, &GossipSimParams::sigma),
       bind(flag("clip-start",
                 "clip x^0 = x + sigma eta to [0, 1] per coordinate, as the reference dropout code "
                 "(docs/math.md "
                 "§12 item 58; privacy unchanged; CPU only)"),
            &Job::params, &GossipSimParams::clip_start),
       bind(natural("seed", "Philox seed of every random draw").fallback("0"), &Job::params,
            &GossipSimParams::seed),
       bind(text("init", "initial values x^0 (docs/gossip_sim.md)")
                .forms({"zero", "normal", "uniform", "file:PATH"})
                .fallback("zero"),
            [](Job& j, const std::string& init) { j.params.init = parse_init_spec(init); }),
       bind(real("er-c", "er-per-round: edge probability q = c ln(n) / n")
                .fallback("1")
                .range(at_least(0))
                .needs("protocol", {"er-per-round"}),
            &Job::er_c),
       bind(real("er-p", "dropout-er: edge probability p of every round's G(n, p), not forced connected")
                .range(between(0, 1))
                .needs("protocol", {"dropout-er"}),
            &Job::er_p),
       bind(real("dropout", "dropout, dropout-er: probability q that a node sits out a round")
                .fallback("0")
                .range(between(0, 1))
                .needs("protocol", {"dropout", "dropout-er"}),
            &Job::params, &GossipSimParams::dropout),
       bind(real("target", "report the first t whose mean error is <= this").range(at_least(0)),
            &Job::target),
       bind(gap_parameter("spectral gap for gamma, bounds and auto: second (1 - lambda_2) or abs"),
            [](Job& j, const std::string& gap) { j.gap = parse_gap_definition(gap); }),
       bind(integer("record-every", "report every K-th t (and T)").fallback("1").range(at_least(1)),
            &Job::params, &GossipSimParams::record_every),
       bind(integer("batch-runs", "runs per batch (0 = from the memory available)")
                .fallback("0")
                .range(at_least(0)),
            &Job::params, &GossipSimParams::batch_runs),
       bind(device_parameter("where to run; CUDA runs every protocol, without privacy"),
            [](Job& j, const std::string& device) { j.params.device = parse_device_spec(device); }),
       bind(memory_limit_parameter(), [](Job& j, double gib) { j.params.memory_limit = gib_to_bytes(gib); }),
       threads_parameter(),
       out_parameter(),
       quiet_parameter(),
       bind(flag("privacy", "also the pairwise losses on every run's schedule, aggregated over runs"),
            &Job::privacy),
       bind(choice("accounting",
                   "privacy: exact = each pair's Gaussian view, a guarantee (docs/math.md §6.9); theorem = "
                   "Theorem "
                   "6.1's sum of per-message losses, not an upper bound (kept to reproduce the papers' "
                   "figures)",
                   {"exact", "theorem"})
                .fallback("exact")
                .needs("privacy"),
            [](Job& j, const std::string& a) {
              j.privacy_params.accounting =
                  a == "theorem" ? GossipAccounting::theorem : GossipAccounting::exact;
            }),
       bind(observer_knows_parameter("privacy, exact accounting: what v knows besides its view, its input or "
                                     "also its own noise (docs/math.md §6.9)")
                .needs("privacy")
                .needs("accounting", {"exact"}),
            [](Job& j, const std::string& knows) {
              j.privacy_params.observer_knows = parse_observer_knowledge(knows);
            }),
       bind(real("alpha", "privacy: Renyi order alpha > 1").fallback("2").needs("privacy"),
            &Job::privacy_params, &Q::alpha),
       bind(real("sensitivity", "privacy: l2 sensitivity Delta of a node's value")
                .fallback("1")
                .needs("privacy"),
            &Job::privacy_params, &Q::sensitivity),
       bind(integer("t-start", "privacy: first message counted, 0 = Theorem 6.1, 1 = reference code")
                .fallback("0")
                .needs("privacy"),
            &Job::privacy_params, &Q::t_start),
       bind(choice("cap",
                   "privacy, theorem accounting: ldp = min(f, alpha Delta^2/(2 sigma^2)), none = the raw sum",
                   {"ldp", "none"})
                .fallback("ldp")
                .needs("privacy")
                .needs("accounting", {"theorem"}, exact_why),
            [](Job& j, const std::string& cap) { j.privacy_params.cap_ldp = cap == "ldp"; }),
       bind(integer("source", "privacy: only the row of this source node u")
                .range(between(0, 0x7fffffff))
                .needs("privacy"),
            &Job::privacy_params, &Q::source),
       bind(reals("quantiles",
                  "privacy: levels of per-pair quantiles over runs, e.g. 0.5,0.9 (keeps every run's losses)")
                .range(between(0, 1))
                .needs("privacy"),
            [](Job& j, const std::vector<double>& levels) { j.privacy_params.quantiles = levels; }),
       bind(
           text("stop-at",
                "privacy: stop each run at the first t meeting thesis:C ((1/n) ||x^t - xbar_noisy||^2 < C "
                "(xbar_noisy - xbar)^2) or error:E ((1/n) ||x^t - xbar_noisy||^2 < E) and report its privacy "
                "there (docs/gossip_sim.md)")
               .forms({"thesis:C", "error:E"})
               .needs("privacy"),
           [](Job& j, const std::string& rule) { j.stop_at = parse_stop_rule(rule); })});
  m.validate = bind.check(check_gossip_sim_job);
  m.execute = bind.run(run_gossip_sim_job);
  m.describe = [](const json& s, const RunContext& c) {
    const auto& f = s["final"];
    std::string line = format_line(
        "gossip-sim: %s, n = %d, T = %d, R = %lld, final error %.6g (noise floor %.6g), %s, %.3f s -> %s\n",
        s["protocol"].get<std::string>().c_str(), s["n"].get<int>(), s["steps"].get<int>(),
        s["runs"].get<long long>(), f["mean"].get<double>(), s["noise_floor"].get<double>(),
        s["device"].get<std::string>().c_str(), s["seconds"].get<double>(), c.out_dir.string().c_str());
    if (s.contains("privacy") && !s["privacy"]["mean"].is_null())
      line +=
          format_line("gossip-sim privacy: mean loss %.6g, max %.6g over %lld computed run(s), %.3f s\n",
                      s["privacy"]["mean"].get<double>(), s["privacy"]["max"].get<double>(),
                      s["privacy"]["computed_runs"].get<long long>(), s["privacy"]["seconds"].get<double>());
    if (s.contains("stop") && !s["stop"]["mean_loss"]["mean"].is_null())
      line += format_line(
          "gossip-sim stop-at %s: %lld of %lld runs stopped, at t = %.4g on average, mean loss "
          "%.6g\n",
          s["stop"]["rule"].get<std::string>().c_str(), s["stop"]["runs_met"].get<long long>(),
          s["stop"]["runs"].get<long long>(), s["stop"]["stop_t"]["mean"].get<double>(),
          s["stop"]["mean_loss"]["mean"].get<double>());
    return line;
  };
  // A batch of at most 256 runs of n x D values; with privacy the accountant's n x n losses.
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, entries = 2 * g.m + n, T = estimate_steps(job.auto_steps ? 0 : job.params.steps, n);
    const double runs = double(job.params.runs), dim = double(job.params.dim);
    double seconds = runs * dim * T * entries / 6e8,
           bytes = 16 * entries + 24 * n * dim * std::min(runs, 256.0);
    if (job.privacy) {
      seconds += T * entries * n / 1e10 + 8 * n * n / 1e9;
      bytes += 24 * n * n;
      if (job.privacy_params.accounting == GossipAccounting::exact) {  // Gram-Schmidt of r rows per observer,
                                                                       // per computed run
        const GossipProtocol protocol = job.params.protocol;
        const bool one_run = protocol == GossipProtocol::sync || protocol == GossipProtocol::accelerated ||
                             protocol == GossipProtocol::sequence;
        const double r = std::min(n, T * (entries - n) / std::max(1.0, n) + 1);
        seconds += 4 * n * n * r * r / 1.5e9 * (one_run ? 1.0 : runs);  // measured: n = 500, T = 20, 12 s/run
        bytes += 8 * n * n + 16 * n * r;
      }
    }
    return Estimate{bytes, seconds};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
