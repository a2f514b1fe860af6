// `--protocol sequence`: a user-given sequence of gossip matrices W_0 .. W_{L-1} (docs/math.md §6.1,
// time-varying graphs G_t = (V, E_t)), read from a list file, one matrix file per line.
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"

namespace netdp {

namespace {

/// The line without its `#` comment and surrounding blanks.
std::string trimmed(std::string line) {
  if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

/// W without its stored zeros, and E_t = its off-diagonal support.
GossipRound round_of(const CsrMatrix& loaded) {
  std::vector<Triplet> entries;
  std::vector<std::pair<node_t, node_t>> edges;
  for (node_t i = 0; i < loaded.n; ++i)
    for (offset_t k = loaded.offsets[i]; k < loaded.offsets[i + 1]; ++k) {
      if (loaded.values[k] == 0.0) continue;
      entries.push_back({i, loaded.columns[k], loaded.values[k]});
      if (loaded.columns[k] != i) edges.emplace_back(i, loaded.columns[k]);
    }
  GossipRound r;
  r.w = csr_from_triplets(loaded.n, std::move(entries));
  r.graph = graph_from_edges(loaded.n, edges);
  return r;
}

}  // namespace

std::vector<GossipRound> load_gossip_sequence(const std::string& list_path, node_t n) {
  std::ifstream in(list_path);
  if (!in) throw InvalidParameter("sequence", "sequence: cannot open the list file '" + list_path + "'");
  const std::filesystem::path base = std::filesystem::path(list_path).parent_path();
  std::vector<GossipRound> rounds;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const std::string name = trimmed(text);
    if (name.empty()) continue;
    std::filesystem::path file(name);
    if (file.is_relative()) file = base / file;
    const std::string where =
        "sequence " + list_path + " line " + std::to_string(line) + " (" + file.string() + "): ";
    try {
      GossipRound r = round_of(load_weight_matrix(file.string()));
      if (r.w.n != n)
        throw InvalidInput("W is " + std::to_string(r.w.n) + " x " + std::to_string(r.w.n) +
                           " but the graph has " + std::to_string(n) + " nodes");
      validate_gossip_matrix(r.w, r.graph, 1e-9);  // row-stochastic and symmetric (docs/math.md §2.1)
      rounds.push_back(std::move(r));
    } catch (const InvalidInput& e) {
      throw InvalidParameter("sequence", where + e.what());
    }
  }
  if (rounds.empty())
    throw InvalidParameter("sequence", "sequence " + list_path + ": the list names no matrix file");
  return rounds;
}

}  // namespace netdp
