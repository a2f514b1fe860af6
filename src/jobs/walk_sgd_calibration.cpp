// The two noise calibrations of `netdp walk-sgd` (docs/walk_sgd.md "Calibration" and "Mean-loss
// calibration"): the complete-graph sigma search of docs/math.md §4.3.3, and the mean pairwise loss of
// docs/math.md §5.8 on the walk's own graph.
#include <algorithm>
#include <cmath>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/jobs/walk_sgd_job.hpp"
#include "netdp/simulation/walk_sim_model.hpp"

namespace netdp {

WalkSgdCalibration calibrate_walk_sgd(WalkSgdVariant variant, double n, const bounds::SigmaSearchParams& p) {
  WalkSgdCalibration c;
  c.search = bounds::sgd_sigma_search(n, p);
  const auto& s = c.search;
  switch (variant) {
    case WalkSgdVariant::centralized:
      c.sigma = s.sigma_central;
      return c;
    case WalkSgdVariant::local:
      c.sigma = s.sigma_local;
      break;
    case WalkSgdVariant::network:
      c.sigma = s.sigma_network;
      break;
  }
  c.cap = p.procedure == bounds::SigmaProcedure::code
              ? static_cast<std::int64_t>(std::ceil(p.cap_factor * s.steps / n))
              : static_cast<std::int64_t>(std::ceil(s.contributions));
  return c;
}

WalkSgdGraph walk_sgd_symmetric_walk(const std::string& graph, const std::string& weights) {
  const GraphSpec spec = parse_graph_spec(graph);
  WalkSgdGraph out;
  out.g = make_graph(spec);
  const bool complete = spec.family == "complete";
  if (complete && (weights == "auto" || weights == "metropolis")) {  // J/n: metropolis on K_n
    out.w = gossip_matrix(out.g, Weighting::metropolis);
    return out;
  }
  const WalkWeights rule = parse_walk_weights(weights == "auto" ? "uniform" : weights);
  bool regular = true;
  for (node_t v = 1; v < out.g.n; ++v) regular = regular && out.g.degree(v) == out.g.degree(0);
  switch (rule.rule) {
    case WalkWeights::Rule::matrix:
      out.w = make_weights(out.g, rule.matrix);
      return out;
    case WalkWeights::Rule::uniform:
    case WalkWeights::Rule::lazy_uniform:
      if (regular) {  // 1/d (max-degree weighting without diagonal) or 1/(2d) and 1/2
        out.w = gossip_matrix(
            out.g, rule.rule == WalkWeights::Rule::uniform ? Weighting::max_degree : Weighting::lazy_uniform);
        return out;
      }
      break;
    case WalkWeights::Rule::directed_ring:
      break;
  }
  throw InvalidParameter("weights",
                         "weights: the pairwise loss of docs/math.md §5 needs a symmetric walk; '" + weights +
                             "' on '" + graph + "' is not (use metropolis, hamilton-literal or max-degree)");
}

double walk_mean_loss(const WalkSgdGraph& walk, const WalkLossParams& p, TargetStatistic statistic) {
  const std::vector<double> eps = walk_loss_matrix(walk.g, walk.w, p);
  const auto n = static_cast<std::size_t>(walk.g.n);
  if (statistic == TargetStatistic::all_pairs) {
    double sum = 0;
    for (std::size_t u = 0; u < n; ++u)
      for (std::size_t v = 0; v < n; ++v)
        if (u != v) sum += eps[u * n + v];
    return n > 1 ? sum / double(n * (n - 1)) : 0.0;
  }
  std::vector<double> observer(n, 0.0);  // (1/n) sum_{u != v} eps_{u->v}, divisor n as eq. 6.4
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v)
      if (u != v) observer[v] += eps[u * n + v] / double(n);
  return *std::max_element(observer.begin(), observer.end());
}

double walk_mean_loss_multiplier(const WalkSgdGraph& walk, WalkLossParams p, TargetStatistic statistic,
                                 double target, double* statistic_at_one) {
  if (!(target > 0) || !std::isfinite(target))
    throw InvalidParameter("target-mean-loss", "target-mean-loss must be > 0, got " + format_double(target));
  p.sigma = 1.0;
  const double at_one = walk_mean_loss(walk, p, statistic);
  if (statistic_at_one) *statistic_at_one = at_one;
  if (!(at_one > 0))
    throw InvalidParameter("target-mean-loss",
                           "target-mean-loss: the mean loss is 0 at sigma = 1, nothing to calibrate");
  return std::sqrt(at_one / target);
}

}  // namespace netdp
