#include "netdp/core/graph.hpp"

#include <algorithm>
#include <string>

#include "netdp/core/error.hpp"

namespace netdp {

Graph graph_from_edges(node_t n, std::span<const std::pair<node_t, node_t>> edges) {
  if (n < 0) throw InvalidInput("graph: negative node count " + std::to_string(n));
  std::vector<offset_t> degree(static_cast<std::size_t>(n) + 1, 0);
  for (auto [u, v] : edges) {
    if (u < 0 || u >= n || v < 0 || v >= n)
      throw InvalidInput("graph: edge (" + std::to_string(u) + ", " + std::to_string(v) +
                         ") has an id outside [0, " + std::to_string(n) + ")");
    if (u == v) continue;
    ++degree[u + 1];
    ++degree[v + 1];
  }
  Graph g;
  g.n = n;
  g.offsets.assign(degree.begin(), degree.end());
  for (node_t u = 0; u < n; ++u) g.offsets[u + 1] += g.offsets[u];
  g.adjacency.resize(static_cast<std::size_t>(g.offsets.back()));
  std::vector<offset_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (auto [u, v] : edges) {
    if (u == v) continue;
    g.adjacency[fill[u]++] = v;
    g.adjacency[fill[v]++] = u;
  }
  // Sort each row and drop repeated edges, compacting in place.
  offset_t write = 0;
  for (node_t u = 0; u < n; ++u) {
    auto begin = g.adjacency.begin() + g.offsets[u], end = g.adjacency.begin() + g.offsets[u + 1];
    std::sort(begin, end);
    auto last = std::unique(begin, end);
    g.offsets[u] = write;
    write = std::copy(begin, last, g.adjacency.begin() + write) - g.adjacency.begin();
  }
  g.offsets[n] = write;
  g.adjacency.resize(static_cast<std::size_t>(write));
  return g;
}

void validate(const Graph& g) {
  auto fail = [](const std::string& what) { throw InvalidInput("invalid graph: " + what); };
  if (g.n < 0 || g.offsets.size() != static_cast<std::size_t>(g.n) + 1 || g.offsets.front() != 0)
    fail("offsets must have n + 1 entries starting at 0");
  if (g.offsets.back() != static_cast<offset_t>(g.adjacency.size())) fail("offsets.back() != adjacency size");
  for (node_t u = 0; u < g.n; ++u) {
    if (g.offsets[u + 1] < g.offsets[u]) fail("offsets decrease at node " + std::to_string(u));
    auto row = g.neighbors(u);
    for (std::size_t i = 0; i < row.size(); ++i) {
      node_t v = row[i];
      if (v < 0 || v >= g.n)
        fail("node " + std::to_string(u) + " has neighbour " + std::to_string(v) + " out of range");
      if (v == u) fail("self-loop at node " + std::to_string(u));
      if (i > 0 && row[i - 1] >= v)
        fail("row " + std::to_string(u) + " is not sorted or repeats a neighbour");
      auto back = g.neighbors(v);
      if (!std::binary_search(back.begin(), back.end(), u))
        fail("edge (" + std::to_string(u) + ", " + std::to_string(v) + ") is not stored in both directions");
    }
  }
}

void bfs_distances(const Graph& g, node_t source, std::span<node_t> distance, std::vector<node_t>& queue) {
  std::fill(distance.begin(), distance.end(), -1);
  queue.resize(static_cast<std::size_t>(g.n));
  std::size_t head = 0, tail = 0;
  distance[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    node_t u = queue[head++];
    for (node_t v : g.neighbors(u)) {
      if (distance[v] < 0) {
        distance[v] = distance[u] + 1;
        queue[tail++] = v;
      }
    }
  }
}

std::vector<node_t> bfs_distances(const Graph& g, node_t source) {
  std::vector<node_t> distance(static_cast<std::size_t>(g.n)), queue;
  bfs_distances(g, source, distance, queue);
  return distance;
}

std::vector<node_t> connected_components(const Graph& g, node_t* count) {
  std::vector<node_t> label(static_cast<std::size_t>(g.n), -1), stack;
  node_t next = 0;
  for (node_t s = 0; s < g.n; ++s) {
    if (label[s] >= 0) continue;
    label[s] = next;
    stack.assign(1, s);
    while (!stack.empty()) {
      node_t u = stack.back();
      stack.pop_back();
      for (node_t v : g.neighbors(u))
        if (label[v] < 0) {
          label[v] = next;
          stack.push_back(v);
        }
    }
    ++next;
  }
  if (count) *count = next;
  return label;
}

bool is_connected(const Graph& g) {
  node_t count = 0;
  connected_components(g, &count);
  return count <= 1;
}

Graph largest_connected_component(const Graph& g, std::vector<node_t>* original_ids) {
  node_t count = 0;
  auto label = connected_components(g, &count);
  std::vector<node_t> size(static_cast<std::size_t>(count), 0);
  for (node_t l : label) ++size[l];
  node_t best = static_cast<node_t>(std::max_element(size.begin(), size.end()) - size.begin());
  std::vector<node_t> new_id(static_cast<std::size_t>(g.n), -1), old_id;
  for (node_t u = 0; u < g.n; ++u)
    if (count > 0 && label[u] == best) {
      new_id[u] = static_cast<node_t>(old_id.size());
      old_id.push_back(u);
    }
  std::vector<std::pair<node_t, node_t>> edges;
  for (node_t u : old_id)
    for (node_t v : g.neighbors(u))
      if (u < v) edges.emplace_back(new_id[u], new_id[v]);
  if (original_ids) *original_ids = old_id;
  return graph_from_edges(static_cast<node_t>(old_id.size()), edges);
}

node_t diameter(const Graph& g) {
  if (g.n == 0) return 0;
  if (!is_connected(g)) return -1;
  node_t best = 0;
#pragma omp parallel
  {
    std::vector<node_t> distance(static_cast<std::size_t>(g.n)), queue;
    node_t local = 0;
#pragma omp for schedule(dynamic, 16)
    for (node_t s = 0; s < g.n; ++s) {
      bfs_distances(g, s, distance, queue);
      local = std::max(local, *std::max_element(distance.begin(), distance.end()));
    }
#pragma omp critical
    best = std::max(best, local);
  }
  return best;
}

DegreeStats degree_stats(const Graph& g) {
  DegreeStats s;
  if (g.n == 0) return s;
  s.min = g.degree(0);
  for (node_t u = 0; u < g.n; ++u) {
    s.min = std::min(s.min, g.degree(u));
    s.max = std::max(s.max, g.degree(u));
  }
  s.mean = double(g.adjacency.size()) / g.n;
  return s;
}

}  // namespace netdp
