#include "netdp/gossip_loss_job.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "netdp/error.hpp"
#include "netdp/graph_spec.hpp"
#include "netdp/loss_statistics.hpp"
#include "netdp/results_dir.hpp"
#include "netdp/version.hpp"
#include "progress.hpp"

namespace netdp {

namespace {

using json = nlohmann::json;

/// Rows of by_distance.csv; the unreachable pairs (bucket 0) come last, as distance "inf".
json by_distance_rows(const LossStatistics& stats) {
  json rows = json::array();
  auto buckets = stats.by_distance();
  for (std::size_t b = 1; b <= buckets.size(); ++b) {
    const auto& a = buckets[b % buckets.size()];
    if (a.count == 0) continue;
    rows.push_back({{"distance", b == buckets.size() ? json("inf") : json(b - 1)},
                    {"pairs", a.count},
                    {"mean", a.mean()},
                    {"min", a.min},
                    {"max", a.max}});
  }
  return rows;
}

std::string by_distance_csv(const json& rows) {
  std::ostringstream csv;
  csv << "distance,pairs,mean,min,max\n";
  for (const auto& r : rows)
    csv << (r["distance"].is_string() ? r["distance"].get<std::string>()
                                      : std::to_string(r["distance"].get<int>()))
        << ',' << r["pairs"].get<std::int64_t>() << ',' << format_double(r["mean"]) << ','
        << format_double(r["min"]) << ',' << format_double(r["max"]) << '\n';
  return csv.str();
}

std::string per_observer_csv(const LossStatistics& stats) {
  std::ostringstream csv;
  csv << "v,mean,max\n";
  auto mean = stats.observer_mean(), max = stats.observer_max();
  for (std::size_t v = 0; v < mean.size(); ++v)
    csv << v << ',' << format_double(mean[v]) << ',' << format_double(max[v]) << '\n';
  return csv.str();
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

json run_gossip_loss_job(const GossipLossJob& job) {
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  GossipLossParams params = job.params;
  // Fail on bad numbers and absent devices before building a large graph or touching the output directory.
  GossipLossParams early = params;
  if (job.auto_steps) early.steps = 1;  // resolved below, once the spectrum is known
  validate(early, 0x7fffffff);
  resolve_device(params.device);
  Graph g = make_graph(job.graph);
  CsrMatrix w = make_weights(g, job.weights);
  validate_gossip_matrix(w, g);
  const double graph_seconds = elapsed();

  SpectralSummary spectrum = spectral_summary(w);
  const double gap = spectrum.gap(job.gap);
  if (job.auto_steps) {
    node_t components = 0;
    connected_components(g, &components);
    if (components > 1)
      throw InvalidInput("--steps auto: the graph has " + std::to_string(components) +
                         " connected components, so the stopping time T_stop is undefined; give --steps T");
    params.steps = muffliato_stopping_time(g.n, params.sigma, gap);
  }
  validate(params, g.n);
  const double spectral_seconds = elapsed() - graph_seconds;

  ResultsDir out(job.out_dir);
  const std::int64_t rows = params.source ? 1 : g.n;
  NpyWriter loss_file(out.file("loss.npy"), rows, g.n);
  LossStatistics stats(g);
  ProgressReporter progress("gossip-loss", rows, job.progress);
  LossRowTee sink({&loss_file, &stats, &progress});
  GossipLossRun run = gossip_loss(g, w, params, sink);
  progress.finish();
  loss_file.commit();

  const json distance_rows = by_distance_rows(stats);
  out.write_text("by_distance.csv", by_distance_csv(distance_rows));
  if (!params.source) out.write_text("per_observer.csv", per_observer_csv(stats));

  const LossAggregate all = stats.overall();
  auto observer_mean = stats.observer_mean();
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
      {"pairs", all.count},
      {"mean_loss", all.mean()},
      {"min_loss", all.count ? all.min : 0.0},
      {"max_loss", all.count ? all.max : 0.0},
      {"device", run.device},
      {"device_note", run.device_note},
      {"propagation", run.propagation},
      {"tiles", run.tiles},
      {"tile_sources", run.tile_sources},
      {"memory_estimate_bytes", run.memory_estimate},
      {"seconds", run.seconds},
      {"seconds_total", elapsed()},
      {"seconds_graph", graph_seconds},
      {"seconds_spectrum", spectral_seconds},
      {"by_distance", distance_rows},
  };
  if (params.source) {
    summary["source"] = *params.source;
  } else {
    double worst = 0;
    for (double m : observer_mean) worst = std::max(worst, m);
    summary["max_mean_observer_loss"] = worst;
  }
  out.write_json("summary.json", summary);

  json manifest = {
      {"netdp_version", version()},
      {"git_commit", git_commit()},
      {"command", "gossip-loss"},
      {"created_utc", utc_now()},
      {"invocation", job.invocation},
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
      {"files", params.source ? json{"loss.npy", "by_distance.csv", "summary.json"}
                              : json{"loss.npy", "by_distance.csv", "per_observer.csv", "summary.json"}},
      {"seconds", elapsed()},
  };
  out.commit_manifest(manifest);
  return summary;
}

}  // namespace netdp
