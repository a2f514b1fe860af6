// `netdp graph`: build or load a graph, export it, and report its statistics and spectral quantities.
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/options.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp::cli {

namespace {

struct GraphOptions {
  std::string graph, weights = "metropolis", out;
  double sigma = 1.0;
  bool eigenvalues = false;
  long long diameter_limit = 2'000'000'000;
};

int run_graph(const GraphOptions& o, const nlohmann::json& invocation) {
  Graph g = make_graph(o.graph);
  CsrMatrix w = make_weights(g, parse_weights_spec(o.weights));
  ResultsDir out(o.out);
  write_edge_list(g, out.file("edges.txt").string());

  node_t components = 0;
  connected_components(g, &components);
  const auto degrees = degree_stats(g);
  nlohmann::json stats = {{"n", g.n},
                          {"edges", g.num_edges()},
                          {"degree", {{"min", degrees.min}, {"mean", degrees.mean}, {"max", degrees.max}}},
                          {"connected", components == 1},
                          {"components", components},
                          {"weights", o.weights}};
  // The exact diameter costs a BFS per node; skip it past the limit rather than stall.
  if (double(g.n) * double(g.adjacency.size()) <= double(o.diameter_limit))
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
      stats["t_stop"] = muffliato_stopping_time(g.n, o.sigma, gap);
      stats["t_stop_sigma"] = o.sigma;
    }
    if (o.eigenvalues) {
      std::ostringstream csv;
      csv << "index,eigenvalue\n";
      auto values = eigenvalues(w);
      for (std::size_t i = 0; i < values.size(); ++i) csv << i << ',' << format_double(values[i]) << '\n';
      out.write_text("eigenvalues.csv", csv.str());
    }
  }
  out.write_json("stats.json", stats);
  auto manifest = manifest_header("graph", invocation);
  manifest["parameters"] = {{"graph", o.graph}, {"weights", o.weights}, {"sigma", o.sigma}};
  out.commit_manifest(manifest);
  std::printf("graph: n = %d, m = %lld, %s -> %s\n", g.n, static_cast<long long>(g.num_edges()),
              components == 1 ? "connected" : "disconnected", o.out.c_str());
  return 0;
}

}  // namespace

Command add_graph_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* command = app.add_subcommand("graph", "build or load a graph; write its edge list and statistics");
  auto o = std::make_shared<GraphOptions>();
  add_graph_options(*command, o->graph, o->weights);
  command->add_option("--sigma", o->sigma, "noise std used for the reported T_stop")->capture_default_str();
  command->add_flag("--eigenvalues", o->eigenvalues, "also write every eigenvalue of W (dense, O(n^3))");
  command
      ->add_option("--diameter-limit", o->diameter_limit, "skip the exact diameter when n * 2m exceeds this")
      ->capture_default_str();
  command->add_option("--out", o->out, "output directory")->required();
  command->footer("Graph families (--graph FAMILY:key=value,...):\n" + graph_families_help());
  return {command, [o, invocation] { return run_graph(*o, invocation); }};
}

}  // namespace netdp::cli
