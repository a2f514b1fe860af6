#include "netdp/attack/centrality.hpp"

#include <lapacke.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/betweenness_centrality.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/ground/serial_blas.hpp"

namespace netdp::attack {

std::vector<double> degree_centrality(const Graph& g) {
  std::vector<double> c(static_cast<std::size_t>(g.n), 0.0);
  if (g.n < 2) return c;
  for (node_t u = 0; u < g.n; ++u) c[static_cast<std::size_t>(u)] = double(g.degree(u)) / (g.n - 1);
  return c;
}

std::vector<double> eigenvector_centrality(const Graph& g) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<double> x(n, 1.0 / std::sqrt(double(n))), next(n);
  for (int iteration = 0; iteration < 100000; ++iteration) {
    for (node_t u = 0; u < g.n; ++u) {
      double s = x[static_cast<std::size_t>(u)];
      for (node_t v : g.neighbors(u)) s += x[static_cast<std::size_t>(v)];
      next[static_cast<std::size_t>(u)] = s;
    }
    const double norm = std::sqrt(std::inner_product(next.begin(), next.end(), next.begin(), 0.0));
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) {
      next[i] /= norm;
      change += std::abs(next[i] - x[i]);
    }
    x.swap(next);
    if (change < 1e-13 * double(n)) break;
  }
  return x;
}

double adjacency_spectral_radius(const Graph& g) {
  if (g.n == 0) return 0;
  const std::vector<double> x = eigenvector_centrality(g);  // unit norm
  double quotient = 0;
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u))
      quotient += x[static_cast<std::size_t>(u)] * x[static_cast<std::size_t>(v)];
  return quotient;
}

std::vector<double> katz_centrality(const Graph& g, double alpha) {
  const double radius = adjacency_spectral_radius(g);
  // The series converges iff alpha lambda_max < 1; the Rayleigh quotient is within rounding of lambda_max.
  if (!(alpha >= 0) || alpha * radius >= 1)
    throw InvalidInput("katz centrality: alpha must be in [0, 1/lambda_max) = [0, " +
                       format_double(radius > 0 ? 1 / radius : std::numeric_limits<double>::infinity()) +
                       "), got " + format_double(alpha));
  // x <- 1 + alpha A x from x = 1: after k steps x is the series up to alpha^k A^k 1, and the remainder
  // shrinks by alpha lambda_max per step (every term is non-negative, so the partial sums increase to the
  // limit).
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<double> x(n, 1.0), next(n);
  for (int iteration = 0; iteration < 1000000; ++iteration) {
    double change = 0, largest = 0;
    for (node_t u = 0; u < g.n; ++u) {
      double s = 0;
      for (node_t v : g.neighbors(u)) s += x[static_cast<std::size_t>(v)];
      const double value = 1 + alpha * s;
      change = std::max(change, std::abs(value - x[static_cast<std::size_t>(u)]));
      largest = std::max(largest, value);
      next[static_cast<std::size_t>(u)] = value;
    }
    x.swap(next);
    if (change <= 1e-15 * largest) break;
  }
  return x;
}

std::vector<double> katz_centrality(const Graph& g) {
  const double radius = adjacency_spectral_radius(g);
  return katz_centrality(g, radius > 0 ? katz_default_fraction / radius : 0.0);
}

std::vector<double> betweenness_centrality(const Graph& g) {
  using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  BoostGraph bg(static_cast<std::size_t>(g.n));
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u))
      if (u < v) boost::add_edge(static_cast<std::size_t>(u), static_cast<std::size_t>(v), bg);
  std::vector<double> c(static_cast<std::size_t>(g.n), 0.0);
  boost::brandes_betweenness_centrality(bg, boost::centrality_map(boost::make_iterator_property_map(
                                                c.begin(), boost::get(boost::vertex_index, bg))));
  // Boost counts each unordered pair twice on an undirected graph: c / 2 pairs over (n-1)(n-2)/2.
  if (g.n > 2)
    for (double& x : c) x /= double(g.n - 1) * double(g.n - 2);
  return c;
}

std::vector<double> communicability(const Graph& g) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<double> a(n * n, 0.0), w(n);
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u)) a[static_cast<std::size_t>(u) * n + static_cast<std::size_t>(v)] = 1.0;
  if (n == 0) return a;
  kernels::use_single_threaded_blas();  // the same bits for any OpenBLAS thread count
                                        // (netdp/ground/serial_blas.hpp)
  const lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', g.n, a.data(), g.n, w.data());
  if (info != 0) throw std::runtime_error("communicability: dsyevd failed");
  std::vector<double> out(n * n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const double e = std::exp(w[k]);
    for (std::size_t i = 0; i < n; ++i) {
      const double qi = a[i * n + k] * e;
      for (std::size_t j = 0; j < n; ++j) out[i * n + j] += qi * a[j * n + k];
    }
  }
  return out;
}

namespace {

std::vector<double> average_ranks(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> rank(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = 0.5 * double(i + j) + 1;
    i = j + 1;
  }
  return rank;
}

}  // namespace

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const std::vector<double> rx = average_ranks(x), ry = average_ranks(y);
  const double n = double(x.size());
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n,
               my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  // O(n^2) pairs: n is a graph's node count and this runs once per attacker.
  double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0) {
        ++ties_x;
      } else if (dy == 0) {
        ++ties_y;
      } else if ((dx > 0) == (dy > 0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  const double denominator =
      std::sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y));
  if (denominator == 0 || concordant + discordant + ties_x == 0 || concordant + discordant + ties_y == 0)
    return std::numeric_limits<double>::quiet_NaN();
  return (concordant - discordant) / denominator;
}

}  // namespace netdp::attack
