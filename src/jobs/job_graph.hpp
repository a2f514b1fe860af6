#pragma once
// The graph side every pairwise-loss job starts with: graph from its spec, W from the weighting (checked to
// be a gossip matrix), spectrum and gap; and the connectivity that --steps auto needs.
#include <string>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

struct JobGraph {
  Graph g;
  CsrMatrix w;
  SpectralSummary spectrum;
  double gap = 0;
};

JobGraph load_job_graph(const std::string& spec, const WeightsSpec& weights, GapDefinition gap);

/// InvalidInput naming `horizon` (e.g. "the stopping time T_stop") when g is disconnected.
void require_connected_for_auto_steps(const Graph& g, const std::string& horizon);

}  // namespace netdp
