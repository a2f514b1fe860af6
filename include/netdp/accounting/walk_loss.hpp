#pragma once
// Pairwise Renyi privacy loss of random-walk DP-SGD on an arbitrary graph (docs/math.md §5; thesis
// Theorem 7.7, Lemma D.17, App D.7-D.9). sigma is the noise MULTIPLIER here (noise N(0, Delta^2 sigma^2),
// docs/math.md §0.2).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/loss_rows.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

enum class WalkLossMethod {
  spectral,  // (E3) closed form of Thm 7.7: ln(T)/n - log(I - W + J/n)_{uv}, eigendecomposition + one product
  finite,    // (E2) exact finite-T sum written spectrally: H_T/n + sum_{i>=2} phi_i(u) phi_i(v) S_T(lambda_i)
  series,    // (E1) the same finite-T sum by propagation: sum_{t=1}^T (W^t)_{uv} / t (Lemma D.17)
};
WalkLossMethod parse_walk_loss_method(std::string_view text);  // "spectral" | "finite" | "series"
std::string to_string(WalkLossMethod m);

/// How the spectral and finite methods get the graph term (docs/walk_loss.md "Solvers").
enum class WalkLossSolver {
  automatic,  // eigen for small n, else the cheaper by the cost model (never changes results beyond
              // tolerance)
  eigen,      // dense eigendecomposition (LAPACK dsyevd): the exact reference
  chebyshev,  // Chebyshev expansion on the deflated spectrum by sparse products (docs/walk_loss.md)
};
WalkLossSolver parse_walk_loss_solver(std::string_view text);  // "auto" | "eigen" | "chebyshev"
std::string to_string(WalkLossSolver s);

enum class SenderView {
  anonymous,  // v does not know who sent it the token (thesis eq. 7.5)
  known,  // v knows its sender: max over w in N(v) of the graph term (docs/math.md §5.4, [CODE] maxi_priv)
};
SenderView parse_sender_view(std::string_view text);  // "anonymous" | "known"
std::string to_string(SenderView s);

struct WalkLossParams {
  double alpha = 2.0;          // Renyi order, > 1
  double sigma = 1.0;          // noise multiplier, > 0
  int steps = 1;               // T >= 1 walk steps
  double contributions = 0.0;  // N_u; 0 = T/n (the expectation for a bistochastic W, docs/math.md §5.2)
  WalkLossMethod method = WalkLossMethod::spectral;
  SenderView sender = SenderView::anonymous;
  bool clip = false;  // clip to [0, alpha/(2 sigma^2)] like the reference figures (docs/math.md §5.3)
  std::optional<node_t> source{};  // compute the row of this source only
  DeviceSpec device;
  std::int64_t tile_sources = 0;  // 0 = chosen from the memory available
  std::int64_t memory_limit = 0;  // bytes; 0 = what the machine reports as available
  WalkLossSolver solver = WalkLossSolver::automatic;
  double tolerance = 1e-12;  // chebyshev: bound on sup |f - p| over the spectral interval (graph-term units)
  std::optional<double> lambda_2{}, lambda_min{};  // the deflated spectrum's ends when known (else computed)
};

struct WalkLossRun {
  std::string device, device_note;
  std::int64_t tile_sources = 0, tiles = 0, memory_estimate = 0;
  double seconds = 0, eigen_seconds = 0;
  std::string solver;       // "eigen", "chebyshev" or "propagation" (series)
  std::string solver_rule;  // why (auto's choice, or "given")
  int degree = 0;           // chebyshev: K
  double interval_lo = 0, interval_hi = 0;
  double error_bound = 0;  // chebyshev: bound on |loss error| from the expansion (scale x sup |f - p|)
};

/// The solver `p.solver` resolves to for this graph, with the reason; chebyshev also fills the interval,
/// degree and coefficients. Exposed for the tests and the cost estimate.
struct WalkSolverChoice {
  WalkLossSolver solver = WalkLossSolver::eigen;
  std::string rule;
  double lo = 0, hi = 0, error_bound = 0;
  int degree = 0;
  std::vector<double> coefficients;
};
WalkSolverChoice choose_walk_loss_solver(const CsrMatrix& w, const WalkLossParams& p);

/// Seconds of one core of the 2-core benchmark machine (benchmarks/RESULTS.md) for the graph term of all n
/// sources: eigen about 1.75e-10 n^3 (dsyevd and the GEMM), chebyshev about 2.5e-10 K n (nnz(W) + 4 n) for
/// degree K. auto compares the two; the study runner's estimates use the same figures. The thread count is
/// left out so that auto's choice cannot depend on it.
double walk_loss_solver_seconds(WalkLossSolver solver, double n, double nnz, int degree);

/// The clipping level alpha / (2 sigma^2) (one Gaussian step seen directly: eps_local of the figures).
double walk_local_loss(const WalkLossParams& p);

/// N_u actually used: p.contributions, or T/n.
double walk_contributions(const WalkLossParams& p, node_t n);

/// Throws InvalidParameter (parameter() = "alpha", "sigma", "steps", "contributions", "source", ...) for
/// alpha <= 1, sigma <= 0, steps < 1, contributions < 0, a bad source.
void validate(const WalkLossParams& p, node_t n);

/// The weak-convexity condition of Thm 7.7 (docs/math.md §1.7 PI4): sigma^2 >= 2 alpha (alpha - 1) as stated,
/// or the exact sigma^2 >= alpha (alpha - 1) / 2.
bool walk_weak_convexity_holds(const WalkLossParams& p, bool stated = true);

/// eps_{u->v} = N_u (alpha / sigma^2) [c_T / n + G_{uv}] with c_T = ln T (spectral) or H_T (finite), G the
/// graph term (E2/E3), or N_u (alpha / sigma^2) sum_{t=1}^T (W^t)_{uv}/t (series); sender known: G_{uv}
/// replaced by max_{w in N(v)} G_{uw}. Diagonal 0; clipped when p.clip. W: symmetric gossip matrix of a
/// connected graph.
WalkLossRun walk_loss(const Graph& g, const CsrMatrix& w, const WalkLossParams& p, LossRowSink& sink);

/// Convenience: the whole matrix, row-major (1 x n when p.source is set).
std::vector<double> walk_loss_matrix(const Graph& g, const CsrMatrix& w, const WalkLossParams& p,
                                     WalkLossRun* run = nullptr);

}  // namespace netdp
