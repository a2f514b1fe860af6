#include "jobs/job_graph.hpp"

#include <cmath>
#include <filesystem>

#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp {

JobGraph load_job_graph(const std::string& spec, const WeightsSpec& weights, GapDefinition gap,
                        bool spectrum_needed, bool progress) {
  constexpr node_t kReportedSpectrumLimit = 1024;  // the dense solver's size (core/spectral.cpp): seconds
  JobGraph j;
  j.g = make_graph(spec);
  j.w = make_weights(j.g, weights);
  validate_gossip_matrix(j.w, j.g);
  if (!spectrum_needed && j.g.n > kReportedSpectrumLimit) {
    j.spectrum = {std::nan(""), std::nan(""), "not computed (steps given, n > 1024)"};
    j.gap = std::nan("");
    return j;
  }
  ProgressLine line("spectrum (Lanczos)", "of its step limit", progress);
  bool lanczos = false;  // the stage exists only when Lanczos ran (not for dense or closed-form spectra)
  j.spectrum = spectral_summary(j.w, [&](double done) {
    lanczos = true;
    line.update(done);
    throw_if_stopped();  // Lanczos runs on the job's thread
  });
  if (lanczos) line.finish();
  j.gap = j.spectrum.gap(gap);
  return j;
}

node_t planned_node_count(const std::string& spec) {
  const GraphSpec parsed = parse_graph_spec(spec);
  std::error_code ec;
  if (parsed.family == "file" && std::filesystem::file_size(parsed.params.at("path"), ec) > (16u << 20) &&
      !ec)
    return 0x7fffffff;  // a large file is read once, by the run, which checks the nodes then
  const auto [n, m] = jobs::graph_size(spec);  // built once per spec when small; the estimates share it
  // A large generator, counted from its keys, must fit the memory it will be built in (docs/reliability.md
  // §2).
  require_memory(graph_build_bytes(n, m), "graph '" + excerpt(spec) + "'");
  if (n > 0x7fffffff) return node_t(make_graph(parsed).n);  // the builder's own refusal
  return node_t(n);
}

void check_job_weights(const std::string& spec, const WeightsSpec& weights) {
  if (weights.scheme != Weighting::file) return;
  if (planned_node_count(spec) == 0x7fffffff || jobs::graph_size(spec).m > 2e6) return;
  const Graph g = make_graph(spec);
  const CsrMatrix w = make_weights(g, weights);
  try {
    validate_gossip_matrix(w, g);
  } catch (const InvalidInput& e) {  // "W is not symmetric: ...": named by the option and file that gave W
    if (std::string(e.what()).rfind("W ", 0) != 0) throw;
    throw InvalidParameter("weights", "weights " + to_string(weights) + ": " + e.what());
  }
}

void require_device(const DeviceSpec& device) {
  if (device.kind == DeviceKind::cuda) (void)resolve_device(device);
}

int auto_steps(const JobGraph& graph, double sigma, const std::string& horizon,
               int (*rule)(node_t n, double sigma, double gap)) {
  require_connected_for_auto_steps(graph.g, horizon);
  return rule(graph.g.n, sigma, graph.gap);
}

void require_connected_for_auto_steps(const Graph& g, const std::string& horizon) {
  node_t components = 0;
  connected_components(g, &components);
  if (components > 1)
    throw InvalidParameter("steps", "steps auto: the graph has " + std::to_string(components) +
                                        " connected components, so " + horizon +
                                        " is undefined; give steps T");
}

}  // namespace netdp
