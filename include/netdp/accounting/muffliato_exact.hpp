#pragma once
// Exact pairwise privacy of Muffliato-GD when every state is linear in the data and the noise (docs/math.md
// §6.5 "Exact accounting of linear runs"): the quadratic objective without clipping. The local step is
// theta_hat = a theta + nu ybar + nu s z_t (a = 1 - nu (1 + mu)), then K Chebyshev gossip steps with W_t.
// Observer v's view over the T rounds (its neighbours' messages x^k_w, k < K) is Y = (d/s) G c_u + G z +
// known terms, z the n T standard normals, c_u the indicator of u's T entries, so the pair (u -> v) is
// mu-GDP with mu^2 = (Delta/s)^2 ||P_v c_u||^2, P_v the projection onto the row space of G (GD). With
// mini-batches the shift differs per round and min(T, sum_{s,t} |q_{u,s} . q_{u,t}|) bounds ||P c||^2.
// Docs: docs/muffliato_gd.md "Privacy accounting".
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/gossip_schedule.hpp"

namespace netdp {

struct MuffliatoExactParams {
  int rounds = 1;           // T >= 1 outer iterations
  int gossip_steps = 1;     // K >= 1 Chebyshev steps per round
  double state_factor = 1;  // a: theta_hat = a theta + (data) + (noise); 1 - nu (1 + mu) for the quadratic
  bool knows_noise = true;  // v drew its own noise: its T entries of z are known (removed from the view)
  bool same_shift = true;   // GD: u's shift is the same every round (exact); false (SGD): the sum-|M| bound
  std::optional<node_t> source;   // only the pairs (source -> v)
  std::int64_t memory_limit = 0;  // bytes for the bases held at once; 0: 4/5 of the memory available
  /// cpu: the production engine; cuda (or auto finding a device): its CUDA twin (docs/cuda_backend.md
  /// "Muffliato exact twins"), which agrees to rounding.
  DeviceSpec device{DeviceKind::cpu, 0};
};

struct MuffliatoExactResult {
  node_t n = 0;
  /// ||P_v c_u||^2 in [0, T] (same_shift) or its bound min(T, sum |M|): mu_uv^2 = (Delta/s)^2 share.
  /// All pairs: share[u * n + v]; with a source: share[v]. 0 at v = u.
  std::vector<double> share;
  bool bound = false;  // !same_shift: an upper bound, not the exact value
  GossipLossRun run;   // accounting "exact" or "bound"; the view report (rank, drops, floor), timings
};

/// schedule: the rounds' W_t (a constant schedule uses its one round for all T rounds; otherwise it must hold
/// at least T rounds); gammas: the Chebyshev gamma of each round (one value, or T). Messages come from the
/// neighbours of v in each round's graph. Throws InvalidParameter for T or K < 1, a randomized schedule or
/// too few rounds or gammas, InsufficientMemory when one observer's basis does not fit.
MuffliatoExactResult muffliato_exact_shares(const GossipSchedule& schedule, std::span<const double> gammas,
                                            const MuffliatoExactParams& p);

}  // namespace netdp
