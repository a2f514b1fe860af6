// walk-sgd's by_distance.csv (docs/walk_sgd.md "Heterogeneous data"): privacy and estimate discrepancy by
// quantile of the Euclidean distance between nodes of a random geometric graph (docs/math.md §11 E15).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "jobs/walk_sgd_parts.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp {

std::vector<double> walk_sgd_rgg_positions(const std::string& graph) {
  const GraphSpec spec = parse_graph_spec(graph);
  if (spec.family != "rgg")
    throw InvalidParameter("node-data", "node-data coordinates needs an rgg graph, got '" + graph + "'");
  auto value = [&](const char* key, const char* fallback) {
    const auto it = spec.params.find(key);
    return it == spec.params.end() ? std::string(fallback) : it->second;
  };
  std::vector<double> positions;  // make_graph accepted the spec, so the numbers parse
  random_geometric_graph(static_cast<node_t>(std::stol(value("n", "0"))), std::stod(value("r", "0")),
                         std::stoull(value("seed", "0")), &positions);
  return positions;
}

CsvTable walk_sgd_by_distance_table(const WalkModel& walk, const LocalData& data, const WalkSgdParams& p,
                                    const std::vector<double>& positions, const WalkSgdGraph& symmetric,
                                    const WalkLossParams& loss, int quantiles,
                                    const std::function<void(double)>& progress) {
  const auto n = static_cast<std::size_t>(data.n);
  struct Pair {
    double distance;
    std::size_t u, v;
  };
  std::vector<Pair> pairs;
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = u + 1; v < n; ++v)
      pairs.push_back(
          {std::hypot(positions[2 * u] - positions[2 * v], positions[2 * u + 1] - positions[2 * v + 1]), u,
           v});
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const Pair& a, const Pair& b) { return a.distance < b.distance; });
  const int classes =
      static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(quantiles), pairs.size()));
  std::vector<int> pair_class(n * n, -1);
  std::vector<double> lo(classes), hi(classes), privacy(classes, 0.0);
  std::vector<std::int64_t> count(classes, 0);
  std::vector<double> eps;
  if (loss.sigma > 0) eps = walk_loss_matrix(symmetric.g, symmetric.w, loss);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const int c = static_cast<int>(i * classes / pairs.size());  // equal-size classes in distance order
    const auto& [d, u, v] = pairs[i];
    pair_class[u * n + v] = c;
    if (count[c]++ == 0) lo[c] = d;
    hi[c] = d;
    if (!eps.empty()) privacy[c] += (eps[u * n + v] + eps[v * n + u]) / 2;
  }
  const std::vector<double> discrepancy = walk_sgd_discrepancy(walk, data, p, pair_class, classes, progress);
  CsvTable csv("by_distance.csv", {{"quantile", CsvType::int64},
                                   {"distance_min", CsvType::float64},
                                   {"distance_max", CsvType::float64},
                                   {"pairs", CsvType::int64},
                                   {"privacy_mean", CsvType::float64},
                                   {"step", CsvType::int64},
                                   {"discrepancy_mean", CsvType::float64}});
  const std::size_t points = discrepancy.size() / static_cast<std::size_t>(classes);
  for (int c = 0; c < classes; ++c)
    for (std::size_t e = 0; e < points; ++e) {
      const std::int64_t step = std::min(static_cast<std::int64_t>(e) * p.eval_every, p.steps);
      csv.row({c + 1, lo[c], hi[c], count[c], eps.empty() ? NAN : privacy[c] / double(count[c]), step,
               discrepancy[e * classes + c]});
    }
  return csv;
}

}  // namespace netdp
