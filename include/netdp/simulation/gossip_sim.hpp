#pragma once
// Monte Carlo simulation of private gossip averaging (Muffliato, docs/math.md §6.1-6.4, 6.8): R independent
// runs of "add Gaussian noise once, then gossip", batched, giving the error to the true average per round
// with its standard error over runs, next to the bounds of Thm 6.2 / 6.4. Docs: docs/gossip_sim.md.
//
// Randomness layout (docs/design.md principle 2). Every random quantity is drawn from
//   PhiloxStream(seed, subsequence, offset),  subsequence = kind << 56 | run << 24 | round,
// with kind < 2^8, run < 2^32, round < 2^24 (gossip_subsequence below), and the offset the position inside:
//   kind 1, init values (shared by all runs: run = 0, round = 0), value i = v D + k of node v, coordinate k:
//           normal: next_normal_pair at offset 4 (i / 2), first member for even i, second for odd i;
//           uniform: next_uniform_double at offset 2 i.
//   kind 2, noise eta of run r (round 0): the standard normal i = v D + k is drawn like a normal init value
//           (pairs on 4-word boundaries), and x^0_vk = x_vk + sigma eta_i.
//   kind 3, randomized gossip, run r (round 0): tick t uses one next_uniform_double at offset 4 t.
//   kind 4, er-per-round, run r, round t: attempt a (resampled until connected) starts at offset a 2^40 and
//           walks the pairs (u, v), u < v, row by row with geometric skips, one next_uniform_double each.
//   kind 5, dropout, run r, round t: node v drops out iff next_uniform_double at offset 2 v is < q.
//   dropout-er, run r, round t: the pairs of kind 4 at attempt 0 only (offset 0, never resampled: G(n, p) may
//           be disconnected) and the mask of kind 5; an edge stays iff both ends stay, so the round's graph
//           is G(n_active, p) over the active nodes (docs/math.md §6.8).
// Discrete draws (activations, graphs, dropouts) only compare uniforms with thresholds or take logs on
// the host, so they do not depend on threads or batches.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/gossip_sim_layout.hpp"  // GossipStream, gossip_subsequence: the layout above
#include "netdp/core/device.hpp"
#include "netdp/core/gossip_schedule.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {

enum class GossipProtocol {
  sync,         // x^{t+1} = W x^t (Alg 6.1 without acceleration)
  accelerated,  // Chebyshev: x^1 = W x^0, x^{t+1} = gamma W x^t + (1 - gamma) x^{t-1} (docs/math.md §2.4)
  randomized,   // one edge per tick with p_e = 2 W_e / n, its endpoints average (Alg 6.2, docs/math.md §6.3)
  er_per_round,  // a fresh connected G(n, q) per round, W-MH (docs/math.md §6.4)
  dropout,       // each node loses all its edges with probability q per round, W-MH on the rest (6.8)
  dropout_er,    // a fresh G(n, p) per round (not forced connected), then dropout q, W-MH (6.8, App C.8.6)
  sequence,      // the user's matrices W_0 .. W_{L-1}, round t uses W_{t mod L} (6.1); no randomness
};
GossipProtocol parse_gossip_protocol(std::string_view text);  // sync | accelerated | randomized | ...
std::string to_string(GossipProtocol p);
/// Protocols with one fixed W for every round (sync, accelerated).
bool fixed_matrix(GossipProtocol p);
/// Protocols that use the W of --graph and --weights (sync, accelerated, randomized); the others take only
/// n (er-per-round, dropout-er, sequence) or the edges (dropout) of the graph.
bool uses_graph_weights(GossipProtocol p);

enum class InitKind { zero, normal, uniform, file };
/// Initial values x: "zero" | "normal" (N(0, 1)) | "uniform" (U(0, 1)) | "file:PATH" (n lines of D values,
/// or n values in any layout for D = 1; '#' starts a comment).
struct InitSpec {
  InitKind kind = InitKind::zero;
  std::string path;
};
InitSpec parse_init_spec(std::string_view text);
std::string to_string(const InitSpec& spec);

struct GossipSimParams {
  GossipProtocol protocol = GossipProtocol::sync;
  int steps = 1;          // T >= 1: rounds, or ticks for randomized gossip
  std::int64_t runs = 1;  // R >= 1
  int dim = 1;            // D >= 1
  double sigma = 1.0;     // absolute std of the noise, added once at t = 0 (Alg 6.1); 0 = no noise
  /// x^0 clipped to [0, 1] per coordinate after the noise, as the reference dropout experiment does
  /// (docs/math.md §12 item 58); post-processing, so the privacy pass is unchanged. CPU only.
  bool clip_start = false;
  std::uint64_t seed = 0;  // Philox key
  InitSpec init;
  WeightsSpec weights;          // W of the graph (sync, accelerated, randomized)
  double edge_probability = 0;  // er-per-round: q = c ln(n) / n; dropout-er: p (er-p); in [0, 1]
  double dropout = 0;           // dropout, dropout-er: q in [0, 1]
  /// sequence: the rounds W_0 .. W_{L-1} (load_gossip_sequence); round t uses W_{t mod L}.
  std::shared_ptr<const std::vector<GossipRound>> sequence;
  double spectral_gap = 0;        // lambda_W for gamma (accelerated); 0 = 1 - lambda_2 of W
  int record_every = 1;           // report t = 0, K, 2K, ... and T
  DeviceSpec device;              // every protocol runs on CUDA; the --privacy pass on the CPU
  std::int64_t batch_runs = 0;    // runs per batch; 0 = from the memory available
  std::int64_t memory_limit = 0;  // bytes; 0 = what the machine reports as available
};

/// Throws InvalidParameter naming the offending parameter ("steps", "runs", "er-c", ...; DeviceUnavailable,
/// parameter "device", for cuda without a device).
void validate(const GossipSimParams& p, node_t n);

/// The rounds of protocol `sequence`: `list_path` names one weight-matrix file per line (Matrix Market or
/// `i j w` triplets, read by load_weight_matrix; relative paths are relative to the list's directory; blank
/// lines and `#` comments skipped). Round t's graph E_t is the off-diagonal support of W_t (stored zeros are
/// dropped). Each W_t must be n x n, non-negative, row-stochastic and symmetric within 1e-9 (a gossip
/// matrix, docs/math.md §2.1); otherwise InvalidParameter "sequence" names the list, its line and the matrix
/// file.
std::vector<GossipRound> load_gossip_sequence(const std::string& list_path, node_t n);

/// The random communication pattern of run `run` (docs/math.md §6.1, 6.3, 6.4, 6.8), a function of (seed,
/// run) only: a constant W (sync, accelerated), the activated edges (randomized), or W_t per round
/// (er-per-round, dropout, dropout-er, sequence: p.sequence repeated cyclically over the T rounds). `w` is
/// the gossip matrix of `g` for p.weights; the first overload builds it.
GossipSchedule sample_gossip_schedule(const Graph& g, const CsrMatrix& w, const GossipSimParams& p,
                                      std::int64_t run);
GossipSchedule sample_gossip_schedule(const Graph& g, const GossipSimParams& p, std::int64_t run);

/// x (n x D row-major) for p.init; InvalidParameter "init" for a missing or malformed file (with its line).
std::vector<double> initial_values(node_t n, const GossipSimParams& p);

/// S = (1/n) sum_v ||x_v - xbar||^2 of values x (n x D row-major), the spread of Thm 6.2.
double initial_spread(std::span<const double> x, int dim);

/// Per recorded t: mean over runs and standard error (sd / sqrt(R), NaN for R = 1) of
/// e(t) = (1/n) sum_v ||x_v^t - xbar||^2, xbar the average of x (before noise); noisy_*: the same with the
/// run's noisy average (1/n) sum_v x_v^0 instead of xbar.
struct GossipSimResult {
  std::vector<int> t;
  std::vector<double> mean, std_error, noisy_mean, noisy_std_error;
  std::vector<double> true_average;  // xbar, D values
  double initial_spread = 0;         // (1/n) sum_v ||x_v - xbar||^2
  double gamma = 0;                  // Chebyshev gamma (accelerated)
  std::string device, device_note;
  std::int64_t batch_runs = 0, batches = 0, memory_estimate = 0;
  double seconds = 0;
};

/// Called with the fraction of the work done (from one thread at a time).
using GossipSimProgress = std::function<void(double)>;

/// Runs p.runs runs on g (W = w for the fixed-W and randomized protocols) from the values x (n x D).
/// Results do not depend on the thread count or on the batch size.
GossipSimResult gossip_sim(const Graph& g, const CsrMatrix& w, std::span<const double> x,
                           const GossipSimParams& p, const GossipSimProgress& progress = {});

/// The states x^t (n x D each, at the recorded t) of one run, by the same code as gossip_sim: for checks of
/// invariants and for plotting single trajectories.
std::vector<std::vector<double>> gossip_sim_trajectory(const Graph& g, const CsrMatrix& w,
                                                       std::span<const double> x, const GossipSimParams& p,
                                                       std::int64_t run);

/// The theory next to the Monte Carlo curve, in terms of e(t) above (which is 2x the (1/2n) sum of
/// docs/math.md):
///   accelerated (Thm 6.2):  2 (S + D sigma^2) e^{-t sqrt(gap)} + 2 D sigma^2 / n
///   sync (plain powers, ||W^t y|| <= (1 - gap)^t ||y||):  (S + D sigma^2) e^{-2 t gap} + D sigma^2 / n
///   randomized (Thm 6.4, lambda(p) = 2 gap / n):  2 (S + D sigma^2) e^{-t lambda(p)} + 2 D sigma^2 / n
/// with S = initial_spread; NaN for er-per-round and dropout (no closed form).
struct GossipBoundInputs {
  GossipProtocol protocol = GossipProtocol::sync;
  node_t n = 0;
  int dim = 1;
  double sigma = 0, spread = 0, gap = 0;
};
double gossip_sim_bound(const GossipBoundInputs& in, double t);

/// --steps auto (docs/math.md §2.3, 6.3): ceil(ln((n / (D sigma^2)) max(D sigma^2, S)) / rate), rate =
/// sqrt(gap) (accelerated, T_stop of Thm 6.2), gap (sync) or lambda(p) = 2 gap / n (randomized); at least 1.
/// InvalidInput for er-per-round, dropout, sigma = 0 or gap <= 0.
int gossip_sim_stopping_time(const GossipBoundInputs& in);

/// The first recorded t whose mean error is <= target.
std::optional<int> first_reaching(const GossipSimResult& r, double target);

}  // namespace netdp
