// The rounds an attack observes (docs/math.md §7.1, Remark 4.6) and the attackers' parsing.
#include <algorithm>
#include <charconv>
#include <set>
#include <string>

#include "attack/knowledge_rows.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"

namespace netdp::attack {
namespace {

// The rational off-diagonal weight W_uv = num/den of a named weighting (docs/math.md §2.2).
std::pair<std::int64_t, std::int64_t> edge_weight(Weighting scheme, node_t du, node_t dv, node_t dmax) {
  switch (scheme) {
    case Weighting::metropolis:
      return {1, 1 + std::max(du, dv)};
    case Weighting::hamilton_literal:
      return {1, std::max(du, dv)};
    case Weighting::max_degree:
      return {1, dmax};
    default:
      return {1, 2 * static_cast<std::int64_t>(du)};  // lazy-uniform
  }
}

// W over Z/pZ: the rational edge weights mapped to the field, the diagonal 1 - sum of the row (exact there).
FieldCsr field_matrix(const ModularField& f, const Graph& g, Weighting scheme) {
  FieldCsr w;
  const node_t dmax = degree_stats(g).max;
  for (node_t u = 0; u < g.n; ++u) {
    std::uint64_t diagonal = f.one();
    bool diagonal_placed = false;
    std::vector<std::pair<node_t, std::uint64_t>> entries;
    for (node_t v : g.neighbors(u)) {
      const auto [num, den] = edge_weight(scheme, g.degree(u), g.degree(v), dmax);
      const std::uint64_t x = f.from_rational(num, den);
      entries.emplace_back(v, x);
      diagonal = f.sub(diagonal, x);
    }
    for (const auto& [v, x] : entries) {
      if (!diagonal_placed && v > u) {
        w.columns.push_back(u), w.values.push_back(diagonal), diagonal_placed = true;
      }
      w.columns.push_back(v), w.values.push_back(x);
    }
    if (!diagonal_placed) w.columns.push_back(u), w.values.push_back(diagonal);
    w.offsets.push_back(static_cast<offset_t>(w.columns.size()));
  }
  return w;
}

// Round t's graph of a time-varying run: every edge absent with probability `drop`, independently.
Graph dropped_graph(const Graph& g, double drop, std::uint64_t seed, int t) {
  PhiloxStream stream(seed, 2 + static_cast<std::uint64_t>(t), 0);
  std::vector<std::pair<node_t, node_t>> kept;
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u))
      if (u < v && stream.next_uniform_double() >= drop) kept.emplace_back(u, v);
  return graph_from_edges(g.n, kept);
}

}  // namespace

std::vector<node_t> observed_nodes(const Graph& g, const std::vector<node_t>& attackers, bool secagg) {
  std::vector<node_t> out;
  if (secagg) {
    out = attackers;
  } else {
    for (node_t a : attackers)
      for (node_t v : g.neighbors(a)) out.push_back(v);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](node_t v) {
                               return std::find(attackers.begin(), attackers.end(), v) != attackers.end();
                             }),
              out.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

GossipRounds::GossipRounds(const Graph& g, const WeightsSpec& weights, const GossipAttackParams& params)
    : n_(g.n), steps_(params.steps), impl_(std::make_unique<Impl>()) {
  if (params.steps < 1)
    throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(params.steps));
  if (!(params.dynamic >= 0 && params.dynamic < 1))
    throw InvalidParameter("dynamic", "dynamic must be in [0, 1), got " + std::to_string(params.dynamic));
  const bool named = weights.scheme != Weighting::file;
  if (params.dynamic > 0 && !named)
    throw InvalidParameter(
        "dynamic", "dynamic rebuilds W on every round's graph: it needs a named weighting, not a file");
  if (params.dynamic > 0) {
    for (int t = 0; t < params.steps; ++t)
      graphs_.push_back(dropped_graph(g, params.dynamic, params.seed, t));
  } else {
    graphs_.push_back(g);
  }
  exact_ = named;
  for (const Graph& round : graphs_)
    impl_->real.push_back(named ? gossip_matrix(round, weights.scheme) : make_weights(round, weights));
  if (!exact_) return;
  for (std::uint64_t p : kPrimes) {
    impl_->fields.emplace_back(p);
    std::vector<FieldCsr> per_round;
    for (const Graph& round : graphs_)
      per_round.push_back(field_matrix(impl_->fields.back(), round, weights.scheme));
    impl_->modular.push_back(std::move(per_round));
  }
}

GossipRounds::~GossipRounds() = default;

std::vector<node_t> parse_attackers(const std::string& text, node_t n, std::uint64_t seed, bool* every) {
  *every = false;
  if (text == "all") {
    *every = true;
    return {};
  }
  auto number = [&](std::string_view item) {
    long long x = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
    if (ec != std::errc() || end != item.data() + item.size())
      throw InvalidParameter(
          "attackers", "attackers: expected node ids, all or random:K, got '" + excerpt(text, 200) + "'");
    return x;
  };
  if (text.starts_with("random:")) {
    const long long k = number(std::string_view(text).substr(7));
    if (k < 1 || k > n)
      throw InvalidParameter("attackers", "attackers random:K needs 1 <= K <= n = " + std::to_string(n) +
                                              ", got " + std::to_string(k));
    PhiloxStream stream(seed, 1, 0);  // a partial Fisher-Yates shuffle
    std::vector<node_t> nodes(static_cast<std::size_t>(n));
    for (node_t i = 0; i < n; ++i) nodes[static_cast<std::size_t>(i)] = i;
    for (long long i = 0; i < k; ++i) {
      const auto j = i + static_cast<long long>(stream.next_below(static_cast<std::uint32_t>(n - i)));
      std::swap(nodes[static_cast<std::size_t>(i)], nodes[static_cast<std::size_t>(j)]);
    }
    nodes.resize(static_cast<std::size_t>(k));
    std::sort(nodes.begin(), nodes.end());
    return nodes;
  }
  std::vector<node_t> out;
  std::set<node_t> seen;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const long long v = number(rest.substr(0, comma));
    if (v < 0 || v >= n)
      throw InvalidParameter("attackers", "attackers: node " + std::to_string(v) + " is out of range [0, " +
                                              std::to_string(n) + ")");
    if (!seen.insert(static_cast<node_t>(v)).second)
      throw InvalidParameter("attackers", "attackers: node " + std::to_string(v) + " is listed twice");
    out.push_back(static_cast<node_t>(v));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (static_cast<long long>(out.size()) > n)
    throw InvalidParameter("attackers", "attackers: more attackers than the " + std::to_string(n) + " nodes");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace netdp::attack
