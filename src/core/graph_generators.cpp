// Graph families of docs/math.md §2.5. Random families draw from std::mt19937_64 (whose raw output the C++
// standard fixes) and convert it to doubles and bounded integers here, never through std::*_distribution
// (whose algorithms are implementation-defined), so a seed gives the same graph on every platform.
#include "netdp/core/graph_generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <unordered_set>
#include <utility>

#include "netdp/core/error.hpp"

namespace netdp {
namespace {

using Edges = std::vector<std::pair<node_t, node_t>>;

void require(bool ok, const std::string& message) {
  if (!ok) throw InvalidInput(message);
}

void require_nodes(const char* family, const char* name, std::int64_t value) {
  require(value >= 1, std::string(family) + ": " + name + " must be >= 1, got " + std::to_string(value));
}

// Shortest round-trip form of a double, e.g. 1.5 or 1e-07 (std::to_string would print 0.000000).
std::string format(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  for (int precision = 6; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, x);
    if (std::strtod(shorter, nullptr) == x) return shorter;
  }
  return buffer;
}

node_t checked_node_count(const char* family, std::int64_t count) {
  require(count <= std::numeric_limits<node_t>::max(),
          std::string(family) + ": " + std::to_string(count) + " nodes do not fit 32-bit node ids");
  return static_cast<node_t>(count);
}

// Uniform double in [0, 1) from the top 53 bits.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Uniform integer in [0, bound) by rejection (no modulo bias).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    std::uint64_t x = rng();
    if (x >= threshold) return x % bound;
  }
}

// SplitMix64 finaliser: decorrelates the sub-seeds used for resampling from the user's seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One G(n, p) sample by geometric skipping over the pairs (v, w), w < v, in lexicographic order
// (Batagelj & Brandes 2005): the gap to the next present pair is Geometric(p), so the cost is O(n + m).
// The raw random stream is fixed by the standard; the gap also goes through std::log1p, so the sample is
// identical wherever libm rounds log1p identically.
Edges sample_gnp(node_t n, double p, std::mt19937_64& rng) {
  Edges edges;
  if (n < 2 || p <= 0.0) return edges;
  if (p >= 1.0) {
    for (node_t v = 1; v < n; ++v)
      for (node_t w = 0; w < v; ++w) edges.emplace_back(w, v);
    return edges;
  }
  edges.reserve(static_cast<std::size_t>(p * 0.5 * double(n) * double(n - 1) * 1.1) + 16);
  const double log_q = std::log1p(-p);
  std::int64_t v = 1, w = -1;
  while (v < n) {
    double skip = std::floor(std::log1p(-uniform01(rng)) / log_q);
    if (skip >= double(n) * double(n)) break;  // jumps past the last pair
    w += 1 + static_cast<std::int64_t>(skip);
    while (w >= v && v < n) {
      w -= v;
      ++v;
    }
    if (v < n) edges.emplace_back(static_cast<node_t>(w), static_cast<node_t>(v));
  }
  return edges;
}

// The pairs (i, j), i < na, j < nb, of two disjoint node sets each present with probability p, by the same
// geometric skipping over the na nb pairs in row-major order; ids are local to each set.
Edges sample_bipartite(node_t na, node_t nb, double p, std::mt19937_64& rng) {
  Edges edges;
  if (na < 1 || nb < 1 || p <= 0.0) return edges;
  const std::int64_t pairs = std::int64_t(na) * nb;
  if (p >= 1.0) {
    for (node_t i = 0; i < na; ++i)
      for (node_t j = 0; j < nb; ++j) edges.emplace_back(i, j);
    return edges;
  }
  const double log_q = std::log1p(-p);
  for (std::int64_t k = -1;;) {
    const double skip = std::floor(std::log1p(-uniform01(rng)) / log_q);
    if (skip >= double(pairs)) break;
    k += 1 + static_cast<std::int64_t>(skip);
    if (k >= pairs) break;
    edges.emplace_back(static_cast<node_t>(k / nb), static_cast<node_t>(k % nb));
  }
  return edges;
}

}  // namespace

Graph complete_graph(node_t n) {
  require_nodes("complete graph", "n", n);
  Graph g;
  g.n = n;
  g.offsets.resize(static_cast<std::size_t>(n) + 1);
  g.adjacency.reserve(static_cast<std::size_t>(n) * (n - 1));
  for (node_t u = 0; u < n; ++u) {
    g.offsets[u] = static_cast<offset_t>(u) * (n - 1);
    for (node_t v = 0; v < n; ++v)
      if (v != u) g.adjacency.push_back(v);
  }
  g.offsets[n] = static_cast<offset_t>(n) * (n - 1);
  return g;
}

Graph ring_graph(node_t n) {
  require_nodes("ring graph", "n", n);
  Edges edges;
  for (node_t u = 0; u < n; ++u) edges.emplace_back(u, static_cast<node_t>((u + 1) % n));
  return graph_from_edges(n, edges);  // n = 1 gives a self-loop (dropped), n = 2 a repeated edge (merged)
}

Graph path_graph(node_t n) {
  require_nodes("path graph", "n", n);
  Edges edges;
  for (node_t u = 0; u + 1 < n; ++u) edges.emplace_back(u, u + 1);
  return graph_from_edges(n, edges);
}

Graph star_graph(node_t n) {
  require_nodes("star graph", "n", n);
  Edges edges;
  for (node_t u = 1; u < n; ++u) edges.emplace_back(0, u);
  return graph_from_edges(n, edges);
}

Graph grid_graph(node_t rows, node_t cols) {
  require_nodes("grid graph", "rows", rows);
  require_nodes("grid graph", "cols", cols);
  node_t n = checked_node_count("grid graph", std::int64_t(rows) * cols);
  Edges edges;
  for (node_t r = 0; r < rows; ++r)
    for (node_t c = 0; c < cols; ++c) {
      node_t u = r * cols + c;
      if (c + 1 < cols) edges.emplace_back(u, u + 1);
      if (r + 1 < rows) edges.emplace_back(u, u + cols);
    }
  return graph_from_edges(n, edges);
}

Graph torus_graph(std::span<const node_t> sides) {
  require(!sides.empty(), "torus graph: at least one dimension is required");
  std::int64_t count = 1;
  for (node_t s : sides) {
    require_nodes("torus graph", "every side", s);
    count *= s;
    checked_node_count("torus graph", count);
  }
  const node_t n = static_cast<node_t>(count);
  // Row-major numbering: the stride of dimension d is the product of the sides after d.
  std::vector<node_t> stride(sides.size(), 1);
  for (std::size_t d = sides.size() - 1; d > 0; --d) stride[d - 1] = stride[d] * sides[d];
  Edges edges;
  for (node_t u = 0; u < n; ++u)
    for (std::size_t d = 0; d < sides.size(); ++d) {
      node_t coordinate = (u / stride[d]) % sides[d];
      node_t next = coordinate + 1 == sides[d] ? u - coordinate * stride[d] : u + stride[d];
      edges.emplace_back(u, next);  // side 1: self-loop (dropped); side 2: both directions coincide (merged)
    }
  return graph_from_edges(n, edges);
}

Graph hypercube_graph(int dim) {
  require(dim >= 0 && dim <= 30, "hypercube graph: dim must be in 0..30, got " + std::to_string(dim));
  const node_t n = node_t{1} << dim;
  Edges edges;
  for (node_t u = 0; u < n; ++u)
    for (int b = 0; b < dim; ++b)
      if (!(u & (node_t{1} << b))) edges.emplace_back(u, u | (node_t{1} << b));
  return graph_from_edges(n, edges);
}

Graph exponential_graph(node_t n) {
  require_nodes("exponential graph", "n", n);
  Edges edges;
  // Offsets 2^k for k = 0..floor(log2(n - 1)), i.e. every power of two below n; i - 2^k is covered by
  // symmetry.
  for (std::int64_t step = 1; step < n; step *= 2)
    for (node_t u = 0; u < n; ++u) edges.emplace_back(u, static_cast<node_t>((u + step) % n));
  return graph_from_edges(n, edges);
}

Graph erdos_renyi_graph(node_t n, double p, std::uint64_t seed, bool connected, int max_attempts) {
  require_nodes("Erdos-Renyi graph", "n", n);
  require(p >= 0.0 && p <= 1.0, "Erdos-Renyi graph: p must be in [0, 1], got " + format(p));
  require(max_attempts >= 1,
          "Erdos-Renyi graph: max_attempts must be >= 1, got " + std::to_string(max_attempts));
  // docs/math.md §2.5: the experiments resample until the graph is connected.
  const int attempts = connected ? max_attempts : 1;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::mt19937_64 rng(derive_seed(seed, static_cast<std::uint64_t>(attempt)));
    Graph g = graph_from_edges(n, sample_gnp(n, p, rng));
    if (!connected || is_connected(g)) return g;
  }
  throw InvalidInput("Erdos-Renyi graph: no connected sample of G(n = " + std::to_string(n) +
                     ", p = " + format(p) + ") in " + std::to_string(max_attempts) +
                     " attempts; raise p (or c) or set connected=0");
}

Graph stochastic_block_graph(std::span<const node_t> sizes, std::span<const double> p_in,
                             std::span<const double> p_out, std::uint64_t seed) {
  require(!sizes.empty(), "stochastic block model: at least one block is required");
  const std::size_t k = sizes.size(), pairs = k * (k - 1) / 2;
  require(p_in.size() == 1 || p_in.size() == k, "stochastic block model: p_in needs 1 or " +
                                                    std::to_string(k) + " values (one per block), got " +
                                                    std::to_string(p_in.size()));
  require(p_out.size() == 1 || p_out.size() == std::max<std::size_t>(pairs, 1),
          "stochastic block model: p_out needs 1 or " + std::to_string(pairs) +
              " values (one per block pair 01, 02, .., 12, ..), got " + std::to_string(p_out.size()));
  for (double p : p_in)
    require(p >= 0.0 && p <= 1.0, "stochastic block model: p_in must be in [0, 1], got " + format(p));
  for (double p : p_out)
    require(p >= 0.0 && p <= 1.0, "stochastic block model: p_out must be in [0, 1], got " + format(p));
  std::vector<node_t> first(k + 1, 0);  // block b holds the nodes first[b] .. first[b + 1] - 1
  std::int64_t count = 0;
  for (std::size_t b = 0; b < k; ++b) {
    require_nodes("stochastic block model", "every block size", sizes[b]);
    count += sizes[b];
    first[b + 1] = checked_node_count("stochastic block model", count);
  }
  // One stream for the whole graph, consumed in a fixed order (the blocks, then the block pairs b < c in
  // lexicographic order, the order of p_out's values), so the seed alone fixes the graph.
  std::mt19937_64 rng(seed);
  Edges edges;
  for (std::size_t b = 0; b < k; ++b)
    for (auto [u, v] : sample_gnp(sizes[b], p_in[p_in.size() == 1 ? 0 : b], rng))
      edges.emplace_back(first[b] + u, first[b] + v);
  std::size_t pair = 0;
  for (std::size_t b = 0; b < k; ++b)
    for (std::size_t c = b + 1; c < k; ++c, ++pair)
      for (auto [u, v] : sample_bipartite(sizes[b], sizes[c], p_out[p_out.size() == 1 ? 0 : pair], rng))
        edges.emplace_back(first[b] + u, first[c] + v);
  return graph_from_edges(static_cast<node_t>(count), edges);
}

Graph stochastic_block_graph(std::span<const node_t> sizes, double p_in, double p_out, std::uint64_t seed) {
  return stochastic_block_graph(sizes, std::span<const double>(&p_in, 1), std::span<const double>(&p_out, 1),
                                seed);
}

Graph random_geometric_graph(node_t n, double radius, std::uint64_t seed, std::vector<double>* positions) {
  require_nodes("random geometric graph", "n", n);
  require(radius > 0.0 && std::isfinite(radius),
          "random geometric graph: radius must be a positive finite number, got " + format(radius));
  std::mt19937_64 rng(seed);
  std::vector<double> xy(2 * static_cast<std::size_t>(n));
  for (double& coordinate : xy) coordinate = uniform01(rng);
  // Buckets of side 1/k >= radius: close pairs lie in the same or adjacent cells. k <= ceil(sqrt n) keeps the
  // number of cells O(n) when the radius is tiny.
  const std::int64_t k = std::max<std::int64_t>(
      1, std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(1.0 / radius)),
                                static_cast<std::int64_t>(std::ceil(std::sqrt(double(n))))));
  auto cell_of = [&](double coordinate) {
    return std::min<std::int64_t>(k - 1, std::int64_t(coordinate * k));
  };
  std::vector<std::int64_t> start(static_cast<std::size_t>(k * k) + 1, 0);
  std::vector<node_t> members(static_cast<std::size_t>(n));
  for (node_t u = 0; u < n; ++u) ++start[cell_of(xy[2 * u]) * k + cell_of(xy[2 * u + 1]) + 1];
  for (std::size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (node_t u = 0; u < n; ++u) members[fill[cell_of(xy[2 * u]) * k + cell_of(xy[2 * u + 1])]++] = u;

  const double r2 = radius * radius;
  Edges edges;
  for (node_t u = 0; u < n; ++u) {
    const std::int64_t cx = cell_of(xy[2 * u]), cy = cell_of(xy[2 * u + 1]);
    for (std::int64_t x = std::max<std::int64_t>(0, cx - 1); x <= std::min(k - 1, cx + 1); ++x)
      for (std::int64_t y = std::max<std::int64_t>(0, cy - 1); y <= std::min(k - 1, cy + 1); ++y)
        for (std::int64_t i = start[x * k + y]; i < start[x * k + y + 1]; ++i) {
          node_t v = members[i];
          if (v <= u) continue;
          double dx = xy[2 * u] - xy[2 * v], dy = xy[2 * u + 1] - xy[2 * v + 1];
          if (dx * dx + dy * dy < r2) edges.emplace_back(u, v);
        }
  }
  if (positions) *positions = std::move(xy);
  return graph_from_edges(n, edges);
}

Graph random_regular_graph(node_t n, int d, std::uint64_t seed) {
  require_nodes("random regular graph", "n", n);
  require(d >= 0 && d < n, "random regular graph: d must be in [0, n) = [0, " + std::to_string(n) +
                               "), got " + std::to_string(d));
  require((std::int64_t(n) * d) % 2 == 0, "random regular graph: n d must be even, got n = " +
                                              std::to_string(n) + ", d = " + std::to_string(d));
  if (2 * d > n - 1) {
    // Dense case: pairing rarely succeeds, but the complement of a uniform (n - 1 - d)-regular graph is a
    // uniform d-regular graph (n (n - 1 - d) is even exactly when n d is).
    Graph sparse = random_regular_graph(n, n - 1 - d, seed);
    Edges edges;
    for (node_t u = 0; u < n; ++u) {
      auto row = sparse.neighbors(u);
      auto next = row.begin();
      for (node_t v = u + 1; v < n; ++v) {
        while (next != row.end() && *next < v) ++next;
        if (next == row.end() || *next != v) edges.emplace_back(u, v);
      }
    }
    return graph_from_edges(n, edges);
  }
  auto key = [](node_t a, node_t b) {
    if (a > b) std::swap(a, b);
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
  };
  // Pairing with restarts: shuffle the open stubs, pair neighbours in the shuffled order, keep the pairs that
  // make a new simple edge and return the others to the pool; restart when the pool can no longer be
  // completed.
  constexpr int kMaxRestarts = 1000, kMaxIdleRounds = 64;
  for (int restart = 0; restart < kMaxRestarts; ++restart) {
    std::mt19937_64 rng(derive_seed(seed, static_cast<std::uint64_t>(restart)));
    std::vector<node_t> stubs;
    stubs.reserve(static_cast<std::size_t>(n) * d);
    for (node_t u = 0; u < n; ++u) stubs.insert(stubs.end(), static_cast<std::size_t>(d), u);
    std::unordered_set<std::uint64_t> present;
    Edges edges;
    int idle = 0;
    while (!stubs.empty() && idle < kMaxIdleRounds) {
      for (std::size_t i = stubs.size() - 1; i > 0; --i)
        std::swap(stubs[i], stubs[uniform_below(rng, i + 1)]);
      std::vector<node_t> rest;
      for (std::size_t i = 0; i + 1 < stubs.size(); i += 2) {
        node_t a = stubs[i], b = stubs[i + 1];
        if (a != b && present.insert(key(a, b)).second) {
          edges.emplace_back(a, b);
        } else {
          rest.push_back(a);
          rest.push_back(b);
        }
      }
      idle = rest.size() == stubs.size() ? idle + 1 : 0;
      stubs = std::move(rest);
      if (idle == 0) continue;
      // No progress: give up on this pairing unless two open nodes can still be joined.
      std::vector<node_t> open(stubs);
      std::sort(open.begin(), open.end());
      open.erase(std::unique(open.begin(), open.end()), open.end());
      bool joinable = false;
      for (std::size_t i = 0; i < open.size() && !joinable; ++i)
        for (std::size_t j = i + 1; j < open.size() && !joinable; ++j)
          joinable = !present.count(key(open[i], open[j]));
      if (!joinable) break;
    }
    if (stubs.empty()) return graph_from_edges(n, edges);
  }
  throw InvalidInput("random regular graph: no simple " + std::to_string(d) + "-regular graph on " +
                     std::to_string(n) + " nodes found in " + std::to_string(kMaxRestarts) + " restarts");
}

}  // namespace netdp
