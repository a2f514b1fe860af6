// `graph`: build or load a graph, export its edge list, and report its statistics and spectral quantities
// (stats.json; not a study model: it writes no summary.json).
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

namespace {

struct GraphJob {
  std::string graph, weights;
  double sigma = 1;
  bool eigenvalues = false;
  std::int64_t diameter_limit = 2000000000;
  std::string out_dir;
  json invocation;
};

/// The check phase: the graph spec, the weighting, and a W file read whole and checked against the graph (n
/// x n, on its edges).
void check_graph_job(const GraphJob& job) {
  (void)planned_node_count(job.graph);
  const WeightsSpec weights = parse_weights_spec(job.weights);
  if (weights.scheme == Weighting::file) (void)make_weights(make_graph(job.graph), weights);
}

RunResult run_graph(const GraphJob& job, const ResultsDir& out) {
  const std::string& spec = job.graph;
  const std::string& weights = job.weights;
  const double sigma = job.sigma;
  Graph g = make_graph(spec);
  CsrMatrix w = make_weights(g, parse_weights_spec(weights));
  RunResult result;
  result.node_ids = g.file_ids;        // node_map.csv for a renumbered file graph
  result.summary_name = "stats.json";  // not a study model: no summary.json
  write_edge_list(g, out.file("edges.txt").string());
  result.streamed("edges.txt");
  // Families drawn from positions (rgg) also write them: plots by Euclidean distance (thesis Fig. C.3).
  if (const auto positions = graph_positions(parse_graph_spec(spec)); !positions.empty()) {
    CsvTable& csv = result.table(
        "positions.csv", {{"node", CsvType::int64}, {"x", CsvType::float64}, {"y", CsvType::float64}});
    for (std::size_t v = 0; v < positions.size() / 2; ++v)
      csv.row({v, positions[2 * v], positions[2 * v + 1]});
  }

  node_t components = 0;
  connected_components(g, &components);
  const auto degrees = degree_stats(g);
  json stats = {{"n", g.n},
                {"edges", g.num_edges()},
                {"degree", {{"min", degrees.min}, {"mean", degrees.mean}, {"max", degrees.max}}},
                {"connected", components == 1},
                {"components", components},
                {"weights", weights}};
  // The exact diameter costs a BFS per node; skip it past the limit rather than stall.
  if (double(g.n) * double(g.adjacency.size()) <= double(job.diameter_limit))
    stats["diameter"] = diameter(g);
  else
    stats["diameter"] = nullptr;

  bool symmetric = true;
  try {
    validate_gossip_matrix(w, g);
  } catch (const InvalidInput&) {
    symmetric = false;  // e.g. lazy-uniform on an irregular graph: no real symmetric spectrum to report
  }
  stats["symmetric_gossip_matrix"] = symmetric;
  if (symmetric) {
    auto spectrum = spectral_summary(w);
    const double gap = spectrum.gap(GapDefinition::second);
    stats["lambda_2"] = spectrum.lambda_2;
    stats["lambda_min"] = spectrum.lambda_min;
    stats["spectral_gap_second"] = gap;
    stats["spectral_gap_abs"] = spectrum.gap(GapDefinition::absolute);
    stats["eigen_method"] = spectrum.method;
    if (components == 1) {  // T_stop is undefined on a disconnected graph (gap 0 up to rounding)
      stats["chebyshev_gamma"] = chebyshev_gamma(gap);
      stats["t_stop"] = muffliato_stopping_time(g.n, sigma, gap);
      stats["t_stop_sigma"] = sigma;
    }
    if (job.eigenvalues) {
      CsvTable& csv =
          result.table("eigenvalues.csv", {{"index", CsvType::int64}, {"eigenvalue", CsvType::float64}});
      auto values = eigenvalues(w);
      for (std::size_t i = 0; i < values.size(); ++i) csv.row({i, values[i]});
    }
  }
  result.summary = std::move(stats);
  result.manifest = manifest_header("graph", job.invocation);
  result.manifest["parameters"] = {{"graph", spec}, {"weights", weights}, {"sigma", sigma}};
  return result;
}

}  // namespace

Model graph_model() {
  using namespace declare;
  Model m = named_model("graph", "build or load a graph; write its edge list and statistics",
                        "--graph hypercube:dim=4 --out out/graph");
  m.footer = "Graph families (graph = FAMILY:key=value,...):\n" + graph_families_help();
  m.study_model = false;
  Binding<GraphJob> bind;
  m.parameters = graph_parameters(
      bind,
      {bind(real("sigma", "absolute noise std (sensitivity 1) used for the reported T_stop")
                .unit(units::absolute_std)
                .fallback("1"),
            &GraphJob::sigma),
       bind(flag("eigenvalues", "also write every eigenvalue of W (dense, O(n^3))"), &GraphJob::eigenvalues),
       bind(integer("diameter-limit", "skip the exact diameter when n * 2m exceeds this")
                .fallback("2000000000")
                .wide(),
            &GraphJob::diameter_limit),
       out_parameter()});
  m.validate = bind.check(check_graph_job);
  m.execute = bind.run(run_graph);
  // --eigenvalues holds the dense n x n W at once (LAPACK dsyevd): refused by Model::run before the
  // directory exists, not by an out-of-memory after edges.txt was written (docs/reliability.md §1).
  m.resources = bind.estimate([](const GraphJob& job) {
    Estimate e;
    if (job.eigenvalues) {
      const double n = graph_size(job.graph).n;
      e.required_bytes = 8 * n * n;
    }
    return e;
  });
  m.describe = [](const json& stats, const RunContext& c) {
    return format_line(
        "graph: n = %d, m = %lld, %s -> %s\n", stats["n"].get<int>(), stats["edges"].get<long long>(),
        stats["connected"].get<bool>() ? "connected" : "disconnected", c.out_dir.string().c_str());
  };
  return m;
}

}  // namespace netdp::jobs
