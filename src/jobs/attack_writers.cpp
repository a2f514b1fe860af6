#include "jobs/attack_writers.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "netdp/attack/centrality.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {
constexpr CsvType kInt = CsvType::int64, kFloat = CsvType::float64;
}

void add_attack_nodes_csv(RunResult& result, const attack::GossipAttackResult& r, node_t n) {
  CsvTable& csv =
      result.table("nodes.csv", {{"node", kInt},
                                 {"attacker", kInt},
                                 {"observed", kInt},
                                 {"reconstructible", kInt},
                                 {"float_reconstructible", kInt},  // empty without the float check
                                 {"private", kFloat},
                                 {"reconstructed", kFloat},
                                 {"error", kFloat}});  // empty where not reconstructible
  auto in = [](const std::vector<node_t>& set, node_t v) {
    return std::binary_search(set.begin(), set.end(), v);
  };
  for (node_t v = 0; v < n; ++v) {
    const auto i = static_cast<std::size_t>(v);
    const bool known = in(r.reconstructible, v);
    csv.row(
        {v, in(r.attackers, v), in(r.observed, v), known,
         r.float_checked ? CsvCell(in(r.float_reconstructible, v)) : CsvCell(csv_empty), r.private_values[i],
         r.reconstructed_values[i],
         known ? CsvCell(std::abs(r.reconstructed_values[i] - r.private_values[i])) : CsvCell(csv_empty)});
  }
}

void add_attack_relations_csv(RunResult& result, const attack::GossipAttackResult& r) {
  CsvTable& csv = result.table("relations.csv", {{"relation", kInt}, {"node", kInt}});
  for (std::size_t i = 0; i < r.relations.size(); ++i)
    for (node_t v : r.relations[i]) csv.row({i, v});
}

void add_attackers_csv(RunResult& result, const attack::AllAttackersResult& r, bool with_float) {
  std::vector<CsvColumn> columns{{"attacker", kInt}, {"rank", kInt}, {"reconstructed", kInt}};
  if (with_float) columns.push_back({"float_reconstructed", kInt});
  CsvTable& csv = result.table("attackers.csv", columns);
  for (std::size_t a = 0; a < r.rank.size(); ++a) {
    std::vector<CsvCell> row{a, r.rank[a], r.reconstructed[a]};
    if (with_float) row.push_back(r.float_reconstructed[a]);
    csv.row(row);
  }
}

void add_attack_privacy_csv(RunResult& result, const Graph& g, const attack::GossipAttackResult& r,
                            const attack::AttackPrivacy& p) {
  CsvTable& csv = result.table("privacy.csv", {{"node", kInt},
                                               {"distance", kInt},  // empty: no attacker reaches the node
                                               {"reconstructible", kInt},
                                               {"projection", kFloat},
                                               {"mu", kFloat},
                                               {"epsilon", kFloat}});  // empty without delta
  const std::vector<node_t> distance = attack::attacker_distances(g, r.attackers);
  for (node_t v = 0; v < g.n; ++v) {
    const auto i = static_cast<std::size_t>(v);
    csv.row({v, distance[i] >= 0 ? CsvCell(distance[i]) : CsvCell(csv_empty),
             std::binary_search(r.reconstructible.begin(), r.reconstructible.end(), v), p.projection[i],
             p.mu[i], p.epsilon.empty() ? CsvCell(csv_empty) : CsvCell(p.epsilon[i])});
  }
}

json add_privacy_by_distance(RunResult& result, const std::vector<attack::PrivacyByDistance>& rows,
                             bool epsilon) {
  CsvTable& csv = result.table("privacy_by_distance.csv", {{"distance", kInt},
                                                           {"pairs", kInt},
                                                           {"reconstructible", kInt},
                                                           {"mu_mean", kFloat},
                                                           {"mu_min", kFloat},
                                                           {"mu_max", kFloat},
                                                           {"epsilon_mean", kFloat},
                                                           {"epsilon_max", kFloat}});
  json list = json::array();
  for (const auto& r : rows) {
    const CsvCell none = csv_empty;
    csv.row({r.distance >= 0 ? CsvCell(r.distance) : none, r.pairs, r.reconstructible, r.mu_mean, r.mu_min,
             r.mu_max, epsilon ? CsvCell(r.epsilon_mean) : none, epsilon ? CsvCell(r.epsilon_max) : none});
    json row = {{"distance", r.distance >= 0 ? json(r.distance) : json(nullptr)},
                {"pairs", r.pairs},
                {"reconstructible", r.reconstructible},
                {"mu_mean", r.mu_mean},
                {"mu_min", r.mu_min},
                {"mu_max", r.mu_max}};
    if (epsilon) {
      row["epsilon_mean"] = r.epsilon_mean;
      row["epsilon_max"] = r.epsilon_max;
    }
    list.push_back(row);
  }
  return list;
}

namespace {

json mean_std(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  int count = 0;
  for (double v : x)
    if (!std::isnan(v)) sum += v, squares += v * v, ++count;
  if (count == 0) return {{"mean", nullptr}, {"std", nullptr}, {"defined", 0}};
  const double mean = sum / count;
  return {
      {"mean", mean}, {"std", std::sqrt(std::max(0.0, squares / count - mean * mean))}, {"defined", count}};
}

json number_or_null(double x) {
  return std::isnan(x) ? json(nullptr) : json(x);
}

}  // namespace

json add_attack_centralities(RunResult& result, const Graph& g, const attack::AllAttackersResult& r) {
  const auto n = static_cast<std::size_t>(g.n);
  const std::vector<double> degree = attack::degree_centrality(g), eigen = attack::eigenvector_centrality(g),
                            between = attack::betweenness_centrality(g), katz = attack::katz_centrality(g),
                            comm = attack::communicability(g);
  std::vector<double> fraction(n), tau_distance(n), tau_comm(n);
  for (std::size_t a = 0; a < n; ++a) {
    fraction[a] = double(r.reconstructed[a]) / double(n);
    std::vector<double> known(n), distance(n),
        row(comm.begin() + static_cast<std::ptrdiff_t>(a * n),
            comm.begin() + static_cast<std::ptrdiff_t>((a + 1) * n));
    const std::vector<node_t> hops = bfs_distances(g, static_cast<node_t>(a));
    for (std::size_t j = 0; j < n; ++j) known[j] = r.reconstructible[a * n + j], distance[j] = hops[j];
    tau_distance[a] = attack::kendall_tau_b(known, distance);
    tau_comm[a] = attack::kendall_tau_b(known, row);
  }
  CsvTable& csv = result.table("centralities.csv", {{"attacker", kInt},
                                                    {"degree", kFloat},
                                                    {"eigenvector", kFloat},
                                                    {"betweenness", kFloat},
                                                    {"katz", kFloat},
                                                    {"reconstructed_fraction", kFloat},
                                                    {"kendall_distance", kFloat},
                                                    {"kendall_communicability", kFloat}});
  for (std::size_t a = 0; a < n; ++a)
    csv.row({a, degree[a], eigen[a], between[a], katz[a], fraction[a], tau_distance[a], tau_comm[a]});
  return {{"spearman_degree", number_or_null(attack::spearman(degree, fraction))},
          {"spearman_eigenvector", number_or_null(attack::spearman(eigen, fraction))},
          {"spearman_betweenness", number_or_null(attack::spearman(between, fraction))},
          {"spearman_katz", number_or_null(attack::spearman(katz, fraction))},
          {"kendall_distance", mean_std(tau_distance)},
          {"kendall_communicability", mean_std(tau_comm)}};
}

}  // namespace netdp
