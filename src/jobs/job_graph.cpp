#include "jobs/job_graph.hpp"

#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp {

JobGraph load_job_graph(const std::string& spec, const WeightsSpec& weights, GapDefinition gap) {
  JobGraph j;
  j.g = make_graph(spec);
  j.w = make_weights(j.g, weights);
  validate_gossip_matrix(j.w, j.g);
  j.spectrum = spectral_summary(j.w);
  j.gap = j.spectrum.gap(gap);
  return j;
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
