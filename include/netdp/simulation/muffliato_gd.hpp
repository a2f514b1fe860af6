#pragma once
// Muffliato-GD / Muffliato-SGD (Algorithm 6.3, docs/math.md §6.5): T outer iterations of "local gradient
// step, Gaussian noise, K accelerated gossip steps", R independent runs, on built-in objectives whose optimum
// is known, so that the utility curves are real. Privacy: Theorem 6.9 (fixed W) or C.9 (a fresh Erdos-Renyi
// graph per outer iteration) through gossip_loss_sequence.hpp. Docs: docs/muffliato_gd.md.
//
// Randomness layout (docs/design.md principle 2): PhiloxStream(seed, subsequence, offset) with
//   subsequence = kind << 56 | run << 24 | t   (as gossip_sim.hpp; kinds 16.. do not meet the gossip kinds)
//   kind 16, synthetic data (run 0, t 0): one sequential stream, see synthetic_data;
//   kind 17, noise of run r at outer iteration t: standard normal i = v p + k (node v, coordinate k) is
//            member i % 2 of next_normal_pair at offset 4 (i / 2);
//   kind 18, mini-batch of node v, run r, iteration t: starts at offset v 2^32 (partial Fisher-Yates with
//            next_below, one draw per chosen example).
// The Erdos-Renyi graphs are those of gossip_sim's er-per-round protocol (kind 4, same seed and run, round
// t).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/gossip_schedule.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/spectral.hpp"

namespace netdp {

// ---- Objectives: phi(theta) = (1/n) sum_v f_v(theta), f_v = (1/m_v) sum_{i in D_v} l(theta; i) + mu/2
// ||theta||^2

enum class Objective {
  quadratic,      // l(theta; i) = ||theta - x_i||^2 / 2 (x_i: a target y in R^p)
  least_squares,  // l(theta; i) = (x_i^T theta - y_i)^2 / 2
  logistic,       // l(theta; i) = ln(1 + exp(-y_i x_i^T theta)), y_i in {-1, +1}
};
Objective parse_objective(std::string_view text);  // quadratic | least-squares | logistic
std::string to_string(Objective o);

/// The local datasets D_v: node v holds the examples offsets[v] .. offsets[v + 1] - 1.
struct LocalData {
  node_t n = 0;
  int dim = 0;                           // p
  std::vector<std::int64_t> offsets{0};  // n + 1, every node with at least one example
  std::vector<double> features;          // examples x p, row-major (quadratic: the targets)
  std::vector<double> labels;            // one per example; empty for quadratic

  std::int64_t examples() const { return offsets.back(); }
  std::int64_t size(node_t v) const { return offsets[v + 1] - offsets[v]; }
  std::span<const double> x(std::int64_t i) const {
    return {features.data() + i * dim, static_cast<std::size_t>(dim)};
  }
};

/// Throws InvalidInput unless the sizes agree, every node has an example, values are finite and logistic
/// labels are +-1.
void validate(const LocalData& d, Objective o);

/// Synthetic data from the seed (stream kind 16, one sequential stream of normal pairs and uniforms):
/// theta_true ~ N(0, I_p) first, then node by node, example by example:
///   quadratic:      x_i = theta_true + N(0, I_p)                 (the targets y_v of the issue)
///   least-squares:  x_i ~ N(0, I_p), y_i = x_i^T theta_true + 0.1 N(0, 1)
///   logistic:       x_i ~ N(0, I_p), y_i = +1 with probability 1 / (1 + exp(-x_i^T theta_true)), else -1
/// `samples` examples per node.
LocalData synthetic_data(Objective o, node_t n, int dim, int samples, std::uint64_t seed);

/// Rows of a CSV file (commas or blanks between numbers, '#' comments, blank lines and one header line
/// skipped): p features then a label (least-squares: real, logistic: +-1); quadratic: p values per row (a
/// target). The N rows are split across the n nodes in file order, node v getting rows floor(v N / n) ..
/// floor((v + 1) N / n) - 1; N >= n. dim = 0: p from the first row. InvalidParameter "data" names the line.
LocalData read_csv_data(const std::string& path, Objective o, node_t n, int dim = 0);

/// Gradient of l(theta; i) into out (p values).
void example_gradient(Objective o, const LocalData& d, std::int64_t i, std::span<const double> theta,
                      std::span<double> out);
/// f_v(theta), with the ridge term mu/2 ||theta||^2.
double local_objective(Objective o, const LocalData& d, double l2, node_t v, std::span<const double> theta);
/// phi(theta) = (1/n) sum_v f_v(theta).
double global_objective(Objective o, const LocalData& d, double l2, std::span<const double> theta);
/// grad phi(theta) into out.
void global_gradient(Objective o, const LocalData& d, double l2, std::span<const double> theta,
                     std::span<double> out);
/// Fraction of all examples with sign(x_i^T theta) = y_i (x_i^T theta >= 0 predicts +1); logistic only.
double accuracy(const LocalData& d, std::span<const double> theta);

/// theta* = argmin phi and phi* = phi(theta*). Quadratic and least squares: phi is quadratic, phi(theta) =
/// phi* + (theta - theta*)^T A (theta - theta*) / 2, theta* = A^{-1} b by Cholesky (A = (1/n) sum_v (1/m_v)
/// X_v^T X_v + mu I, or (1 + mu) I for quadratic). Logistic: damped Newton from 0 until ||grad phi|| <= 1e-12
/// (at most 200 iterations; converged = false otherwise, e.g. separable data with mu = 0).
struct Optimum {
  std::vector<double> theta;
  double value = 0;
  std::vector<double> hessian;  // A (p x p) for quadratic objectives; empty for logistic
  std::string method;           // "closed form (Cholesky)" or "damped Newton"
  int iterations = 0;
  double gradient_norm = 0;
  bool converged = true;
};
Optimum objective_optimum(Objective o, const LocalData& d, double l2);
/// phi(theta) - phi*: the quadratic form for quadratic objectives (no cancellation), else the difference.
double optimality_gap(Objective o, const LocalData& d, double l2, const Optimum& opt,
                      std::span<const double> theta);

// ---- Algorithm 6.3 ----

enum class NoiseOrder {
  clip_then_noise,  // default: per-example clipping to L, mean, then theta_hat + N(0, nu^2 sigma^2) (Alg 6.3)
  // [R-MUF private_step_gd], docs/math.md §12 item 24: theta - nu clip(grad + N(0, (sigma/2)^2), L)
  reference_code,
};
/// The std of the gradient noise: sigma, or sigma / 2 for the reference code ("max sensitivity .5").
double gradient_noise_std(double sigma, NoiseOrder order);

struct MuffliatoGdParams {
  Objective objective = Objective::quadratic;
  int steps = 1;           // T >= 1 outer iterations (gradient steps)
  int gossip_steps = 1;    // K >= 1 accelerated gossip steps per iteration
  double step_size = 0.1;  // nu > 0
  double sigma = 0;        // >= 0: theta_hat gets N(0, nu^2 sigma^2) per coordinate (sigma = gradient noise)
  std::int64_t runs = 1;   // R >= 1
  std::uint64_t seed = 0;  // Philox key
  int batch = 0;           // 0: full local gradient (GD); b >= 1: b examples without replacement (SGD)
  double clip = 0;  // L > 0: per-example clipping (reference code: clip of the noisy gradient); 0 = none
  double l2 = 0;    // mu >= 0, the ridge term of every f_v
  NoiseOrder noise_order = NoiseOrder::clip_then_noise;
  bool er_per_round = false;    // a fresh connected G(n, q), W-MH, per outer iteration (docs/math.md §6.4)
  double edge_probability = 0;  // q for er_per_round
  std::optional<double> spectral_gap;  // gap of the fixed W for gamma; unset: computed with gap_definition
  GapDefinition gap_definition = GapDefinition::second;  // for the fixed W when unset, and for every W_t
};

/// Throws InvalidParameter naming the offending parameter (also "batch" larger than the smallest D_v).
void validate(const MuffliatoGdParams& p, const LocalData& d);

/// Per outer iteration t = 0..T (t = 0: theta^0 = 0 at every node), over the runs, mean and standard error
/// (sd / sqrt(R), NaN for R = 1) of: phi(theta_bar) (objective), phi(theta_bar) - phi* (gap), (1/n) sum_v
/// phi(theta_v) (node_objective), (1/n) sum_v ||theta_v - theta_bar||^2 (consensus) and, for logistic, the
/// accuracy of theta_bar (empty otherwise); theta_bar = (1/n) sum_v theta_v.
struct MeanCurve {
  std::vector<double> mean, std_error;
};
struct MuffliatoGdResult {
  std::vector<int> t;
  MeanCurve objective, gap, node_objective, consensus, accuracy;
  Optimum optimum;
  double gamma = 0;  // Chebyshev gamma of the fixed W (NaN with er_per_round: one per W_t)
  double spectral_gap = 0;
  double seconds = 0;
  std::string device;  // "cpu (N threads)"
};

/// R runs on graph g with the fixed W = w, or (er_per_round) on fresh graphs of g.n nodes. Results do not
/// depend on the thread count.
MuffliatoGdResult muffliato_gd(const Graph& g, const CsrMatrix& w, const LocalData& d,
                               const MuffliatoGdParams& p);

/// The states theta^t (n x p, row-major) for t = 0..T of one run, by the same code.
std::vector<std::vector<double>> muffliato_gd_trajectory(const Graph& g, const CsrMatrix& w,
                                                         const LocalData& d, const MuffliatoGdParams& p,
                                                         std::int64_t run);

// ---- Privacy (docs/math.md §6.4, 6.5) ----

/// The accountant's parameters: sigma = gradient_noise_std (theta_hat's noise nu sigma has sensitivity nu
/// Delta_phi, and nu cancels), Delta = Delta_phi, steps = K.
GossipLossParams muffliato_gd_loss_params(const MuffliatoGdParams& p, double alpha, double sensitivity,
                                          bool cap_ldp, std::optional<node_t> source);

/// W_t of run `run` (er_per_round: sample_gossip_schedule's er-per-round rounds, one per outer iteration;
/// else the constant W of g).
GossipSchedule muffliato_gd_schedule(const Graph& g, const CsrMatrix& w, const MuffliatoGdParams& p,
                                     std::int64_t run);

/// Pairwise Renyi losses: Theorem 6.9 (muffliato_sgd_loss, fixed W) or Theorem C.9
/// (muffliato_sgd_loss_sequence on run `run`'s schedule) for T outer iterations x K gossip steps.
GossipLossRun muffliato_gd_privacy(const Graph& g, const CsrMatrix& w, const MuffliatoGdParams& p,
                                   const GossipLossParams& loss, std::int64_t run, LossRowSink& sink);

/// The per-round Erdos-Renyi bound of Fig. 6.1c (docs/math.md §6.4-6.5, [R-MUF] eps_random summed over
/// rounds): for source u and every observer v, sum_t er_gossip_loss_bound(n, q, K, d_v(E_t), alpha, sigma,
/// Delta, {u, v} in E_t, variant) over the rounds t of the synchronous schedule s; 0 at v = u.
std::vector<double> er_round_loss_sum(const GossipSchedule& s, double q, int gossip_steps,
                                      const GossipLossParams& loss, node_t source, ErBoundVariant variant);

enum class MgdStream : std::uint64_t { data = 16, noise = 17, batch = 18 };
constexpr std::uint64_t muffliato_gd_subsequence(MgdStream kind, std::uint64_t run, std::uint64_t t) {
  return static_cast<std::uint64_t>(kind) << 56 | run << 24 | t;
}

}  // namespace netdp
