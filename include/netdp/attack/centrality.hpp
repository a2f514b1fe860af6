#pragma once
// Centralities of an attacker and rank correlations with what it reconstructs (docs/math.md §7.4, Tables 4.1
// and A.1): degree, eigenvector, Katz and betweenness centrality, Spearman's rho, Kendall's tau-b, hop
// distances and communicability exp(A).
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp::attack {

/// d_u / (n - 1).
std::vector<double> degree_centrality(const Graph& g);
/// The Perron vector of A (power iteration on A + I, unit Euclidean norm, positive), as networkx's
/// eigenvector_centrality converges to on a connected graph.
std::vector<double> eigenvector_centrality(const Graph& g);
/// The largest eigenvalue of A: the Rayleigh quotient of eigenvector_centrality's vector (0 without edges).
double adjacency_spectral_radius(const Graph& g);
/// Katz centrality x = sum_{k >= 0} alpha^k A^k 1 = (I - alpha A)^{-1} 1, not normalised (docs/attack.md
/// "Katz centrality"); InvalidInput unless 0 <= alpha < 1 / lambda_max(A).
std::vector<double> katz_centrality(const Graph& g, double alpha);
/// The same at netdp's alpha = katz_default_fraction / lambda_max(A): half the radius of convergence.
inline constexpr double katz_default_fraction = 0.5;
std::vector<double> katz_centrality(const Graph& g);
/// Brandes' betweenness (Boost.Graph), normalised like networkx: pairs {s, t} through u over (n-1)(n-2)/2.
std::vector<double> betweenness_centrality(const Graph& g);
/// exp(A), row-major n x n, by the symmetric eigendecomposition of A.
std::vector<double> communicability(const Graph& g);

/// Spearman's rho (Pearson on average ranks); NaN when either side is constant.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
/// Kendall's tau-b (ties in both); NaN when either side is constant.
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace netdp::attack
