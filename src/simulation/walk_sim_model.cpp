// Walk models: the transition tables every run reads (docs/walk_sim.md "Walks") and their stationary law.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/simulation/walk_sim_model.hpp"
#include "simulation/walk_sim_samplers.hpp"

namespace netdp {

namespace {

void require_nodes(std::int64_t n, const std::string& what) {
  if (n < 2) throw InvalidInput(what + ": a walk needs n >= 2 nodes, got n = " + std::to_string(n));
}

// Cumulative thresholds of one row of positive weights (docs/walk_sim.md "Samplers"): C_k = floor(2^64 S_k /
// S) for k < d - 1, with S_k the running sum in column order and S the row total; the last entry's threshold
// (2^64) is implicit and stored as the maximum.
void append_thresholds(std::span<const double> weights, std::vector<std::uint64_t>& out) {
  double total = 0;
  for (double w : weights) total += w;
  double running = 0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    running += weights[k];
    out.push_back(k + 1 == weights.size() ? std::numeric_limits<std::uint64_t>::max()
                                          : walk_detail::fixed_point_64(running / total));
  }
}

// pi for a W that is not doubly stochastic: x <- (x + x W) / 2 (same fixed point, aperiodic) until the L1
// change is below 1e-14.
std::vector<double> power_iteration(const WalkModel& m, const std::vector<double>& values,
                                    std::string& rule) {
  const node_t n = m.n;
  std::vector<double> x(n, 1.0 / n), y(n);
  int iterations = 0;
  double change = 1;
  for (; iterations < 1'000'000 && change > 1e-14; ++iterations) {
    std::fill(y.begin(), y.end(), 0.0);
    for (node_t i = 0; i < n; ++i)
      for (offset_t k = m.offsets[i]; k < m.offsets[i + 1]; ++k) y[m.targets[k]] += x[i] * values[k];
    change = 0;
    double total = 0;
    for (node_t j = 0; j < n; ++j) {
      const double next = 0.5 * (x[j] + y[j]);
      change += std::fabs(next - x[j]);
      x[j] = next;
      total += next;
    }
    for (double& v : x) v /= total;
  }
  rule = "power iteration x <- (x + x W)/2 (" + std::to_string(iterations) + " iterations, last L1 change " +
         std::to_string(change) + ")";
  return x;
}

bool doubly_stochastic(const WalkModel& m, const std::vector<double>& values) {
  std::vector<double> column(m.n, 0.0);
  for (std::size_t k = 0; k < values.size(); ++k) column[m.targets[k]] += values[k];
  return std::all_of(column.begin(), column.end(), [](double s) { return std::fabs(s - 1) <= 1e-9; });
}

void degree_stationary(WalkModel& m, const Graph& g) {
  m.stationary.resize(g.n);
  const double two_m = double(g.offsets.back());
  for (node_t v = 0; v < g.n; ++v) m.stationary[v] = g.degree(v) / two_m;
  m.stationary_rule = "d_v / 2m (reversible walk)";
}

/// A W with no entry off its diagonal (W = I, e.g. a file of "v v 1" lines) never moves the walk: it ran and
/// exited 0 on a connected ring (docs/reliability.md §1). A W with some absorbing rows still moves and stays
/// allowed (tests/unit/test_walk_sim_interleaved.cpp "absorbing file").
void require_moving_walk(const WalkModel& m) {
  if (m.n < 2) return;
  for (node_t i = 0; i < m.n; ++i)
    for (offset_t k = m.offsets[i]; k < m.offsets[i + 1]; ++k)
      if (m.targets[k] != i) return;
  throw InvalidParameter("weights", "weights: W = I (no entry off the diagonal): the walk never moves");
}

/// W's positive entries must not split a connected graph (a block-diagonal file): part of the graph would
/// never be visited, its return times and losses undefined. An absorbing node (W_vv = 1) is allowed: the
/// support, read undirected, stays connected.
void require_irreducible_walk(const WalkModel& m) {
  std::vector<std::vector<node_t>> reverse(static_cast<std::size_t>(m.n));
  for (node_t i = 0; i < m.n; ++i)
    for (offset_t k = m.offsets[i]; k < m.offsets[i + 1]; ++k) reverse[m.targets[k]].push_back(i);
  std::vector<char> seen(static_cast<std::size_t>(m.n), 0);
  std::vector<node_t> stack{0};
  seen[0] = 1;
  const auto visit = [&](node_t j) {
    if (!seen[j]) {
      seen[j] = 1;
      stack.push_back(j);
    }
  };
  while (!stack.empty()) {
    const node_t i = stack.back();
    stack.pop_back();
    for (offset_t k = m.offsets[i]; k < m.offsets[i + 1]; ++k) visit(m.targets[k]);
    for (node_t j : reverse[i]) visit(j);
  }
  for (node_t i = 0; i < m.n; ++i)
    if (!seen[i])
      throw InvalidParameter("weights", "weights: W's positive entries never connect node 0 and node " +
                                            std::to_string(i) +
                                            " (W splits this connected graph: the walk is reducible)");
}

void weighted_rows(WalkModel& m, const Graph& g, const WeightsSpec& spec) {
  const CsrMatrix w = make_weights(g, spec);
  try {
    validate_row_stochastic(w, g);
  } catch (const InvalidParameter&) {
    throw;
  } catch (const InvalidInput& e) {  // "W row 0 sums to 1.5": named by the option and file that gave W
    throw InvalidParameter("weights", "weights " + to_string(spec) + ": " + e.what());
  }
  m.kind = WalkKind::weighted;
  m.weights = to_string(spec);
  m.offsets.assign(1, 0);
  std::vector<double> values, row;
  for (node_t i = 0; i < w.n; ++i) {
    row.clear();
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
      if (w.values[k] > 0) {
        m.targets.push_back(w.columns[k]);
        row.push_back(w.values[k]);
      }
    append_thresholds(row, m.thresholds);
    values.insert(values.end(), row.begin(), row.end());
    m.offsets.push_back(static_cast<offset_t>(m.targets.size()));
  }
  require_moving_walk(m);
  require_irreducible_walk(m);
  if (doubly_stochastic(m, values)) {
    m.stationary_rule = "uniform (W doubly stochastic)";
    return;
  }
  m.stationary = power_iteration(m, values, m.stationary_rule);
  append_thresholds(m.stationary, m.stationary_thresholds);
}

node_t parse_node_count(const GraphSpec& spec) {
  auto it = spec.params.find("n");
  if (it == spec.params.end()) throw InvalidInput("graph '" + spec.text + "': missing n (complete:n=N)");
  long long n = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n > std::numeric_limits<node_t>::max())
    throw InvalidInput("graph '" + spec.text + "': n must be an integer, got '" + s + "'");
  require_nodes(n, "graph '" + spec.text + "'");
  return static_cast<node_t>(n);
}

}  // namespace

std::string to_string(WalkKind k) {
  switch (k) {
    case WalkKind::complete:
      return "complete";
    case WalkKind::uniform:
      return "uniform";
    case WalkKind::lazy_uniform:
      return "lazy-uniform";
    case WalkKind::weighted:
      return "weighted";
    default:
      return "directed-ring";
  }
}

int WalkModel::words_per_step() const {
  switch (kind) {
    case WalkKind::weighted:
      return 2;
    case WalkKind::directed_ring:
      return 0;
    default:
      return 1;
  }
}

node_t WalkModel::degree(node_t v) const {
  if (kind == WalkKind::complete) return n - 1;
  if (kind == WalkKind::directed_ring) return n == 2 ? 1 : 2;
  return degrees[v];
}

WalkModel complete_walk(node_t n) {
  require_nodes(n, "complete graph");
  WalkModel m;
  m.kind = WalkKind::complete;
  m.n = n;
  m.edges = std::int64_t{n} * (n - 1) / 2;
  m.weights = "J/n (implicit complete graph, self-transitions allowed)";
  m.stationary_rule = "uniform (W = J/n)";
  return m;
}

WalkModel directed_ring_walk(node_t n) {
  require_nodes(n, "directed ring");
  WalkModel m;
  m.kind = WalkKind::directed_ring;
  m.n = n;
  m.edges = n == 2 ? 1 : n;
  m.weights = "directed ring v -> v + 1 mod n";
  m.stationary_rule = "uniform (permutation)";
  return m;
}

WalkWeights parse_walk_weights(std::string_view text) {
  WalkWeights w;
  if (text == "uniform") return w;
  if (text == "lazy-uniform") {
    w.rule = WalkWeights::Rule::lazy_uniform;
    return w;
  }
  if (text == "directed-ring") {
    w.rule = WalkWeights::Rule::directed_ring;
    return w;
  }
  try {
    w.matrix = parse_weights_spec(text);
  } catch (const InvalidInput&) {
    throw InvalidParameter("weights",
                           "weights: expected auto, uniform, lazy-uniform, directed-ring, metropolis, "
                           "hamilton-literal, max-degree or file:PATH, got '" +
                               std::string(text) + "'");
  }
  w.rule = WalkWeights::Rule::matrix;
  return w;
}

std::string to_string(const WalkWeights& w) {
  switch (w.rule) {
    case WalkWeights::Rule::uniform:
      return "uniform";
    case WalkWeights::Rule::lazy_uniform:
      return "lazy-uniform";
    case WalkWeights::Rule::directed_ring:
      return "directed-ring";
    default:
      return to_string(w.matrix);
  }
}

WalkModel csr_walk(const Graph& g, const WalkWeights& weights, std::string_view command) {
  require_nodes(g.n, "graph");
  if (!is_connected(g))
    throw InvalidInput(std::string(command) + " needs a connected graph (this one is not)");
  WalkModel m;
  m.n = g.n;
  m.edges = g.num_edges();
  m.degrees.resize(g.n);
  for (node_t v = 0; v < g.n; ++v) m.degrees[v] = g.degree(v);
  switch (weights.rule) {
    case WalkWeights::Rule::uniform:
    case WalkWeights::Rule::lazy_uniform:
      for (node_t v = 0; v < g.n; ++v)
        if (g.degree(v) > std::numeric_limits<std::int32_t>::max() / 2)
          throw InvalidInput("node " + std::to_string(v) + " has too many neighbours for a 32-bit draw");
      m.kind = weights.rule == WalkWeights::Rule::uniform ? WalkKind::uniform : WalkKind::lazy_uniform;
      m.weights = weights.rule == WalkWeights::Rule::uniform
                      ? "uniform: 1/d_v to each neighbour"
                      : "lazy-uniform: 1/2 stay, 1/(2 d_v) to each neighbour";
      m.offsets = g.offsets;
      m.targets = g.adjacency;
      degree_stationary(m, g);
      break;
    case WalkWeights::Rule::directed_ring:
      for (node_t v = 0; v < g.n; ++v) {
        const node_t next = v + 1 == g.n ? 0 : v + 1;
        auto row = g.neighbors(v);
        if (!std::binary_search(row.begin(), row.end(), next))
          throw InvalidParameter("weights",
                                 "weights directed-ring needs the ring 0-1-...-(n-1)-0 (graph ring:n=N); {" +
                                     std::to_string(v) + ", " + std::to_string(next) + "} is not an edge");
      }
      m.kind = WalkKind::directed_ring;
      m.weights = "directed ring v -> v + 1 mod n";
      m.stationary_rule = "uniform (permutation)";
      break;
    case WalkWeights::Rule::matrix:
      weighted_rows(m, g, weights.matrix);
      break;
  }
  return m;
}

WalkModel make_walk_model(std::string_view graph_spec, std::string_view weights, Graph* graph,
                          std::string_view command) {
  const GraphSpec spec = parse_graph_spec(graph_spec);
  if (spec.family == "complete" && (weights == "auto" || weights == "metropolis"))
    return complete_walk(parse_node_count(spec));
  const WalkWeights w = parse_walk_weights(weights == "auto" ? "uniform" : weights);
  if (w.rule == WalkWeights::Rule::directed_ring && spec.family != "ring")
    throw InvalidParameter("weights", "weights directed-ring needs graph ring:n=N, got '" + spec.text + "'");
  Graph g = make_graph(spec);
  WalkModel m = csr_walk(g, w, command);
  if (graph) *graph = std::move(g);
  return m;
}

WalkStart parse_walk_start(std::string_view text) {
  if (text == "uniform") return {StartKind::uniform, 0};
  if (text == "stationary") return {StartKind::stationary, 0};
  if (text.starts_with("node:")) {
    long long u = -1;
    auto digits = text.substr(5);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u);
    if (ec == std::errc() && end == digits.data() + digits.size() && u >= 0 &&
        u <= std::numeric_limits<node_t>::max())
      return {StartKind::node, static_cast<node_t>(u)};
  }
  throw InvalidParameter("start",
                         "start: expected node:U, uniform or stationary, got '" + std::string(text) + "'");
}

std::string to_string(const WalkStart& s) {
  switch (s.kind) {
    case StartKind::uniform:
      return "uniform";
    case StartKind::stationary:
      return "stationary";
    default:
      return "node:" + std::to_string(s.node);
  }
}

}  // namespace netdp
