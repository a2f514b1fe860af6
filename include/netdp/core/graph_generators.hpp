#pragma once
// Graph families of docs/math.md §2.5. Random families take an explicit seed and are reproducible across
// platforms.
#include <cstdint>
#include <span>
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp {

Graph complete_graph(node_t n);
Graph ring_graph(node_t n);                        // cycle 0-1-...-(n-1)-0
Graph path_graph(node_t n);                        // 0-1-...-(n-1)
Graph star_graph(node_t n);                        // centre 0 and leaves 1..n-1
Graph grid_graph(node_t rows, node_t cols);        // node r * cols + c
Graph torus_graph(std::span<const node_t> sides);  // C-dimensional torus, sides[0] varies slowest
Graph hypercube_graph(int dim);                    // 2^dim nodes, edges at Hamming distance 1
Graph exponential_graph(node_t n);                 // Ying et al.: i ~ i +- 2^k mod n

/// G(n, p). With `connected`, resample (next sub-seed) until connected, up to `max_attempts` (then
/// InvalidInput).
Graph erdos_renyi_graph(node_t n, double p, std::uint64_t seed, bool connected = true,
                        int max_attempts = 1000);

/// Stochastic block model: blocks of the given sizes, numbered consecutively (block 0 first); each pair
/// inside a block is an edge with probability p_in, each pair across two blocks with p_out, independently. No
/// connectivity is forced.
Graph stochastic_block_graph(std::span<const node_t> sizes, double p_in, double p_out, std::uint64_t seed);
/// The same with a probability per block (p_in: 1 or k values) and per block pair (p_out: 1 or k(k-1)/2
/// values, pairs (0,1), (0,2), .., (1,2), .. in lexicographic order).
Graph stochastic_block_graph(std::span<const node_t> sizes, std::span<const double> p_in,
                             std::span<const double> p_out, std::uint64_t seed);

/// Nodes uniform in the unit square, edge when the Euclidean distance is < radius. Positions (x0, y0, x1,
/// ...) are returned through `positions` when given.
Graph random_geometric_graph(node_t n, double radius, std::uint64_t seed,
                             std::vector<double>* positions = nullptr);

/// Uniform-ish random d-regular simple graph (configuration model with restarts); n d must be even.
Graph random_regular_graph(node_t n, int d, std::uint64_t seed);

Graph florentine_families_graph();  // 15 nodes, 20 edges (Padgett)
Graph southern_women_graph();       // Davis: 18 women + 14 events = 32 nodes, bipartite

}  // namespace netdp
