#include "netdp/jobs/gossip_loss_job.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/progress.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

/// mu rows -> epsilon at delta of the analytic Gaussian curve (docs/math.md §1.2 G4, §6.9), forwarded to the
/// targets (epsilon.npy, the epsilon statistics). mu = 0 gives 0.
class EpsilonRows : public LossRowSink {
 public:
  EpsilonRows(double delta, std::vector<LossRowSink*> targets)
      : delta_(delta), targets_(std::move(targets)) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override {
    epsilon_.resize(rows.size());
    const std::int64_t size = static_cast<std::int64_t>(rows.size());
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < size; ++i)
      epsilon_[i] = rows[i] > 0 ? dp::gdp_epsilon(rows[i], delta_) : 0.0;
    for (auto* target : targets_) target->consume(first_source, count, epsilon_);
  }

 private:
  double delta_;
  std::vector<LossRowSink*> targets_;
  std::vector<double> epsilon_;
};

json epsilon_summary(double delta, const LossStatistics& stats) {
  const LossAggregate all = stats.overall();
  return {{"delta", delta},
          {"mean", all.mean()},
          {"min", all.count ? all.min : 0.0},
          {"max", all.count ? all.max : 0.0},
          {"by_distance", distance_rows(stats.by_distance())}};
}

}  // namespace

void check_gossip_loss_job(const GossipLossJob& job) {
  GossipLossParams early = job.params;
  if (job.auto_steps) early.steps = 1;             // resolved once the spectrum is known
  validate(early, planned_node_count(job.graph));  // source < n: the study's validation sees it too
  require_device(early.device);
}

RunResult run_gossip_loss_job(const GossipLossJob& job, const ResultsDir& out) {
  const Stopwatch clock;

  GossipLossParams params = job.params;
  // Fail on bad numbers and absent devices before building a large graph or touching the output directory.
  check_gossip_loss_job(job);
  resolve_device(params.device);
  // The spectrum is needed for steps auto only; otherwise it is reported when cheap (docs/gossip_loss.md).
  const JobGraph graph = load_job_graph(job.graph, job.weights, job.gap, job.auto_steps, job.progress);
  const auto& [g, w, spectrum, gap] = graph;
  if (job.auto_steps)
    params.steps = auto_steps(graph, params.sigma, "the stopping time T_stop", muffliato_stopping_time);
  validate(params, g.n);
  const double graph_seconds = clock.seconds();

  const bool exact = params.accounting == GossipAccounting::exact;
  if (!exact && job.progress)  // --quiet runs find it in summary.json's warnings
    std::fprintf(stderr, "netdp: warning: %s\n", gossip_theorem_warning().c_str());
  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  LossReport report(g, out, params.source ? 1 : g.n, "gossip-loss", job.progress, job.write_matrix,
                    job.diagonal_local ? gossip_ldp_loss(params) : 0.0);
  const std::int64_t rows = params.source ? 1 : g.n;
  std::optional<NpyWriter> mu_file, epsilon_file;
  std::optional<LossStatistics> epsilon_stats;
  std::optional<EpsilonRows> epsilon_rows;
  std::vector<LossRowSink*> mu_targets;
  if (exact && job.write_matrix) mu_targets.push_back(&mu_file.emplace(out.file("mu.npy"), rows, g.n));
  if (job.delta) {
    std::vector<LossRowSink*> targets{&epsilon_stats.emplace(g)};
    if (job.write_matrix) targets.push_back(&epsilon_file.emplace(out.file("epsilon.npy"), rows, g.n));
    mu_targets.push_back(&epsilon_rows.emplace(*job.delta, targets));
  }
  LossRowTee mu_sink(mu_targets);
  ProgressLine powers(exact ? "gossip-loss views" : "gossip-loss powers",
                      exact ? "of the observers' views" : "of the powers before the rows", job.progress);
  GossipLossRun run = gossip_loss(
      g, w, params, report.sink(), [&](double done) { powers.update(done); },
      mu_targets.empty() ? nullptr : &mu_sink);
  powers.finish();
  const json losses = report.finish(result);
  if (mu_file) {
    mu_file->commit();
    result.streamed("mu.npy");
  }
  if (epsilon_file) {
    epsilon_file->commit();
    result.streamed("epsilon.npy");
  }

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
      {"accounting", run.accounting},
      {"steps", params.steps},
      {"steps_rule", job.auto_steps ? "auto: T_stop of docs/math.md §2.3" : "given"},
      {"t_start", params.t_start},
      {"alpha", params.alpha},
      {"sigma", params.sigma},
      {"sensitivity", params.sensitivity},
      {"cap", params.cap_ldp ? "ldp" : "none"},
      {"ldp_loss", gossip_ldp_loss(params)},
      {"device", run.device},
      {"device_note", run.device_note},
      {"propagation", run.propagation},
      {"passes", run.passes},
      {"tiles", run.tiles},
      {"tile_sources", run.tile_sources},
      {"memory_estimate_bytes", run.memory_estimate},
      {"seconds", run.seconds},
      {"seconds_total", clock.seconds()},
      {"seconds_graph_and_spectrum", graph_seconds},
  };
  summary.update(losses);
  if (exact) {
    summary["observer_knows"] = to_string(params.observer_knows);
    summary["view"] = {{"observers", run.view_observers},        {"rank_min", run.view_rank_min},
                       {"rank_mean", run.view_rank_mean},        {"rank_max", run.view_rank_max},
                       {"dropped_at_floor", run.view_dropped},   {"floor", run.view_floor},
                       {"smallest_kept", run.view_smallest_kept}};
    summary["mu_ldp"] = params.sensitivity / params.sigma;
    if (job.delta) summary["epsilon_at_delta"] = epsilon_summary(*job.delta, *epsilon_stats);
  } else {
    summary["warnings"] = json::array({gossip_theorem_warning()});
  }
  if (params.source) summary["source"] = *params.source;

  json manifest = manifest_header("gossip-loss", job.invocation);
  manifest.update({
      {"parameters",
       {{"graph", job.graph},
        {"weights", to_string(job.weights)},
        {"accounting", run.accounting},
        {"observer_knows", to_string(params.observer_knows)},
        {"delta", job.delta ? json(*job.delta) : json(nullptr)},
        {"alpha", params.alpha},
        {"sigma", params.sigma},
        {"sensitivity", params.sensitivity},
        {"steps", job.auto_steps ? json("auto") : json(params.steps)},
        {"steps_resolved", params.steps},
        {"t_start", params.t_start},
        {"cap", params.cap_ldp ? "ldp" : "none"},
        {"diagonal", job.diagonal_local ? "local" : "zero"},
        {"source", params.source ? json(*params.source) : json(nullptr)},
        {"gap_definition", to_string(job.gap)},
        {"tile_sources", params.tile_sources},
        {"memory_limit", params.memory_limit}}},
      {"backend",
       {{"device", run.device},
        {"device_note", run.device_note},
        {"propagation", run.propagation},
        {"passes", run.passes},
        {"tiles", run.tiles},
        {"tile_sources", run.tile_sources}}},
  });
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model gossip_loss_model() {
  using namespace declare;
  Model m =
      named_model("gossip-loss",
                  "pairwise Renyi loss f(u, v) of private gossip averaging (Muffliato, Thm 6.1) on a graph",
                  "--graph hypercube:dim=6 --steps 20 --out out/gossip-loss");
  Binding<GossipLossJob> bind;
  using Job = GossipLossJob;
  m.parameters = loss_parameters(bind,
                                 bind(real("sigma",
                                           "absolute std of the Gaussian noise added once by every node, in "
                                           "the units of the values (not a "
                                           "multiplier of --sensitivity)")
                                          .fallback("1")
                                          .range(above(0))
                                          .unit(units::absolute_std),
                                      &Job::params, &GossipLossParams::sigma),
                                 "gossip rounds T, or auto for the stopping time T_stop (docs/math.md §2.3)");
  // Options the run would ignore are refused rather than dropped in silence (docs/gossip_loss.md).
  append(
      m.parameters,
      {bind(
           choice("accounting",
                  "exact: each pair's Gaussian view, a guarantee (docs/math.md §6.9); theorem: Theorem 6.1's "
                  "sum of per-message losses, not an upper bound (kept to reproduce the papers' figures)",
                  {"exact", "theorem"})
               .fallback("exact"),
           [](Job& j, const std::string& accounting) {
             j.params.accounting =
                 accounting == "theorem" ? GossipAccounting::theorem : GossipAccounting::exact;
           }),
       bind(observer_knows_parameter("exact accounting: what v knows besides its view, its input or also its "
                                     "own noise (docs/math.md §6.9)")
                .needs("accounting", {"exact"}),
            [](Job& j, const std::string& knows) {
              j.params.observer_knows = parse_observer_knowledge(knows);
            }),
       bind(
           real(
               "delta",
               "exact accounting: also write epsilon at this delta for every pair (epsilon.npy, summary.json "
               "epsilon_at_delta), from the analytic Gaussian curve")
               .range(Range{.min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true})
               .needs("accounting", {"exact"}, "epsilon from each pair's mu: docs/math.md §6.9"),
           &Job::delta),
       bind(real("sensitivity", "l2 sensitivity Delta of a node's value").fallback("1").range(above(0)),
            &Job::params, &GossipLossParams::sensitivity),
       bind(integer("t-start", "first power of W: 0 = Theorem 6.1, 1 = the reference figure code")
                .fallback("0")
                .range(between(0, 1)),
            &Job::params, &GossipLossParams::t_start),
       bind(choice("cap", "ldp: report min(f, alpha Delta^2/(2 sigma^2)); none: the raw sum", {"ldp", "none"})
                .fallback("ldp")
                .needs("accounting", {"theorem"}, "exact losses never exceed the LDP level"),
            [](Job& j, const std::string& cap) { j.params.cap_ldp = cap == "ldp"; }),
       bind(choice("propagation", "auto | sparse (SpMM) | dense (GEMM); auto = dense above 25% fill",
                   {"auto", "sparse", "dense"})
                .fallback("auto")
                .needs("accounting", {"theorem"}, "exact accounting needs no propagation choice"),
            [](Job& j, const std::string& propagation) {
              j.params.propagation = propagation == "dense"    ? Propagation::dense
                                     : propagation == "sparse" ? Propagation::sparse
                                                               : Propagation::automatic;
            })});
  m.validate = bind.check(check_gossip_loss_job);
  m.execute = bind.run(run_gossip_loss_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("gossip-loss: n = %d, T = %d, mean loss %.6g, max %.6g (LDP %.6g), %s, %.3f s -> %s\n",
                       s["n"].get<int>(), s["steps"].get<int>(), s["mean_loss"].get<double>(),
                       s["max_loss"].get<double>(), s["ldp_loss"].get<double>(),
                       s["device"].get<std::string>().c_str(), s["seconds"].get<double>(),
                       c.out_dir.string().c_str());
  };
  // The least it needs: W, the row norms (T x n) and a tile of 64 sources (it tiles to the memory at hand);
  // the rates are the 2-core CPU medians of benchmarks/RESULTS.md. On the CPU (the GPU plans its own memory)
  // W and either the norms and one row (two passes) or every node's panel (the one pass, about 2 n^2 + 3 n
  // x sources doubles) must be held at once, the run taking the smaller (docs/gossip_loss.md), so a given T
  // too large for both is refused before the directory is made.
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, entries = 2 * g.m + n, T = estimate_steps(job.auto_steps ? 0 : job.params.steps, n);
    const double sources = job.params.source ? 1 : n;
    const double two_passes = 8 * n * (T + 1), one_pass = 8 * n * (2 * n + (sources < n ? 3 : 1) * sources);
    Estimate e{16 * entries + std::min(two_passes, one_pass) + 24 * n * 64,
               T * entries * n / 1e10 + 8 * n * n / 1e9};
    if (!job.auto_steps && job.params.device.kind != DeviceKind::cuda)
      e.required_bytes = 16 * entries + std::min(two_passes, one_pass);
    return e;
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
