#include "netdp/jobs/gossip_loss_job.hpp"

#include <chrono>

#include "jobs/job_graph.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

void check_gossip_loss_job(const GossipLossJob& job) {
  GossipLossParams early = job.params;
  if (job.auto_steps) early.steps = 1;  // resolved once the spectrum is known
  validate(early, 0x7fffffff);
}

json run_gossip_loss_job(const GossipLossJob& job) {
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  GossipLossParams params = job.params;
  // Fail on bad numbers and absent devices before building a large graph or touching the output directory.
  check_gossip_loss_job(job);
  resolve_device(params.device);
  const JobGraph graph = load_job_graph(job.graph, job.weights, job.gap);
  const Graph& g = graph.g;
  const CsrMatrix& w = graph.w;
  const SpectralSummary& spectrum = graph.spectrum;
  const double gap = graph.gap;
  if (job.auto_steps) {
    require_connected_for_auto_steps(g, "the stopping time T_stop");
    params.steps = muffliato_stopping_time(g.n, params.sigma, gap);
  }
  validate(params, g.n);
  const double graph_seconds = elapsed();

  ResultsDir out(job.out_dir);
  LossReport report(g, out, params.source ? 1 : g.n, "gossip-loss", job.progress, job.write_matrix);
  GossipLossRun run = gossip_loss(g, w, params, report.sink());
  const json losses = report.finish();

  const auto degrees = degree_stats(g);
  json summary = {
      {"model", "gossip-loss"},
      {"n", g.n},
      {"edges", g.num_edges()},
      {"degree", {{"min", degrees.min}, {"mean", degrees.mean}, {"max", degrees.max}}},
      {"spectral_gap", gap},
      {"gap_definition", to_string(job.gap)},
      {"spectral_gap_second", spectrum.gap(GapDefinition::second)},
      {"spectral_gap_abs", spectrum.gap(GapDefinition::absolute)},
      {"lambda_2", spectrum.lambda_2},
      {"lambda_min", spectrum.lambda_min},
      {"eigen_method", spectrum.method},
      {"steps", params.steps},
      {"steps_rule", job.auto_steps ? "auto: T_stop of MATH_SPEC 2.3" : "given"},
      {"t_start", params.t_start},
      {"alpha", params.alpha},
      {"sigma", params.sigma},
      {"sensitivity", params.sensitivity},
      {"cap", params.cap_ldp ? "ldp" : "none"},
      {"ldp_loss", gossip_ldp_loss(params)},
      {"device", run.device},
      {"device_note", run.device_note},
      {"propagation", run.propagation},
      {"tiles", run.tiles},
      {"tile_sources", run.tile_sources},
      {"memory_estimate_bytes", run.memory_estimate},
      {"seconds", run.seconds},
      {"seconds_total", elapsed()},
      {"seconds_graph_and_spectrum", graph_seconds},
  };
  summary.update(losses);
  if (params.source) summary["source"] = *params.source;
  out.write_json("summary.json", summary);

  json manifest = manifest_header("gossip-loss", job.invocation);
  manifest.update({
      {"parameters",
       {{"graph", job.graph},
        {"weights", to_string(job.weights)},
        {"alpha", params.alpha},
        {"sigma", params.sigma},
        {"sensitivity", params.sensitivity},
        {"steps", job.auto_steps ? json("auto") : json(params.steps)},
        {"steps_resolved", params.steps},
        {"t_start", params.t_start},
        {"cap", params.cap_ldp ? "ldp" : "none"},
        {"source", params.source ? json(*params.source) : json(nullptr)},
        {"gap_definition", to_string(job.gap)},
        {"tile_sources", params.tile_sources},
        {"memory_limit", params.memory_limit}}},
      {"backend",
       {{"device", run.device},
        {"device_note", run.device_note},
        {"propagation", run.propagation},
        {"tiles", run.tiles},
        {"tile_sources", run.tile_sources}}},
      {"files",
       [&] {
         json files = json::array();
         if (job.write_matrix) files.push_back("loss.npy");
         files.push_back("by_distance.csv");
         if (!params.source) files.push_back("per_observer.csv");
         files.push_back("summary.json");
         return files;
       }()},
      {"seconds", elapsed()},
  });
  out.commit_manifest(manifest);
  return summary;
}

}  // namespace netdp
