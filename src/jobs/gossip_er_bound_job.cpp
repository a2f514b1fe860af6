// The model gossip-er-bound: Theorem 6.6 (Muffliato on a private Erdos-Renyi graph G(n, q), docs/math.md
// §6.4) evaluated on a given graph, one row per source u: the reference code's per-graph bound, next to which
// gossip-loss gives Theorem 6.1 on the same graph. The per-pair value is er_gossip_loss_bound
// (docs/gossip_loss_sequence.md); the files are those of every pairwise-loss model (docs/outputs.md).
#include <cstdio>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/progress.hpp"
#include "jobs/binding.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp::jobs {

namespace {

using json = nlohmann::json;

struct ErBoundJob {
  std::string graph;
  std::int64_t steps = 1;
  std::optional<double> q, er_c;  // at most one; neither = the graph's edge density
  double alpha = 2, sigma = 1, sensitivity = 1;
  ErBoundVariant variant = ErBoundVariant::theorem;
  std::optional<node_t> source;
  bool write_matrix = true, diagonal_local = false, progress = true;
  std::string out_dir;
  json invocation;
};

/// The check phase: the graph (at least 2 nodes), the source against it, and the LDP level alpha Delta^2 /
/// (2 sigma^2), every bound's scale, finite.
void check_er_bound_job(const ErBoundJob& job) {
  const node_t n = planned_node_count(job.graph);
  if (n < 2) throw InvalidParameter("graph", "graph: gossip-er-bound needs at least 2 nodes");
  if (job.source && *job.source >= n)
    throw InvalidParameter("source", "source " + std::to_string(*job.source) + " is not a node of the " +
                                         std::to_string(n) + "-node graph");
  if (!std::isfinite(job.alpha * job.sensitivity * job.sensitivity / (2 * job.sigma * job.sigma)))
    throw InvalidParameter("sigma", "sigma " + format_double(job.sigma) + " is too small for sensitivity " +
                                        format_double(job.sensitivity) +
                                        ": alpha Delta^2 / (2 sigma^2) overflows");
}

// q as given, from c (q = c ln(n)/n, docs/math.md §2.5), or the graph's density 2m / (n (n - 1)).
std::pair<double, std::string> edge_probability(const ErBoundJob& job, const Graph& g) {
  if (job.q) return {*job.q, "given"};
  const double n = g.n;
  if (job.er_c) return {n > 1 ? *job.er_c * std::log(n) / n : 1.0, "er-c: c ln(n) / n"};
  return {n > 1 ? 2.0 * double(g.num_edges()) / (n * (n - 1)) : 1.0, "graph density 2m / (n (n - 1))"};
}

RunResult run_er_bound_job(const ErBoundJob& job, const ResultsDir& out) {
  const Stopwatch clock;
  const Graph g = make_graph(job.graph);
  if (g.n < 2) throw InvalidParameter("graph", "graph: gossip-er-bound needs at least 2 nodes");
  if (job.source && *job.source >= g.n)
    throw InvalidParameter("source", "source " + std::to_string(*job.source) + " is not a node of the " +
                                         std::to_string(g.n) + "-node graph");
  const auto [q, q_rule] = edge_probability(job, g);
  if (!(q >= 0.0 && q <= 1.0)) {
    if (job.er_c)
      throw InvalidParameter("er-c", "er-c: the edge probability q = c ln(n) / n must be in [0, 1], got " +
                                         format_double(q) + " (lower er-c)");
    throw InvalidParameter("q", "q must be in [0, 1], got " + format_double(q));
  }
  // Checks the numbers once (and whether the theorem's condition on sigma holds) before any output.
  const ErGossipBound probe =
      er_gossip_loss_bound(g.n, q, job.steps, 0, job.alpha, job.sigma, job.sensitivity, true, job.variant);
  GossipLossParams ldp;
  ldp.alpha = job.alpha;
  ldp.sigma = job.sigma;
  ldp.sensitivity = job.sensitivity;

  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  LossReport report(g, out, job.source ? 1 : g.n, "gossip-er-bound", job.progress, job.write_matrix,
                    job.diagonal_local ? gossip_ldp_loss(ldp) : 0.0);
  // The bound of observer v depends only on d_v and on whether {u, v} is an edge: one value per observer,
  // then the neighbours of u get the neighbour case. Rows in tiles of 256 sources.
  std::vector<double> other(static_cast<std::size_t>(g.n)), neighbour(static_cast<std::size_t>(g.n));
  for (node_t v = 0; v < g.n; ++v) {
    other[v] = er_gossip_loss_bound(g.n, q, job.steps, g.degree(v), job.alpha, job.sigma, job.sensitivity,
                                    false, job.variant)
                   .value;
    neighbour[v] = er_gossip_loss_bound(g.n, q, job.steps, g.degree(v), job.alpha, job.sigma, job.sensitivity,
                                        true, job.variant)
                       .value;
  }
  const node_t first = job.source ? *job.source : 0, last = job.source ? *job.source + 1 : g.n;
  const node_t tile = 256;
  std::vector<double> rows;
  for (node_t start = first; start < last; start += tile) {
    const node_t count = std::min(tile, last - start);
    rows.assign(static_cast<std::size_t>(count) * g.n, 0.0);
    for (node_t i = 0; i < count; ++i) {
      double* row = rows.data() + static_cast<std::size_t>(i) * g.n;
      std::copy(other.begin(), other.end(), row);
      for (node_t w : g.neighbors(start + i)) row[w] = neighbour[w];
      row[start + i] = 0.0;  // u = v is no pair (LossReport writes the chosen diagonal)
    }
    report.sink().consume(start, count, rows);
  }
  const json losses = report.finish(result);

  const auto degrees = degree_stats(g);
  json summary = {
      {"model", "gossip-er-bound"},
      {"n", g.n},
      {"edges", g.num_edges()},
      {"degree", {{"min", degrees.min}, {"mean", degrees.mean}, {"max", degrees.max}}},
      {"edge_probability", q},
      {"edge_probability_rule", q_rule},
      {"steps", job.steps},
      {"alpha", job.alpha},
      {"sigma", job.sigma},
      {"sensitivity", job.sensitivity},
      {"variant", job.variant == ErBoundVariant::theorem ? "theorem" : "reference-code"},
      {"ldp_loss", gossip_ldp_loss(ldp)},
      {"valid", probe.valid},
      {"seconds", clock.seconds()},
  };
  summary.update(losses);
  if (job.source) summary["source"] = *job.source;
  const std::string warning = built_on_theorem_warning("the Erdos-Renyi bound (Theorem 6.6)");
  if (job.progress) std::fprintf(stderr, "netdp: warning: %s\n", warning.c_str());  // --quiet: summary.json
  summary["warnings"] = json::array({warning});
  json manifest = manifest_header("gossip-er-bound", job.invocation);
  manifest["parameters"] = {{"graph", job.graph},
                            {"steps", job.steps},
                            {"q", job.q ? json(*job.q) : json(nullptr)},
                            {"er_c", job.er_c ? json(*job.er_c) : json(nullptr)},
                            {"alpha", job.alpha},
                            {"sigma", job.sigma},
                            {"sensitivity", job.sensitivity},
                            {"variant", summary["variant"]},
                            {"diagonal", job.diagonal_local ? "local" : "zero"},
                            {"source", job.source ? json(*job.source) : json(nullptr)}};
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

}  // namespace

Model gossip_er_bound_model() {
  using namespace declare;
  Model m = named_model(
      "gossip-er-bound",
      "Theorem 6.6 on a given graph: pairwise loss bound of Muffliato on a private Erdos-Renyi graph G(n, q) "
      "(docs/math.md §6.4), the reference code's per-graph bound",
      "--graph er:n=200,c=2,seed=1 --steps 10 --q 0.05 --out out/er-bound");
  using Job = ErBoundJob;
  Binding<Job> bind;
  m.parameters = {
      bind(text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. er:n=1000,c=2,seed=1")
               .required(),
           &Job::graph),
      bind(integer("steps", "gossip rounds T").required().range(at_least(1)),
           [](Job& job, int steps) { job.steps = steps; }),
      bind(real("q", "edge probability q of G(n, q) (default: the graph's density 2m / (n (n - 1)))")
               .range(between(0, 1))
               .excludes("er-c"),
           &Job::q),
      bind(real("er-c", "q = c ln(n) / n instead of q").range(at_least(0)).excludes("q"), &Job::er_c),
      bind(real("alpha", "Renyi order alpha > 1").fallback("2").range(above(1)), &Job::alpha),
      bind(real("sigma",
                "absolute std of the Gaussian noise added once by every node, in the units of the values")
               .unit(units::absolute_std)
               .fallback("1")
               .range(above(0)),
           &Job::sigma),
      bind(real("sensitivity", "l2 sensitivity Delta of a node's value").fallback("1").range(above(0)),
           &Job::sensitivity),
      bind(choice(
               "variant",
               "theorem: Thm 6.6 with d_v; reference-code: d_v + 2 and min with the LDP level (docs/math.md "
               "§12 "
               "item 57)",
               {"theorem", "reference-code"})
               .fallback("theorem"),
           [](Job& job, const std::string& variant) {
             job.variant =
                 variant == "reference-code" ? ErBoundVariant::reference_code : ErBoundVariant::theorem;
           }),
      bind(integer("source", "compute only the row of this source node u").range(between(0, 0x7fffffff)),
           [](Job& job, int source) { job.source = source; }),
      bind(choice("diagonal",
                  "loss.npy at (u, u): zero or local (the LDP level, the reference code's self-pair)",
                  {"zero", "local"})
               .fallback("zero"),
           [](Job& job, const std::string& diagonal) { job.diagonal_local = diagonal == "local"; }),
      bind(flag("no-matrix",
                "do not write loss.npy (by_distance.csv, per_observer.csv and summary.json only)"),
           [](Job& job, bool off) { job.write_matrix = !off; }),
      threads_parameter(),
      out_parameter(),
      quiet_parameter()};
  m.validate = bind.check(check_er_bound_job);
  m.execute = bind.run(run_er_bound_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line(
        "gossip-er-bound: n = %d, q = %.6g, T = %lld, mean bound %.6g, max %.6g (LDP %.6g) -> %s\n",
        s["n"].get<int>(), s["edge_probability"].get<double>(), s["steps"].get<long long>(),
        s["mean_loss"].get<double>(), s["max_loss"].get<double>(), s["ldp_loss"].get<double>(),
        c.out_dir.string().c_str());
  };
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    return Estimate{16 * (2 * g.m + g.n) + 8 * 256 * g.n, g.n * g.n / 2e8};
  });
  return m;
}

}  // namespace netdp::jobs
