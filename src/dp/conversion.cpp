#include "netdp/dp/conversion.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"

namespace netdp::dp {
using namespace detail;

RdpConversion parse_rdp_conversion(std::string_view text) {
  if (text == "improved") return RdpConversion::improved;
  if (text == "classic") return RdpConversion::classic;
  throw InvalidInput("unknown RDP conversion '" + std::string(text) + "' (expected improved or classic)");
}

std::string to_string(RdpConversion c) {
  return c == RdpConversion::classic ? "classic" : "improved";
}

namespace {
void check_rdp(const char* f, double rdp, double alpha) {
  require_order(f, alpha);
  require_nonnegative(f, "rdp", rdp);  // +inf allowed: no bound at this order
}
}  // namespace

double rdp_to_epsilon(double rdp, double alpha, double delta, RdpConversion method) {
  const char* f = "rdp_to_epsilon";
  check_rdp(f, rdp, alpha);
  require_open_unit(f, "delta", delta);
  if (method == RdpConversion::classic) return rdp + std::log(1 / delta) / (alpha - 1);
  const double eps = rdp + std::log1p(-1 / alpha) - (std::log(delta) + std::log(alpha)) / (alpha - 1);
  return std::max(0.0, eps);
}

double rdp_to_delta(double rdp, double alpha, double epsilon, RdpConversion method) {
  const char* f = "rdp_to_delta";
  check_rdp(f, rdp, alpha);
  require_nonnegative(f, "epsilon", epsilon);
  double log_delta = (alpha - 1) * (rdp - epsilon);
  if (method == RdpConversion::improved) log_delta += (alpha - 1) * std::log1p(-1 / alpha) - std::log(alpha);
  if (std::isnan(log_delta)) return 1.0;  // rdp = eps = +inf
  return std::min(1.0, std::exp(log_delta));
}

std::vector<double> default_rdp_orders() {
  std::vector<double> orders = {1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5};
  for (int a = 5; a <= 64; ++a) orders.push_back(a);
  for (double a : {128, 256, 512}) orders.push_back(a);
  return orders;
}

namespace {

template <class Convert>
RdpOptimum optimise(const char* f, const RdpCurve& curve, Convert convert) {
  if (curve.orders.empty() || curve.orders.size() != curve.epsilons.size())
    throw InvalidInput(std::string(f) +
                       ": the RDP curve needs as many values as orders, and at least one (got " +
                       std::to_string(curve.orders.size()) + " orders, " +
                       std::to_string(curve.epsilons.size()) + " values)");
  double lowest = INFINITY, highest = -INFINITY;
  RdpOptimum best{INFINITY, 0, false, {}};
  for (std::size_t i = 0; i < curve.orders.size(); ++i) {
    check_rdp(f, curve.epsilons[i], curve.orders[i]);
    if (std::isinf(curve.epsilons[i])) continue;
    lowest = std::min(lowest, curve.orders[i]);
    highest = std::max(highest, curve.orders[i]);
    const double v = convert(curve.epsilons[i], curve.orders[i]);
    if (v < best.value) best.value = v, best.order = curve.orders[i];
  }
  if (best.order == 0)
    throw InvalidInput(std::string(f) +
                       ": the RDP curve is infinite at every order (no bound holds on this grid)");
  if (best.order == lowest) {
    best.at_grid_edge = true;
    best.warning = "optimal RDP order " + format_double(best.order) +
                   " is the smallest order of the grid; add orders closer to 1 for a tighter bound";
  } else if (best.order == highest) {
    best.at_grid_edge = true;
    best.warning = "optimal RDP order " + format_double(best.order) +
                   " is the largest order of the grid; add larger orders for a tighter bound";
  }
  return best;
}

}  // namespace

RdpOptimum rdp_curve_to_epsilon(const RdpCurve& curve, double delta, RdpConversion method) {
  require_open_unit("rdp_curve_to_epsilon", "delta", delta);
  return optimise("rdp_curve_to_epsilon", curve,
                  [&](double rdp, double alpha) { return rdp_to_epsilon(rdp, alpha, delta, method); });
}

RdpOptimum rdp_curve_to_delta(const RdpCurve& curve, double epsilon, RdpConversion method) {
  require_nonnegative("rdp_curve_to_delta", "epsilon", epsilon);
  return optimise("rdp_curve_to_delta", curve,
                  [&](double rdp, double alpha) { return rdp_to_delta(rdp, alpha, epsilon, method); });
}

LinearRdpOptimum linear_rdp_to_epsilon(double slope, double delta, double alpha_max) {
  const char* f = "linear_rdp_to_epsilon";
  require_finite_nonnegative(f, "slope", slope);
  require_open_unit(f, "delta", delta);
  require_order(f, alpha_max, "alpha_max");
  const double log_inv = std::log(1 / delta);
  const double unconstrained = slope == 0 ? INFINITY : 1 + std::sqrt(log_inv / slope);
  LinearRdpOptimum r;
  r.capped = alpha_max < unconstrained;
  r.order = std::min(unconstrained, alpha_max);
  r.epsilon = std::isinf(r.order) ? 0.0 : slope * r.order + log_inv / (r.order - 1);
  return r;
}

}  // namespace netdp::dp
