#include "jobs/attack_writers.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "netdp/attack/centrality.hpp"
#include "netdp/core/format.hpp"

namespace netdp {

using json = nlohmann::json;

void write_attack_nodes_csv(const ResultsDir& out, const attack::GossipAttackResult& r, node_t n) {
  AtomicFile file(out.file("nodes.csv"));
  auto& s = file.stream();
  s << "node,attacker,observed,reconstructible,float_reconstructible,private,reconstructed,error\n";
  auto in = [](const std::vector<node_t>& set, node_t v) {
    return std::binary_search(set.begin(), set.end(), v);
  };
  for (node_t v = 0; v < n; ++v) {
    const auto i = static_cast<std::size_t>(v);
    const bool known = in(r.reconstructible, v);
    s << v << ',' << in(r.attackers, v) << ',' << in(r.observed, v) << ',' << known << ',';
    if (r.float_checked) s << in(r.float_reconstructible, v);
    s << ',' << format_double(r.private_values[i]) << ',' << format_double(r.reconstructed_values[i]) << ',';
    if (known) s << format_double(std::abs(r.reconstructed_values[i] - r.private_values[i]));
    s << '\n';
  }
  file.commit();
}

void write_attack_relations_csv(const ResultsDir& out, const attack::GossipAttackResult& r) {
  AtomicFile file(out.file("relations.csv"));
  auto& s = file.stream();
  s << "relation,node\n";
  for (std::size_t i = 0; i < r.relations.size(); ++i)
    for (node_t v : r.relations[i]) s << i << ',' << v << '\n';
  file.commit();
}

void write_attackers_csv(const ResultsDir& out, const attack::AllAttackersResult& r, bool with_float) {
  AtomicFile file(out.file("attackers.csv"));
  auto& s = file.stream();
  s << "attacker,rank,reconstructed" << (with_float ? ",float_reconstructed" : "") << '\n';
  for (std::size_t a = 0; a < r.rank.size(); ++a) {
    s << a << ',' << r.rank[a] << ',' << r.reconstructed[a];
    if (with_float) s << ',' << r.float_reconstructed[a];
    s << '\n';
  }
  file.commit();
}

void write_attack_privacy_csv(const ResultsDir& out, const Graph& g, const attack::GossipAttackResult& r,
                              const attack::AttackPrivacy& p) {
  AtomicFile file(out.file("privacy.csv"));
  auto& s = file.stream();
  s << "node,distance,reconstructible,projection,mu,epsilon\n";
  const std::vector<node_t> distance = attack::attacker_distances(g, r.attackers);
  for (node_t v = 0; v < g.n; ++v) {
    const auto i = static_cast<std::size_t>(v);
    s << v << ',';
    if (distance[i] >= 0) s << distance[i];
    s << ',' << std::binary_search(r.reconstructible.begin(), r.reconstructible.end(), v) << ','
      << format_double(p.projection[i]) << ',' << format_double(p.mu[i]) << ',';
    if (!p.epsilon.empty()) s << format_double(p.epsilon[i]);
    s << '\n';
  }
  file.commit();
}

json write_privacy_by_distance(const ResultsDir& out, const std::vector<attack::PrivacyByDistance>& rows,
                               bool epsilon) {
  AtomicFile file(out.file("privacy_by_distance.csv"));
  auto& s = file.stream();
  s << "distance,pairs,reconstructible,mu_mean,mu_min,mu_max,epsilon_mean,epsilon_max\n";
  json list = json::array();
  for (const auto& r : rows) {
    if (r.distance >= 0) s << r.distance;
    s << ',' << r.pairs << ',' << r.reconstructible << ',' << format_double(r.mu_mean) << ','
      << format_double(r.mu_min) << ',' << format_double(r.mu_max) << ',';
    if (epsilon)
      s << format_double(r.epsilon_mean) << ',' << format_double(r.epsilon_max);
    else
      s << ',';
    s << '\n';
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
  file.commit();
  return list;
}

void write_int8_npy(const std::filesystem::path& path, const std::vector<std::int8_t>& values,
                    std::int64_t rows, std::int64_t cols) {
  std::string header = "{'descr': '|i1', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  // magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header.push_back('\n');
  AtomicFile file(path);
  auto& s = file.stream();
  s.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  s.write(length, 2);
  s.write(header.data(), static_cast<std::streamsize>(header.size()));
  s.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size()));
  file.commit();
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

json write_attack_centralities(const ResultsDir& out, const Graph& g, const attack::AllAttackersResult& r) {
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
  AtomicFile file(out.file("centralities.csv"));
  auto& s = file.stream();
  s << "attacker,degree,eigenvector,betweenness,katz,reconstructed_fraction,kendall_distance,kendall_"
       "communicability\n";
  for (std::size_t a = 0; a < n; ++a)
    s << a << ',' << format_double(degree[a]) << ',' << format_double(eigen[a]) << ','
      << format_double(between[a]) << ',' << format_double(katz[a]) << ',' << format_double(fraction[a])
      << ',' << format_double(tau_distance[a]) << ',' << format_double(tau_comm[a]) << '\n';
  file.commit();
  return {{"spearman_degree", number_or_null(attack::spearman(degree, fraction))},
          {"spearman_eigenvector", number_or_null(attack::spearman(eigen, fraction))},
          {"spearman_betweenness", number_or_null(attack::spearman(between, fraction))},
          {"spearman_katz", number_or_null(attack::spearman(katz, fraction))},
          {"kendall_distance", mean_std(tau_distance)},
          {"kendall_communicability", mean_std(tau_comm)}};
}

}  // namespace netdp
