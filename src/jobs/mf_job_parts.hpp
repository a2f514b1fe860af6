#pragma once
// What mf-loss and mf-factorize share (docs/mf.md): their parameters, the reading of their values, the graph,
// W, participation and correlation of a run, and the summary fields describing them.
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/jobs/mf_loss_job.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/mf/mf_correlation.hpp"
#include "netdp/mf/mf_workload.hpp"

namespace netdp {

struct MfSetup {
  bool has_graph = false;
  Graph g;
  CsrMatrix w;
  mf::Participation participation;
  mf::CorrelationSpec correlation;
  std::vector<mf::Matrix> c;  // C_local (one, T x T) or one per node (MAFALDA-L, a per-node file)
  int iterations = 0;
  bool converged = false;
  double seconds_correlation = 0;
};

/// The correlation spec: the kind and path of spec.correlation with spec.options' switches.
mf::CorrelationSpec mf_correlation_spec(const MfSpec& spec);
/// Checks that need no graph: steps, participation, correlation, options; the graph when `need_graph`.
void check_mf_spec(const MfSpec& spec, bool need_graph);
/// Builds the graph and W (when spec.graph is given), the participation and C.
MfSetup mf_setup(const MfSpec& spec);
/// The summary fields naming the graph, W, workload, participation and correlation.
nlohmann::json mf_description(const MfSpec& spec, const MfSetup& setup);
/// The spec as manifest parameters: graph, weights, steps, participation, correlation.
nlohmann::json mf_spec_manifest(const MfSpec& spec);
/// sens_Pi(C) and, for the prefix sum and (with a graph) the message and post-average workloads,
/// error = tr(C^-T G C^-1) and loss = sens^2 * error (docs/math.md §9.6). Per-node C: sens = max_u sens(C_u),
/// the graph workloads' error sum_u tr(C_u^-T G_u C_u^-1), the prefix sum's the mean over the nodes.
nlohmann::json mf_workload_losses(const MfSetup& setup);

namespace jobs {
/// graph, weights, steps, participation, correlation and the correlation's options.
std::vector<Parameter> mf_parameters(bool graph_required);
MfSpec mf_spec(const Values& v);
}  // namespace jobs

}  // namespace netdp
