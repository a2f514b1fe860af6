// The theory printed next to the Monte Carlo curves: utility bounds of Thm 6.2 / 6.4 and the stopping times
// of docs/math.md §2.3. docs/math.md states the bounds for (1/2n) sum_v E||x_v^t - xbar||^2; the simulator
// reports e(t) = (1/n) sum_v ||x_v^t - xbar||^2, hence the factor 2 below.
#include <cmath>
#include <limits>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/simulation/gossip_sim.hpp"

namespace netdp {

double gossip_sim_bound(const GossipBoundInputs& in, double t) {
  const double noise = in.dim * in.sigma * in.sigma, start = in.spread + noise, floor = noise / in.n;
  switch (in.protocol) {
    case GossipProtocol::accelerated:  // Thm 6.2 (C.3)
      return 2 * (start * std::exp(-t * std::sqrt(in.gap)) + floor);
    case GossipProtocol::sync:
      // Thm 6.2's argument with plain powers: the part orthogonal to 1 shrinks by (1 - gap)^t <= e^{-t gap}
      // in norm, the noise average sigma^2 D / n stays. (Thm 6.2's e^{-t sqrt(gap)} holds for the
      // Chebyshev iteration only.)
      return start * std::exp(-2 * t * in.gap) + floor;
    case GossipProtocol::randomized:  // Thm 6.4 (C.4), lambda(p) = 2 gap / n (docs/math.md §2.2)
      return 2 * (start * std::exp(-t * 2 * in.gap / in.n) + floor);
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

int gossip_sim_stopping_time(const GossipBoundInputs& in) {
  double rate = 0;
  switch (in.protocol) {
    case GossipProtocol::accelerated:
      rate = std::sqrt(in.gap);  // T_stop of Thm 6.2 (docs/math.md §2.3)
      break;
    case GossipProtocol::sync:
      rate = in.gap;  // the same target for plain powers, which contract at rate gap
      break;
    case GossipProtocol::randomized:
      rate = 2 * in.gap / in.n;  // Thm 6.4: lambda(p)
      break;
    default:
      throw InvalidParameter("steps", "steps auto: no stopping time for " + to_string(in.protocol) +
                                          " (docs/math.md §2.3 covers sync, accelerated and randomized); "
                                          "give steps T");
  }
  if (!(in.sigma > 0))
    throw InvalidParameter(
        "steps", "steps auto: T_stop = ln((n / (D sigma^2)) max(D sigma^2, S)) / rate needs sigma > 0");
  if (!(rate > 0))
    throw InvalidParameter(
        "steps", "steps auto: the spectral gap is " + format_double(in.gap) + ", so T_stop is undefined");
  const double noise = in.dim * in.sigma * in.sigma;
  const double steps = std::ceil(std::log(in.n / noise * std::max(noise, in.spread)) / rate);
  if (!(steps < double(std::numeric_limits<int>::max())))
    throw InvalidParameter("steps",
                           "steps auto: T_stop = " + format_double(steps) + " is too large; give steps T");
  return std::max(1, static_cast<int>(steps));
}

std::optional<int> first_reaching(const GossipSimResult& r, double target) {
  for (std::size_t i = 0; i < r.t.size(); ++i)
    if (r.mean[i] <= target) return r.t[i];
  return std::nullopt;
}

}  // namespace netdp
