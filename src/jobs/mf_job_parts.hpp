#pragma once
// What mf-loss and mf-factorize share (docs/mf.md): their parameters, the reading of their values, the graph,
// W, participation and correlation of a run, and the summary fields describing them.
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/binding.hpp"
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
/// The check phase of both MF models: steps, participation, correlation, options; the graph (required when
/// `need_graph`), a W file and a correlation file read whole and checked.
void check_mf_spec(const MfSpec& spec, bool need_graph);
/// The bytes an MF run holds at once whatever else it does (the T x T matrices of C and its workloads, n of
/// them for one C per node), for Model::run's memory check (docs/design_models.md "Memory held at once").
double mf_required_bytes(const MfSpec& spec, node_t n);
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
/// graph, weights, steps, participation, correlation and the correlation's options, bound to job.spec.
template <class Job>
std::vector<Parameter> mf_parameters(Binding<Job>& bind, bool graph_required) {
  using namespace declare;
  Declare graph = text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. florentine");
  if (graph_required) graph.required();
  return {
      bind(graph, [](Job& job, const std::string& spec) { job.spec.graph = spec; }),
      bind(text("weights",
                "gossip matrix W: average (D^-1 (A + I)) | metropolis | hamilton-literal | max-degree | "
                "lazy-uniform | "
                "file:PATH")
               .fallback("average"),
           &Job::spec, &MfSpec::weights),
      bind(integer("steps", "rounds T").fallback("10").range(at_least(1)), &Job::spec, &MfSpec::steps),
      bind(text("participation",
                "every | single | cyclic:b=B,k=K (T = B K): steps at which a node's data takes part")
               .fallback("every"),
           &Job::spec, &MfSpec::participation),
      bind(text("correlation",
                "C_local: none | ldp | antipgd | sr | bsr | dmf | optimal | mafalda | mafalda-l (one C per "
                "node) | "
                "file:PATH (T x T, or (n T) x T per node, float64 .npy)")
               .fallback("ldp"),
           &Job::spec, &MfSpec::correlation),
      bind(flag("symmetric-toeplitz", "sr/bsr: the symmetric Toeplitz matrix of the reference code"),
           &Job::spec, &MfSpec::options, &mf::CorrelationSpec::symmetric_toeplitz),
      bind(integer("band", "bsr: entries with i - j >= band are 0 (0 = the participation's b)")
               .fallback("0")
               .range(at_least(0)),
           &Job::spec, &MfSpec::options, &mf::CorrelationSpec::band),
      bind(choice("surrogate",
                  "optimiser objective: exact tr(G X^-1) | code (reversed Cholesky of the reference code)",
                  {"exact", "code"})
               .fallback("exact"),
           [](Job& job, const std::string& surrogate) {
             job.spec.options.surrogate = surrogate == "code" ? mf::Surrogate::code : mf::Surrogate::exact;
           }),
      bind(integer("max-iterations", "optimiser iteration limit (dmf, optimal, mafalda, mafalda-l)")
               .fallback("10000")
               .range(at_least(1)),
           &Job::spec, &MfSpec::options, &mf::CorrelationSpec::max_iterations),
  };
}
}  // namespace jobs

}  // namespace netdp
