#pragma once
// Spectral quantities of a symmetric gossip matrix (docs/math.md §2.3-2.4, Appendix Y `gap_definition`).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

enum class GapDefinition {
  second,    // 1 - lambda_2 (the reference code's `vplambda`; default for reproducing the figures)
  absolute,  // min over lambda != 1 of 1 - |lambda| (thesis Def 2.10)
};
GapDefinition parse_gap_definition(std::string_view text);  // "second" | "abs"
std::string to_string(GapDefinition g);

/// The eigenvalues that the gap definitions need: lambda_2 (largest after the eigenvalue 1 of the all-ones
/// vector) and lambda_min. Dense LAPACK for small n; beyond it, the closed form of a circulant W (rings,
/// complete and exponential graphs: the Fourier transform of its first row), else Lanczos with full
/// re-orthogonalisation. Only Lanczos takes long (minutes on large graphs without a closed form): it passes
/// `progress` the share of its step limit done, which only increases (it usually stops well before 1).
struct SpectralSummary {
  double lambda_2 = 0;
  double lambda_min = 0;
  std::string method;  // "dense", "circulant" or "lanczos"

  double gap(GapDefinition d) const;
};
SpectralSummary spectral_summary(const CsrMatrix& w, const std::function<void(double)>& progress = {});

/// All eigenvalues of a symmetric W, ascending (dense LAPACK, O(n^3): for small and medium n).
std::vector<double> eigenvalues(const CsrMatrix& w);

/// Chebyshev acceleration parameter gamma = 2 (1 - sqrt(g (1 - g/4))) / (1 - g/2)^2 (docs/math.md §2.4).
double chebyshev_gamma(double gap);

/// Muffliato stopping time with the reference code's rule (docs/math.md §2.3): ceil(ln((n/sigma^2) max(0.25,
/// sigma^2)) / sqrt(gap)), sigma the absolute noise std. Throws InvalidInput when gap <= 0 (disconnected
/// graph).
int muffliato_stopping_time(node_t n, double sigma, double gap);

/// Random-walk horizon of the reference figures (docs/math.md §2.3, `computeTwalk`):
/// T_RW = floor(20 ceil(ln(n) / gap) (0.25 + sigma^2) / sigma^2). Throws InvalidInput when gap <= 0.
int random_walk_horizon(node_t n, double sigma, double gap);

}  // namespace netdp
