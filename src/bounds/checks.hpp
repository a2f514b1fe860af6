#pragma once
// Argument checks of the bounds: InvalidInput naming the bound, the parameter and its value (docs/design.md
// principle 6). Every check is written so that NaN fails it.
#include <cmath>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::bounds::detail {

inline void require(bool ok, const std::string& where, const char* parameter, double value,
                    const char* requirement) {
  if (!ok)
    throw InvalidInput(where + ": " + parameter + " must be " + requirement + " (got " +
                       format_double(value) + ")");
}
inline void require_positive(const std::string& where, const char* name, double x) {
  require(x > 0 && std::isfinite(x), where, name, x, "finite and > 0");
}
inline void require_open_unit(const std::string& where, const char* name, double x) {
  require(x > 0 && x < 1, where, name, x, "in (0, 1)");
}
inline void require_n(const std::string& where, double n) {
  require(n >= 1 && std::isfinite(n), where, "n", n, "finite and >= 1");
}
/// The walk setting every complete-graph bound shares: T (or T = steps_per_node n when T = 0), the
/// composition slack delta', the Chernoff failure probability delta_hat (CB1) and the spotted-contribution
/// one delta_tilde (CB2).
inline void require_walk_setting(const std::string& where, double steps, double steps_per_node,
                                 double delta_prime, double delta_hat, double delta_tilde) {
  require(steps == 0 || (steps >= 1 && std::isfinite(steps)), where, "T", steps, ">= 1");
  if (steps == 0) require_positive(where, "steps per node (or T)", steps_per_node);
  require_open_unit(where, "delta_prime", delta_prime);
  require_open_unit(where, "delta_hat", delta_hat);
  require_open_unit(where, "delta_tilde", delta_tilde);
}
/// The walk setting, then epsilon > 0 and delta in (0, 1): the parameters of p (CompleteSumParams,
/// CompleteHistogramParams, SigmaSearchParams) that the complete-graph bounds check first, in this order.
template <class P>
void require_walk_epsilon_delta(const std::string& where, const P& p) {
  require_walk_setting(where, p.steps, p.steps_per_node, p.delta_prime, p.contributions.delta_hat,
                       p.delta_tilde);
  require_positive(where, "epsilon", p.epsilon);
  require_open_unit(where, "delta", p.delta);
}
/// The turns K >= 1, epsilon > 0, delta and delta' in (0, 1) of a ring bound's parameters, in this order.
template <class P>
void require_ring_setting(const std::string& where, const P& p) {
  require(p.turns >= 1, where, "turns K", p.turns, ">= 1");
  require_positive(where, "epsilon", p.epsilon);
  require_open_unit(where, "delta", p.delta);
  require_open_unit(where, "delta_prime", p.delta_prime);
}
/// A violated condition of a theorem, with the theorem named.
inline void require_condition(bool ok, const std::string& where, const std::string& condition) {
  if (!ok) throw InvalidInput(where + ": condition violated: " + condition);
}

}  // namespace netdp::bounds::detail
