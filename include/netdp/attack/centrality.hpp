#pragma once
// Centralities of an attacker and rank correlations with what it reconstructs (docs/math.md §7.4, Tables 4.1
// and A.1): degree, eigenvector and betweenness centrality, Spearman's rho, Kendall's tau-b, hop distances
// and communicability exp(A).
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp::attack {

/// d_u / (n - 1).
std::vector<double> degree_centrality(const Graph& g);
/// The Perron vector of A (power iteration on A + I, unit Euclidean norm, positive), as networkx's
/// eigenvector_centrality converges to on a connected graph.
std::vector<double> eigenvector_centrality(const Graph& g);
/// Brandes' betweenness (Boost.Graph), normalised like networkx: pairs {s, t} through u over (n-1)(n-2)/2.
std::vector<double> betweenness_centrality(const Graph& g);
/// exp(A), row-major n x n, by the symmetric eigendecomposition of A.
std::vector<double> communicability(const Graph& g);

/// Spearman's rho (Pearson on average ranks); NaN when either side is constant.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
/// Kendall's tau-b (ties in both); NaN when either side is constant.
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace netdp::attack
