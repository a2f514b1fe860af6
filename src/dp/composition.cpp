#include "netdp/dp/composition.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "checks.hpp"
#include "common/dp_math.hpp"

namespace netdp::dp {
using namespace detail;

namespace {
void check_common(const char* f, double epsilon, double delta, double k) {
  require_finite_nonnegative(f, "epsilon", epsilon);
  require(delta >= 0 && delta < 1, f, "delta", delta, "in [0, 1)");
  require_finite_nonnegative(f, "k", k);
}
}  // namespace

EpsDelta simple_composition(double epsilon, double delta, double k) {
  check_common("simple_composition", epsilon, delta, k);
  return {k * epsilon, std::min(1.0, k * delta)};
}

EpsDelta advanced_composition(double epsilon, double delta, double k, double delta_prime) {
  const char* f = "advanced_composition";
  check_common(f, epsilon, delta, k);
  require_open_unit(f, "delta_prime", delta_prime);
  const double eps =
      std::sqrt(2 * k * std::log(1 / delta_prime)) * epsilon + k * epsilon * std::expm1(epsilon);
  return {eps, std::min(1.0, k * delta + delta_prime)};
}

EpsDelta optimal_composition(double epsilon, double delta, double k, double delta_prime) {
  EpsDelta r = advanced_composition(epsilon, delta, k, delta_prime);
  if (k < 1e5) r.epsilon = std::min(r.epsilon, k * epsilon);  // C3: the code's k < 1e5 rule
  return r;
}

void HeterogeneousSums::add(double epsilon) {
  require_finite_nonnegative("HeterogeneousSums::add", "epsilon", epsilon);
  count += 1;
  sum += epsilon;
  sum_squares += epsilon * epsilon;
  sum_first += epsilon * std::tanh(epsilon / 2);  // = (e^eps - 1) eps / (e^eps + 1), no overflow
}

EpsDelta heterogeneous_composition(const HeterogeneousSums& s, double delta) {
  const char* f = "heterogeneous_composition";
  require_open_unit(f, "delta", delta);
  if (s.count == 0) return {0, 0};  // C4: empty list, no loss
  const double delta_new = s.count * delta;
  require(delta_new < 1, f, "count * delta", delta_new, "< 1");
  const double total_delta = -std::expm1(s.count * std::log1p(-delta) + std::log1p(-delta_new));
  return {kernels::dp_math::heterogeneous_epsilon(s.count, s.sum, s.sum_squares, s.sum_first, delta),
          total_delta};
}

EpsDelta heterogeneous_composition(const std::vector<double>& epsilons, double delta) {
  HeterogeneousSums s;
  for (double e : epsilons) s.add(e);
  return heterogeneous_composition(s, delta);
}

RdpCurve compose_rdp(const RdpCurve& a, const RdpCurve& b) {
  if (a.orders != b.orders || a.epsilons.size() != a.orders.size() || b.epsilons.size() != b.orders.size())
    throw InvalidInput("compose_rdp: both RDP curves must have the same orders (" +
                       std::to_string(a.orders.size()) + " vs " + std::to_string(b.orders.size()) +
                       " orders, or values do not match orders)");
  RdpCurve r = a;
  for (std::size_t i = 0; i < r.epsilons.size(); ++i) r.epsilons[i] += b.epsilons[i];
  return r;
}

RdpCurve self_compose_rdp(const RdpCurve& a, double k) {
  require_finite_nonnegative("self_compose_rdp", "k", k);
  RdpCurve r = a;
  for (double& e : r.epsilons) e = k == 0 ? 0.0 : k * e;  // 0 * inf would be NaN
  return r;
}

}  // namespace netdp::dp
