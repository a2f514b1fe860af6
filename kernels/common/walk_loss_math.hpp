#pragma once
// Per-element maths of the random-walk accountant, shared by the CPU and CUDA backends (docs/math.md
// §5.2-5.4).
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "common/hd.hpp"

namespace netdp::kernels {

/// eps_{u->v} = scale * (constant + graph_term), with scale = N_u alpha / sigma^2, constant = c_T / n (0 for
/// the series, whose sum already holds the t-independent part); clipped to [0, clip_level] when clip; 0 when
/// u = v (the self pair is undefined, docs/math.md §5.3).
NETDP_HD inline double walk_pair_loss(double graph_term, double constant, double scale, bool clip,
                                      double clip_level, bool same_node) {
  if (same_node) return 0.0;
  double f = scale * (constant + graph_term);
  if (clip) f = f < 0.0 ? 0.0 : (f > clip_level ? clip_level : f);
  return f;
}

/// S_T(lambda) = sum_{t=1}^T lambda^t / t (docs/math.md §5.3, E2), summed in order; the weight of eigenpair i
/// in the finite-T graph term.
NETDP_HD inline double partial_log_series(double lambda, int steps) {
  double power = 1.0, sum = 0.0;
  for (int t = 1; t <= steps; ++t) {
    power *= lambda;
    sum += power / t;
  }
  return sum;
}

/// Eigenpair weights g_i of the graph term for ascending eigenvalues (0 for the largest, whose part is the
/// constant c_T / n): -ln(1 - lambda_i) (E3, method 0) or S_T(lambda_i) (E2). Host code, run by both backends
/// (the CUDA one on the eigenvalues it copies back), so the weights are the same bits.
inline std::vector<double> walk_eigen_weights(std::span<const double> eigenvalues, int method, int steps) {
  std::vector<double> g(eigenvalues.size(), 0.0);
  for (std::size_t i = 0; i + 1 < eigenvalues.size(); ++i)
    g[i] = method == 0 ? -std::log1p(-eigenvalues[i]) : partial_log_series(eigenvalues[i], steps);
  return g;
}

}  // namespace netdp::kernels
