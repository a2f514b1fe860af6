#pragma once
// The graph side every pairwise-loss job starts with: graph from its spec, W from the weighting (checked to
// be a gossip matrix), spectrum and gap; and the connectivity that --steps auto needs.
#include <string>

#include "netdp/core/device.hpp"
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

/// `spectrum_needed` false (gossip-loss with steps given: the spectrum is only reported): beyond the dense
/// solver's size the spectrum is not computed (a Lanczos run of minutes on a large graph,
/// docs/reliability.md), and lambda_2, lambda_min and the gap are NaN (null in summary.json), method "not
/// computed". `progress`: a progress line while Lanczos runs (docs/reliability.md §6: no phase over a few
/// seconds is silent).
JobGraph load_job_graph(const std::string& spec, const WeightsSpec& weights, GapDefinition gap,
                        bool spectrum_needed = true, bool progress = false);

/// The node count of the graph `spec` builds, for a model's checks before the graph exists (the study's
/// validation of every grid point, docs/study.md): a graph small enough to build quickly is built (so its
/// every error shows), once per spec; a large generator is counted from its keys; a graph file over 16 MB is
/// left to the run (0x7fffffff). Throws what make_graph
/// throws.
node_t planned_node_count(const std::string& spec);

/// The check phase of a model that takes W (docs/reliability.md §1): a weights file is read whole and
/// checked as the run checks it (square, of size n, non-negative, rows summing to 1, symmetric:
/// validate_gossip_matrix) on the graph of `spec`, before any work. Nothing for a named weighting (built
/// from the graph) or a graph of more than 2e6 edges (the run checks it once built).
void check_job_weights(const std::string& spec, const WeightsSpec& weights);

/// A device given explicitly (cuda, cuda:N) must answer: DeviceUnavailable otherwise. auto and cpu always
/// answer.
void require_device(const DeviceSpec& device);

/// InvalidInput naming `horizon` (e.g. "the stopping time T_stop") when g is disconnected.
void require_connected_for_auto_steps(const Graph& g, const std::string& horizon);

/// T for steps auto: `rule`(n, sigma, gap) of the graph (muffliato_stopping_time, random_walk_horizon), after
/// require_connected_for_auto_steps(graph.g, horizon).
int auto_steps(const JobGraph& graph, double sigma, const std::string& horizon,
               int (*rule)(node_t n, double sigma, double gap));

}  // namespace netdp
