#pragma once
// Privacy beside reconstruction (docs/math.md §7.2 "Privacy beside reconstruction", docs/attack.md): with
// Gaussian noise of standard deviation sigma added once by every node (y = x + eta), what a set of attackers
// sees is one Gaussian mechanism per victim u, with mu_u = (Delta/sigma) ||P e_u|| and P the orthogonal
// projection onto the row space of the knowledge matrix K_T (the attackers know their own inputs and noises).
// The exact reconstruction decides which victims reach the LDP level Delta/sigma; the others get the
// floating-point projection, reported strictly below it.
#include <cstdint>
#include <vector>

#include "netdp/attack/attack_gossip.hpp"

namespace netdp::attack {

struct AttackPrivacyParams {
  double sigma = 1;        // noise standard deviation, > 0
  double sensitivity = 1;  // Delta
  double delta = 0;        // epsilon at this delta when in (0, 1); 0: no epsilon
};

/// The privacy of every victim against a batch of attacker sets; row i (n values) belongs to sets[i].
struct AttackPrivacy {
  std::int64_t n = 0;
  double ldp_mu = 0, ldp_epsilon = 0;  // Delta/sigma and its epsilon at delta
  std::vector<double> projection;      // ||P e_u||^2 as the floating-point basis gives it (sets x n)
  std::vector<double> mu, epsilon;     // sets x n; epsilon empty without delta
  double floor = 0;                    // the basis' rounding floor (docs/math.md §6.9 "Numerics")
  std::int64_t rank_min = 0, rank_max = 0, dropped = 0;
  std::vector<std::int32_t>
      rank;                      // the floating-point basis' dimension per set (the exact rank: the attack's)
  std::int64_t below_floor = 0;  // directions the exact rank demands whose residual was below the floor
  // How clearly the floating-point basis separates the exact sets: the largest 1 - projection over the
  // reconstructible victims (attackers excluded) and the smallest over the others (1 when there are none),
  // and how many of the others came out at or above the LDP level and were reported just below it.
  double gap_reconstructible = 0, gap_hidden = 1;
  std::int64_t clamped = 0;
};

/// Throws InvalidParameter unless sigma > 0, sensitivity > 0, delta 0 or in (0, 1), the graph is static and W
/// symmetric (the rows (W^t)_{v,:} are then the Krylov vectors W^t e_v).
void check_attack_privacy(const GossipRounds& rounds, const AttackPrivacyParams& params);

/// `reconstructible` (sets x n, 1 = e_u in the row space, decided exactly) from attack_gossip or
/// attack_gossip_all on the same rounds; check_attack_privacy first.
AttackPrivacy attack_privacy(const GossipRounds& rounds, const std::vector<std::vector<node_t>>& sets,
                             const std::vector<std::int8_t>& reconstructible, bool secagg,
                             const AttackPrivacyParams& params);

/// Hop distance of every node from the nearest attacker (-1: unreachable).
std::vector<node_t> attacker_distances(const Graph& g, const std::vector<node_t>& attackers);

/// One row of the by-distance summary: (attacker set, victim) pairs at hop distance `distance` from the
/// nearest attacker (-1: unreachable), attackers themselves at distance 0.
struct PrivacyByDistance {
  int distance = 0;
  std::int64_t pairs = 0, reconstructible = 0;
  double mu_mean = 0, mu_min = 0, mu_max = 0, epsilon_mean = 0, epsilon_max = 0;
};
std::vector<PrivacyByDistance> privacy_by_distance(const Graph& g,
                                                   const std::vector<std::vector<node_t>>& sets,
                                                   const std::vector<std::int8_t>& reconstructible,
                                                   const AttackPrivacy& privacy);

}  // namespace netdp::attack
