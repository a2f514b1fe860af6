#include "jobs/mf_job_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/progress.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp {

using json = nlohmann::json;

mf::CorrelationSpec mf_correlation_spec(const MfSpec& spec) {
  mf::CorrelationSpec c = mf::parse_correlation(spec.correlation);
  c.symmetric_toeplitz = spec.options.symmetric_toeplitz;
  c.band = spec.options.band;
  c.surrogate = spec.options.surrogate;
  c.max_iterations = spec.options.max_iterations;
  return c;
}

void check_mf_spec(const MfSpec& spec, bool need_graph) {
  if (spec.steps < 1)
    throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(spec.steps));
  const mf::Participation p = mf::parse_participation(spec.participation, spec.steps);
  const mf::CorrelationSpec c = mf_correlation_spec(spec);
  if (c.band < 0) throw InvalidParameter("band", "band must be >= 0, got " + std::to_string(c.band));
  if (c.max_iterations < 1)
    throw InvalidParameter("max-iterations",
                           "max-iterations must be >= 1, got " + std::to_string(c.max_iterations));
  if (need_graph && spec.graph.empty()) throw InvalidParameter("graph", "graph is required");
  if (spec.graph.empty() &&
      (c.kind == mf::CorrelationKind::optimal || c.kind == mf::CorrelationKind::mafalda ||
       c.kind == mf::CorrelationKind::mafalda_l))
    throw InvalidParameter("graph", "graph is required for correlation " + spec.correlation);
  if (spec.weights != "average") mf::parse_mf_weights(spec.weights);
  // The graph and every input file, read whole before any work (docs/reliability.md §1): the graph from its
  // spec, a W file checked as the run checks it (n x n, non-negative, rows summing to 1), a correlation file
  // for its shape and finiteness.
  const bool weights_file = spec.weights.rfind("file:", 0) == 0;
  const bool correlation_file = c.kind == mf::CorrelationKind::file;
  if (!spec.graph.empty()) (void)planned_node_count(spec.graph);
  if (spec.graph.empty()) {
    if (correlation_file) (void)mf::correlation_matrices(c, p, nullptr, nullptr, nullptr);
  } else if (weights_file || correlation_file) {
    const Graph g = make_graph(spec.graph);
    const CsrMatrix w = mf::mf_gossip_matrix(g, spec.weights);
    if (correlation_file) (void)mf::correlation_matrices(c, p, &w, nullptr, nullptr);
  }
}

double mf_required_bytes(const MfSpec& spec, node_t n) {
  // C, C^T C, the prefix sum and the workload Grams, T x T each (about 5 of them at once), and n of them for
  // one C per node (mafalda-l, a per-node file).
  const double T = spec.steps, square = 8 * T * T;
  const bool per_node = spec.correlation == "mafalda-l" || spec.correlation.rfind("file:", 0) == 0;
  return 5 * square + (per_node ? 2.0 * double(n) * square : 0.0);
}

MfSetup mf_setup(const MfSpec& spec) {
  MfSetup s;
  s.participation = mf::parse_participation(spec.participation, spec.steps);
  s.correlation = mf_correlation_spec(spec);
  if (!spec.graph.empty()) {
    s.has_graph = true;
    s.g = make_graph(spec.graph);
    s.w = mf::mf_gossip_matrix(s.g, spec.weights);
  }
  const Stopwatch clock;
  s.c = mf::correlation_matrices(s.correlation, s.participation, s.has_graph ? &s.w : nullptr, &s.iterations,
                                 &s.converged);
  s.seconds_correlation = clock.seconds();
  return s;
}

json mf_spec_manifest(const MfSpec& spec) {
  return {{"graph", spec.graph},
          {"weights", spec.weights},
          {"steps", spec.steps},
          {"participation", spec.participation},
          {"correlation", spec.correlation}};
}

json mf_description(const MfSpec& spec, const MfSetup& s) {
  json d = {
      {"steps", spec.steps},
      {"participation", mf::to_string(s.participation)},
      {"batches", s.participation.batches},
      {"epochs", s.participation.epochs},
      {"correlation", spec.correlation},
      {"correlation_name", mf::display_name(s.correlation.kind)},
      {"symmetric_toeplitz", s.correlation.symmetric_toeplitz},
      {"band", s.correlation.kind == mf::CorrelationKind::bsr
                   ? (s.correlation.band > 0 ? s.correlation.band : s.participation.batches)
                   : 0},
      {"surrogate", s.correlation.surrogate == mf::Surrogate::exact ? "exact" : "code"},
      {"optimiser_iterations", s.iterations},
      {"optimiser_stop", s.iterations == 0 ? "none"
                         : s.converged     ? "gradient"
                                           : "line search"},
      {"seconds_correlation", s.seconds_correlation},
  };
  if (s.has_graph) {
    d["graph"] = spec.graph;
    d["n"] = s.g.n;
    d["edges"] = s.g.num_edges();
    d["weights"] = spec.weights;
    d["W"] = spec.weights == "average" ? "D^-1 (A + I): mean over N(u) and u, row-stochastic"
                                       : "netdp weighting " + spec.weights + " (docs/math.md §2.1)";
  }
  return d;
}

namespace {

json workload_entry(double error, double sens) {
  const double loss =
      std::isinf(sens) || std::isinf(error) ? std::numeric_limits<double>::infinity() : sens * sens * error;
  return {{"error", error}, {"loss", loss}};
}

}  // namespace

json mf_workload_losses(const MfSetup& s) {
  const int T = s.participation.steps();
  double sens = 0.0;
  for (const mf::Matrix& c : s.c) sens = std::max(sens, mf::sensitivity(c, s.participation));
  const mf::Matrix a = mf::prefix_sum(T);
  const mf::Matrix prefix_gram = mf::multiply(a, a, true, false);
  double prefix = 0.0;
  for (const mf::Matrix& c : s.c)
    prefix += mf::workload_error(prefix_gram, c) / static_cast<double>(s.c.size());
  json out = {{"sensitivity", sens}};
  json workloads = {{"prefix_sum", workload_entry(prefix, sens)}};
  if (s.has_graph) {
    for (int power : {0, 1}) {
      double error = 0.0;
      if (s.c.size() == 1) {
        error = mf::workload_error(mf::workload_gram(s.w, T, power, true), s.c[0]);
      } else {
        const std::vector<mf::Matrix> grams = mf::node_workload_grams(s.w, T, power, true);
        for (std::size_t u = 0; u < grams.size(); ++u) error += mf::workload_error(grams[u], s.c[u]);
      }
      workloads[power == 0 ? "message" : "post_average"] = workload_entry(error, sens);
    }
  }
  out["workloads"] = workloads;
  return out;
}

}  // namespace netdp
