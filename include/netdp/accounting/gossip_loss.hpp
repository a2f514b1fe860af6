#pragma once
// Pairwise Renyi privacy loss of private gossip averaging (Muffliato) with a fixed symmetric W: exact (the
// default, docs/math.md §6.9: the pair is a Gaussian mechanism with mu_uv = (Delta / sigma) ||P_v e_u||) or
// the sum of per-message losses of thesis Theorem 6.1 (eq. 6.3, docs/math.md §6.1-6.2), which is not an
// upper bound for this protocol (§6.9) and is kept to reproduce the papers' figures.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/loss_rows.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp {

enum class Propagation { automatic, sparse, dense };

/// exact: the Gaussian view of each observer (docs/math.md §6.9); theorem: Theorem 6.1's sum (§6.1-6.2).
enum class GossipAccounting { exact, theorem };
/// What the observer v knows besides its view: its input x_v, or also its noise eta_v (it drew it).
enum class ObserverKnowledge { input, input_and_noise };
/// "input" | "input-and-noise", the option's words (summary.json, manifest.json).
std::string to_string(ObserverKnowledge k);
ObserverKnowledge parse_observer_knowledge(const std::string& text);

struct GossipLossParams {
  GossipAccounting accounting = GossipAccounting::exact;
  ObserverKnowledge observer_knows = ObserverKnowledge::input_and_noise;  // exact accounting only
  double alpha = 2.0;                                                     // Renyi order, > 1
  double sigma = 1.0;            // absolute noise std of eta_v ~ N(0, sigma^2), > 0
  double sensitivity = 1.0;      // Delta, > 0
  int steps = 1;                 // T >= 1: messages at t = t_start .. t_start + T - 1
  int t_start = 0;               // 0: Theorem 6.1 (includes W^0 = I); 1: the reference figure code
  bool cap_ldp = true;           // theorem: min(f, alpha Delta^2 / (2 sigma^2)); exact never exceeds it
  std::optional<node_t> source;  // compute the row of this source only
  DeviceSpec device;
  Propagation propagation = Propagation::automatic;
  std::int64_t tile_sources = 0;  // sources per tile; 0 = chosen from the memory available
  std::int64_t memory_limit = 0;  // bytes the run may use; 0 = what the machine reports as available
};

/// What a run did, for summary.json and manifest.json.
struct GossipLossRun {
  std::string accounting = "theorem";  // "exact" or "theorem"
  std::string device;                  // e.g. "cpu (2 threads)"
  std::string device_note;             // why --device auto chose it
  std::string propagation;             // "sparse" or "dense" (theorem), "krylov" (exact)
  std::int64_t tile_sources = 0;
  std::int64_t tiles = 0;
  std::int64_t memory_estimate = 0;  // bytes
  int passes = 2;                    // CPU: 1 when the one pass holds less (docs/gossip_loss.md)
  double seconds = 0;
  // Exact accounting: the bases of the observers' views (docs/math.md §6.9 "Numerics").
  std::int64_t view_observers = 0;  // observers whose basis was built
  std::int64_t view_rank_min = 0, view_rank_max = 0;
  double view_rank_mean = 0;
  std::int64_t view_dropped = 0;  // candidates dropped as zero within rounding
  double view_floor = 0;          // relative floor of a kept residual
  double view_smallest_kept = 0;  // smallest relative residual kept
};

/// The LDP level alpha Delta^2 / (2 sigma^2): the loss of a single Gaussian release of x_u.
double gossip_ldp_loss(const GossipLossParams& p);

/// Throws InvalidParameter (parameter() = "alpha", "sigma", "sensitivity", "steps", "t-start", "source", ...)
/// for alpha <= 1, sigma <= 0, Delta <= 0, steps < 1, t_start not 0/1, a bad source.
void validate(const GossipLossParams& p, node_t n);

/// f(u, v) = (alpha Delta^2 / (2 sigma^2)) sum_{t in [t_start, t_start + T)} sum_{w in N(v)}
///           (W^t)_{w,u}^2 / ||row w of W^t||^2, capped when cap_ldp; f(u, u) = 0.
/// W must be a symmetric gossip matrix supported on g (validate_gossip_matrix). Streams the rows to `sink`
/// (one row when p.source is set). `progress` receives the share done of the powers computed before the first
/// row (the norms pass, or the whole one pass), which the sink's rows do not show.
/// With exact accounting (the default) the rows are alpha mu_uv^2 / 2 = ldp ||P_v e_u||^2 and, when `mu_sink`
/// is given, mu_uv goes there in the same order (docs/math.md §6.9); on the CPU, or on a CUDA device by the
/// CUDA twin (docs/cuda_backend.md "The exact gossip accountant: twins").
GossipLossRun gossip_loss(const Graph& g, const CsrMatrix& w, const GossipLossParams& p, LossRowSink& sink,
                          const std::function<void(double)>& progress = {}, LossRowSink* mu_sink = nullptr);

/// Convenience: the whole matrix, row-major (1 x n when p.source is set).
std::vector<double> gossip_loss_matrix(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                       GossipLossRun* run = nullptr);

}  // namespace netdp
