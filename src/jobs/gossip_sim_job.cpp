#include "netdp/jobs/gossip_sim_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "jobs/job_graph.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/io/results_dir.hpp"
#include "simulation/gossip_sim_privacy_internal.hpp"

#include "core/progress.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

/// mse.csv: t, mean, stderr, noisy_mean, noisy_stderr, bound (docs/gossip_sim.md).
std::string mse_csv(const GossipSimResult& r, const GossipBoundInputs& theory) {
  std::ostringstream csv;
  csv << "t,mean,stderr,noisy_mean,noisy_stderr,bound\n";
  for (std::size_t i = 0; i < r.t.size(); ++i)
    csv << r.t[i] << ',' << format_double(r.mean[i]) << ',' << format_double(r.std_error[i]) << ','
        << format_double(r.noisy_mean[i]) << ',' << format_double(r.noisy_std_error[i]) << ','
        << format_double(gossip_sim_bound(theory, r.t[i])) << '\n';
  return csv.str();
}

json finite_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
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
  return {{"alpha", q.alpha},
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
    throw InvalidInput("--protocol sequence needs --sequence PATH (a list of weight-matrix files)");
  if (protocol != GossipProtocol::sequence && !job.sequence.empty())
    throw InvalidInput("--sequence is only used with --protocol sequence");
  // (the sequence's matrices are checked against the graph's n once both are loaded)
  GossipSimParams early = job.params;
  if (job.auto_steps) early.steps = 1;
  if (protocol != GossipProtocol::sequence) validate(early, 1);
  if (job.params.device.kind == DeviceKind::cuda && job.privacy)
    throw InvalidInput(
        "--device cuda: --privacy runs on the CPU only for now; use --device cpu or auto (auto runs the "
        "error curves on a GPU when one answers and the privacy pass on the CPU)");
  if (!(job.er_c >= 0) || !std::isfinite(job.er_c))
    throw InvalidInput("--er-c must be a finite number >= 0, got " + format_double(job.er_c));
  if (job.target && !(*job.target >= 0 && std::isfinite(*job.target)))
    throw InvalidInput("--target must be a finite number >= 0, got " + format_double(*job.target));
}

json run_gossip_sim_job(const GossipSimJob& job) {
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  GossipSimParams params = job.params;
  const GossipProtocol protocol = params.protocol;
  // Fail on bad numbers and absent devices before building a large graph or touching the output directory.
  check_gossip_sim_job(job);
  if (params.device.kind == DeviceKind::cuda)
    (void)resolve_device(params.device);  // DeviceUnavailable when no such CUDA device answers

  const bool uses_w = uses_graph_weights(protocol);
  JobGraph jg;
  if (uses_w) {
    jg = load_job_graph(job.graph, params.weights, job.gap);
  } else {
    jg.g = make_graph(job.graph);
  }
  const Graph& g = jg.g;
  if (protocol == GossipProtocol::er_per_round)
    params.edge_probability = g.n > 1 ? job.er_c * std::log(double(g.n)) / g.n : 1.0;
  if (protocol == GossipProtocol::accelerated) params.spectral_gap = jg.gap;
  if (protocol == GossipProtocol::sequence)
    params.sequence =
        std::make_shared<const std::vector<GossipRound>>(load_gossip_sequence(job.sequence, g.n));
  const double graph_seconds = elapsed();

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

  ResultsDir out(job.out_dir);
  ProgressLine progress("gossip-sim", "of the run-steps", job.progress);
  const GossipSimResult r = gossip_sim(g, jg.w, x, params, [&](double f) { progress.update(f); });
  progress.finish();
  out.write_text("mse.csv", mse_csv(r, theory));
  std::vector<std::string> files{"mse.csv"};
  json privacy_summary;
  if (job.privacy) {
    ProgressLine privacy_progress("gossip-sim privacy", "of the runs", job.progress);
    const GossipPrivacyResult pr =
        gossip_sim_privacy(g, jg.w, params, privacy, [&](double f) { privacy_progress.update(f); });
    privacy_progress.finish();
    privacy_summary = gossip_sim_detail::write_privacy_outputs(out, params, privacy, pr, files);
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
      {"steps_rule", job.auto_steps ? "auto: T_stop of MATH_SPEC 2.3 / 6.3" : "given"},
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
        {"stderr", finite_or_null(r.std_error[last])},
        {"noisy_mean", r.noisy_mean[last]},
        {"noisy_stderr", finite_or_null(r.noisy_std_error[last])},
        {"bound", finite_or_null(gossip_sim_bound(theory, r.t[last]))}}},
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
      {"seconds_total", elapsed()},
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
  if (protocol == GossipProtocol::dropout) summary["dropout"] = params.dropout;
  if (protocol == GossipProtocol::sequence)
    summary["sequence"] = {{"path", job.sequence}, {"length", params.sequence->size()}};
  if (job.privacy) summary["privacy"] = privacy_summary;
  out.write_json("summary.json", summary);
  files.push_back("summary.json");

  json manifest = manifest_header("gossip-sim", job.invocation);
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
        {"seed", params.seed},
        {"init", to_string(params.init)},
        {"er_c", job.er_c},
        {"edge_probability", params.edge_probability},
        {"dropout", params.dropout},
        {"target", job.target ? json(*job.target) : json(nullptr)},
        {"gap_definition", to_string(job.gap)},
        {"record_every", params.record_every},
        {"batch_runs", params.batch_runs},
        {"memory_limit", params.memory_limit},
        {"sequence", job.sequence.empty() ? json(nullptr) : json(job.sequence)},
        {"privacy", job.privacy ? privacy_parameters(privacy) : json(nullptr)}}},
      {"backend",
       {{"device", r.device},
        {"device_note", r.device_note},
        {"propagation", "sparse"},
        {"batch_runs", r.batch_runs},
        {"batches", r.batches}}},
      {"files", files},
      {"seconds", elapsed()},
  });
  out.commit_manifest(manifest);
  return summary;
}

}  // namespace netdp
