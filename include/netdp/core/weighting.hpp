#pragma once
// Gossip / transition matrices W built from a graph (docs/math.md §2.1-2.2, Appendix Y `weighting`).
#include <cstdint>
#include <string>
#include <string_view>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

enum class Weighting {
  metropolis,  // W-MH: 1/(1 + max(d_u, d_v)), rest on the diagonal ("Hamilton" of the reference figures)
  hamilton_literal,  // W-HAM-lit: 1/max(d_u, d_v), rest on the diagonal (the thesis text)
  max_degree,        // W-LAP: 1/d_max off the diagonal, 1 - d_u/d_max on it (I - L/d_max)
  lazy_uniform,      // 1/(2 d_u) to each neighbour, 1/2 on the diagonal: row-stochastic, symmetric only if
                     // regular
  file,              // a matrix given by the user: the file WeightsSpec::path, or the registered matrix
                     // WeightsSpec::memory_id (core/memory_graphs.hpp)
};

/// "metropolis" | "hamilton-literal" | "max-degree" | "lazy-uniform" | "file:PATH" | "memory:id=K" (a matrix
/// handed over by the Python package: docs/python.md "Graphs and weights").
struct WeightsSpec {
  Weighting scheme = Weighting::metropolis;
  std::string path;             // for Weighting::file from a file
  std::int64_t memory_id = -1;  // for Weighting::file from memory (>= 0)
};
WeightsSpec parse_weights_spec(std::string_view text);
std::string to_string(const WeightsSpec& spec);

/// W for a named scheme (not Weighting::file). Isolated nodes get W_uu = 1.
CsrMatrix gossip_matrix(const Graph& g, Weighting scheme);

/// W for any spec: a named scheme, or the matrix loaded from spec.path (Matrix Market, or `i j w` triplet
/// lines listing every stored entry, diagonal included) or registered as spec.memory_id, checked to be n x n
/// with support on the edges of g.
CsrMatrix make_weights(const Graph& g, const WeightsSpec& spec);

/// Throws InvalidInput unless W is n x n, non-negative, row-stochastic within `tolerance` and supported on
/// the edges of g and the diagonal. The message names the first offending row or entry.
void validate_row_stochastic(const CsrMatrix& w, const Graph& g, double tolerance = 1e-9);

/// validate_row_stochastic plus symmetry within `tolerance` (so W is doubly stochastic): the gossip matrices
/// of docs/math.md §2.1, required by the gossip accountant.
void validate_gossip_matrix(const CsrMatrix& w, const Graph& g, double tolerance = 1e-9);

}  // namespace netdp
