// Random communication patterns of the gossip simulator (docs/math.md §6.3, 6.4, 6.8), drawn from the Philox
// streams laid out in gossip_sim.hpp, so that one (seed, run) gives one schedule on every device and thread
// count. The accountant of time-varying gossip consumes them as GossipSchedule.
#include <algorithm>
#include <cmath>
#include <string>

#include "common/gossip_sim_math.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/philox.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp {

namespace gossip_sim_detail {

namespace {

constexpr int kMaxAttempts = 1000;                                // resampling of a disconnected G(n, q)
constexpr std::uint64_t kAttemptStride = std::uint64_t{1} << 40;  // words reserved for one attempt

/// CSR graph from pairs (u, v), u < v, listed row by row in increasing order: every adjacency row then comes
/// out sorted (first the smaller neighbours, from earlier rows, then the larger ones).
Graph graph_from_sorted_pairs(node_t n, const std::vector<std::pair<node_t, node_t>>& pairs) {
  Graph g;
  g.n = n;
  g.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (auto [u, v] : pairs) {
    ++g.offsets[u + 1];
    ++g.offsets[v + 1];
  }
  for (node_t u = 0; u < n; ++u) g.offsets[u + 1] += g.offsets[u];
  g.adjacency.resize(static_cast<std::size_t>(g.offsets.back()));
  std::vector<offset_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
  for (auto [u, v] : pairs) {
    g.adjacency[cursor[u]++] = v;
    g.adjacency[cursor[v]++] = u;
  }
  return g;
}

/// One attempt at G(n, q): geometric skips over the pairs (u, v), u < v, in row order; each skip
/// floor(ln U / ln(1 - q)) is the number of absent pairs before the next edge.
std::vector<std::pair<node_t, node_t>> sample_gnp_pairs(node_t n, double q, PhiloxStream& s) {
  std::vector<std::pair<node_t, node_t>> pairs;
  const std::int64_t total = std::int64_t{n} * (n - 1) / 2;
  if (q <= 0.0 || total == 0) return pairs;
  const double log_absent = std::log1p(-q);  // -inf for q = 1: every skip is 0
  std::int64_t index = -1, u = 0, v = 0;     // (u, v) = pair `index`; (0, 0) is "before the first pair"
  while (true) {
    const double skip = q >= 1.0 ? 0.0 : std::floor(std::log(s.next_uniform_double()) / log_absent);
    if (!(skip < double(total - 1 - index))) break;
    kernels::advance_pair(static_cast<std::int64_t>(skip) + 1, n, index, u, v);
    pairs.emplace_back(static_cast<node_t>(u), static_cast<node_t>(v));
    if (2 * pairs.size() + 2 >= kAttemptStride)
      throw InvalidInput("G(n, q): more than 2^39 edges in one round");
  }
  return pairs;
}

}  // namespace

GossipRound sample_er_round(node_t n, double q, std::uint64_t seed, std::int64_t run, int round) {
  const std::uint64_t subsequence = gossip_subsequence(
      GossipStream::er_graph, static_cast<std::uint64_t>(run), static_cast<std::uint64_t>(round));
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    PhiloxStream s(seed, subsequence, attempt * kAttemptStride);
    Graph g = graph_from_sorted_pairs(n, sample_gnp_pairs(n, q, s));
    if (!is_connected(g)) continue;
    CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
    return {std::move(w), std::move(g)};
  }
  throw InvalidParameter("er-c", "er-c: er-per-round: G(n = " + std::to_string(n) +
                                     ", q = " + format_double(q) + ") was disconnected in " +
                                     std::to_string(kMaxAttempts) + " draws (run " + std::to_string(run) +
                                     ", round " + std::to_string(round) + "); raise er-c");
}

std::vector<char> dropout_mask(node_t n, double q, std::uint64_t seed, std::int64_t run, int round) {
  PhiloxStream s(seed, gossip_subsequence(GossipStream::dropout, static_cast<std::uint64_t>(run),
                                          static_cast<std::uint64_t>(round)));
  std::vector<char> out(static_cast<std::size_t>(n));
  for (auto& o : out) o = s.next_uniform_double() < q;
  return out;
}

GossipRound sample_dropout_round(const Graph& base, double q, std::uint64_t seed, std::int64_t run,
                                 int round) {
  const std::vector<char> out = dropout_mask(base.n, q, seed, run, round);
  Graph g;
  g.n = base.n;
  g.offsets.assign(static_cast<std::size_t>(base.n) + 1, 0);
  g.adjacency.reserve(base.adjacency.size());
  for (node_t u = 0; u < base.n; ++u) {
    if (!out[u])
      for (node_t v : base.neighbors(u))
        if (!out[v]) g.adjacency.push_back(v);
    g.offsets[u + 1] = static_cast<offset_t>(g.adjacency.size());
  }
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);  // isolated nodes: W_uu = 1, they keep their value
  return {std::move(w), std::move(g)};
}

GossipRound sample_dropout_er_round(node_t n, double p, double q, std::uint64_t seed, std::int64_t run,
                                    int round) {
  // The thesis' dropout (App C.8.6, docs/math.md §6.8): G(n, p) over all nodes from attempt 0 of the
  // er-per-round stream (no connectivity forcing, so no resampling), then every edge with a dropped end
  // removed: the survivors form G(n_active, p) over the active nodes.
  const std::vector<char> out = dropout_mask(n, q, seed, run, round);
  PhiloxStream s(seed, gossip_subsequence(GossipStream::er_graph, static_cast<std::uint64_t>(run),
                                          static_cast<std::uint64_t>(round)));
  std::vector<std::pair<node_t, node_t>> pairs = sample_gnp_pairs(n, p, s);
  std::erase_if(pairs, [&](const std::pair<node_t, node_t>& e) { return out[e.first] || out[e.second]; });
  Graph g = graph_from_sorted_pairs(n, pairs);            // the kept pairs are still in row order
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);  // isolated nodes keep their value
  return {std::move(w), std::move(g)};
}

ActivationSampler::ActivationSampler(const Graph& g, const CsrMatrix& w) {
  double sum = 0;
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u))
      if (u < v) {
        sum += 2.0 * w.at(u, v) / g.n;  // p_e = 2 W_e / n (docs/math.md §2.2)
        cumulative_.push_back(sum);
        edges_.emplace_back(u, v);
      }
  if (sum > 1.0 + 1e-9)
    throw InvalidInput("randomized gossip: the activation probabilities 2 W_e / n sum to " +
                       format_double(sum) + " > 1");
}

std::pair<node_t, node_t> ActivationSampler::draw(std::uint64_t seed, std::int64_t run,
                                                  std::int64_t tick) const {
  PhiloxStream s(seed, gossip_subsequence(GossipStream::activation, static_cast<std::uint64_t>(run), 0),
                 4 * static_cast<std::uint64_t>(tick));
  const auto edges = static_cast<std::int64_t>(edges_.size());
  const std::int64_t e = kernels::activated_edge(cumulative_.data(), edges, s.next_uniform_double());
  if (e == edges) return {0, 0};  // idle tick
  return edges_[static_cast<std::size_t>(e)];
}

std::vector<node_t> ActivationSampler::edge_nodes() const {
  std::vector<node_t> nodes;
  nodes.reserve(2 * edges_.size());
  for (auto [u, v] : edges_) {
    nodes.push_back(u);
    nodes.push_back(v);
  }
  return nodes;
}

const GossipRound& sequence_round(const GossipSimParams& p, int round) {
  return (*p.sequence)[static_cast<std::size_t>(round) % p.sequence->size()];
}

}  // namespace gossip_sim_detail

bool uses_graph_weights(GossipProtocol p) {
  return fixed_matrix(p) || p == GossipProtocol::randomized;
}

GossipSchedule sample_gossip_schedule(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                                      std::int64_t run) {
  using namespace gossip_sim_detail;
  validate(p, g.n);
  if (run < 0 || run >= p.runs)
    throw InvalidInput("gossip schedule: run " + std::to_string(run) + " outside [0, " +
                       std::to_string(p.runs) + ")");
  GossipSchedule s;
  s.n = g.n;
  s.steps = p.steps;
  switch (p.protocol) {
    case GossipProtocol::sync:
    case GossipProtocol::accelerated:  // privacy of the accelerated run is that of W^t (docs/math.md §2.4)
      s.constant = true;
      s.rounds.push_back({w, g});
      break;
    case GossipProtocol::randomized: {
      ActivationSampler sampler(g, w);
      s.activations.reserve(static_cast<std::size_t>(p.steps));
      for (int t = 0; t < p.steps; ++t) s.activations.push_back(sampler.draw(p.seed, run, t));
      break;
    }
    case GossipProtocol::er_per_round:
      for (int t = 0; t < p.steps; ++t)
        s.rounds.push_back(sample_er_round(g.n, p.edge_probability, p.seed, run, t));
      break;
    case GossipProtocol::dropout:
      for (int t = 0; t < p.steps; ++t)
        s.rounds.push_back(sample_dropout_round(g, p.dropout, p.seed, run, t));
      break;
    case GossipProtocol::dropout_er:
      for (int t = 0; t < p.steps; ++t)
        s.rounds.push_back(sample_dropout_er_round(g.n, p.edge_probability, p.dropout, p.seed, run, t));
      break;
    case GossipProtocol::sequence:  // the same for every run: W_{t mod L}
      s.rounds.reserve(static_cast<std::size_t>(p.steps));
      for (int t = 0; t < p.steps; ++t) s.rounds.push_back(sequence_round(p, t));
      break;
  }
  return s;
}

GossipSchedule sample_gossip_schedule(const Graph& g, const GossipSimParams& p, std::int64_t run) {
  if (!uses_graph_weights(p.protocol)) return sample_gossip_schedule(g, CsrMatrix{}, p, run);
  CsrMatrix w = make_weights(g, p.weights);
  validate_gossip_matrix(w, g);
  return sample_gossip_schedule(g, w, p, run);
}

}  // namespace netdp
