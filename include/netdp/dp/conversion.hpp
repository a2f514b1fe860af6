#pragma once
// RDP -> (epsilon, delta) conversions (docs/math.md §1.4 item C6, F7; §4.3.3 for the linear-curve procedure).
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/dp/composition.hpp"

namespace netdp::dp {

enum class RdpConversion {
  improved,  // Balle et al. 2020 / Canonne-Kamath-Steinke 2020 (what current accounting libraries use;
             // default)
  classic,   // C6: eps + ln(1/delta)/(alpha - 1) (what the sources' formulas use)
};
RdpConversion parse_rdp_conversion(std::string_view text);  // "improved" | "classic"
std::string to_string(RdpConversion c);

/// One order: classic eps + ln(1/delta)/(alpha-1); improved eps + ln((alpha-1)/alpha) - (ln delta + ln
/// alpha)/(alpha-1), clamped at 0 (a negative value certifies (0, delta), which is all a DP level can say).
double rdp_to_epsilon(double rdp, double alpha, double delta, RdpConversion method = RdpConversion::improved);
/// One order, the inverse: classic delta = exp((alpha-1)(rdp - eps)); improved
/// delta = exp((alpha-1)(rdp - eps)) ((alpha-1)/alpha)^(alpha-1) / alpha. Capped at 1.
double rdp_to_delta(double rdp, double alpha, double epsilon, RdpConversion method = RdpConversion::improved);

/// The default order grid: 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5, then every integer 5..64, then 128,
/// 256, 512 (73 orders, the shape used by the well-known accounting libraries).
std::vector<double> default_rdp_orders();

/// Optimum over a grid of orders. `value` is epsilon (or delta), `order` the minimising order. `at_grid_edge`
/// is set, and `warning` says which way to extend the grid, when the optimum sits at the smallest or largest
/// order that carries a finite RDP value: the true optimum may then lie outside the grid.
struct RdpOptimum {
  double value = 0;
  double order = 0;
  bool at_grid_edge = false;
  std::string warning;
};
RdpOptimum rdp_curve_to_epsilon(const RdpCurve& curve, double delta,
                                RdpConversion method = RdpConversion::improved);
RdpOptimum rdp_curve_to_delta(const RdpCurve& curve, double epsilon,
                              RdpConversion method = RdpConversion::improved);

/// C6 closed form for a linear curve eps(alpha) = slope alpha valid for 1 < alpha <= alpha_max, classic
/// conversion: alpha* = 1 + sqrt(ln(1/delta)/slope), alpha = min(alpha*, alpha_max), epsilon = slope alpha +
/// ln(1/delta)/(alpha-1)
/// (= slope + 2 sqrt(slope ln(1/delta)) when uncapped). `capped` says alpha_max was binding.
struct LinearRdpOptimum {
  double epsilon = 0;
  double order = 0;
  bool capped = false;
};
LinearRdpOptimum linear_rdp_to_epsilon(double slope, double delta,
                                       double alpha_max = std::numeric_limits<double>::infinity());

}  // namespace netdp::dp
