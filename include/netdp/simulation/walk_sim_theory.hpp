#pragma once
// Closed-form expectations the walk simulator is checked against (docs/walk_sim.md "Statistics", docs/math.md
// §3.1, §4.1).
#include <cstdint>

#include "netdp/core/graph.hpp"
#include "netdp/simulation/walk_sim_model.hpp"

namespace netdp {

/// Complete-graph theory per run (docs/walk_sim.md "Statistics"), positions p_1 .. p_{T-1} i.i.d. uniform:
/// expected returns of length m (gaps between consecutive visits of a node, the start's position 0 counting
/// as a visit), (T - m) (1/n) (1 - 1/n)^(m-1) for 1 <= m < T; expected first visits at h of the n - 1 nodes
/// other than the start, (n - 1) (1/n) (1 - 1/n)^(h-1) for 1 <= h < T; expected nodes with k visits, (n - 1)
/// Bin(T-1, 1/n)(k) + Bin(T-1, 1/n)(k - 1) (the start has one visit more), i.e. n Bin(T, 1/n)(k) for a
/// uniform start.
double complete_expected_returns(node_t n, std::int64_t steps, std::int64_t m);
double complete_expected_hits(node_t n, std::int64_t steps, std::int64_t h);
double complete_expected_visit_counts(node_t n, std::int64_t steps, std::int64_t k);

/// Private real summation: contributions carrying noise in a run (T, or on the directed ring the positions 0,
/// n-1, 2(n-1), ... of Alg 5.1: floor((T-1)/(n-1)) + 1), and the std the sources state for the estimate:
/// sqrt(T) sigma_loc (docs/math.md §4.1), sqrt(floor(K n/(n-1))) sigma_loc with K n = T on the ring
/// (Thm 5.5).
std::int64_t summation_noises(const WalkModel& m, std::int64_t steps);
double summation_theory_std(const WalkModel& m, std::int64_t steps, double sigma_loc);

}  // namespace netdp
