#pragma once
// The pairwise accountant (docs/dp_toolbox.md "Pairwise accountant"): one privacy account per ordered pair
// (u -> v) of n nodes, u the node whose data is protected, v the observer, in the idiom of the event-based
// accountants of accountant.hpp. Views of a protocol are pairwise events holding n x n matrices (row u,
// column v); the events of accountant.hpp apply to every pair alike. An entry is accounted exactly as GDP
// while every event composed into it is Gaussian-linear (mu^2 adds, docs/math.md §1.2 G4), otherwise by RDP
// on an order grid (mu-GDP is (alpha, alpha mu^2 / 2)-RDP, G5) with the grid's conversion.
// The diagonal u == v is not a pair: its entries are 0 with method `none`.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/dp/accountant.hpp"

namespace netdp::dp {

/// A Gaussian-linear view: observer v's view is linear in the data and Gaussian in the noise, so the pair
/// (u -> v) is exactly mu[u n + v]-GDP (gossip views, MF views). mu = +inf: no privacy; 0: v sees nothing of
/// u.
struct GaussianViewEvent {
  std::size_t n = 0;
  std::vector<double> mu;  // n x n, row-major
};

/// A random-walk view (walk-loss, docs/math.md §5.2-5.3, docs/walk_loss.md): the pairwise RDP is linear in
/// the order, eps_{u->v}(alpha) = alpha coefficient[u n + v] for 1 < alpha <= max_order (the weak-convexity
/// range of §5.2; no bound above it). A walk-loss matrix computed at order alpha gives coefficient = loss /
/// alpha, and max_order = alpha_max(sigma, condition) of iteration.hpp. Negative coefficients (E3's graph
/// term for far pairs) throw: clip the matrix at 0 first (walk-loss --clip).
struct WalkViewEvent {
  std::size_t n = 0;
  std::vector<double> coefficient;  // n x n, row-major, >= 0 (+inf: no privacy)
  double max_order = INFINITY;
};

enum class PairMethod : std::uint8_t {
  none,  // the diagonal u == v
  gdp,   // exact: every event composed into the entry is Gaussian-linear
  rdp,   // RDP curve on the grid, converted at the best order
};
std::string to_string(PairMethod method);

/// One entry: `value` is epsilon (or delta); [lower, upper] brackets the exact value of the method where it
/// is found numerically (GDP epsilon: the root bracket, value = upper, so it always meets delta); otherwise
/// lower = upper = value. `order` is RDP's optimal order (0 otherwise), `at_grid_edge` as in RdpOptimum.
struct PairValue {
  double value = 0, lower = 0, upper = 0;
  PairMethod method = PairMethod::none;
  double order = 0;
  bool at_grid_edge = false;
};

/// Every entry, n x n row-major.
struct PairwiseResult {
  std::size_t n = 0;
  std::vector<double> value, lower, upper, order;
  std::vector<PairMethod> method;
  std::size_t at_grid_edge = 0;  // how many RDP entries have their optimum at the grid's edge
};

/// The largest value over the pairs u != v, and the first pair (row-major) that attains it.
struct PairMaximum {
  double value = 0;
  std::size_t u = 0, v = 0;
};
PairMaximum max_over_pairs(const PairwiseResult& result);

/// Mean, smallest and largest value over the pairs at each hop distance >= 1 (an infinite value makes the
/// mean infinite). `distance` is n x n (negative: unreachable, skipped); the graph overload uses BFS.
struct DistanceRow {
  std::int64_t distance = 0;
  std::size_t pairs = 0;
  double mean = 0, min = 0, max = 0;
};
std::vector<DistanceRow> by_distance(const PairwiseResult& result, std::span<const std::int64_t> distance);
std::vector<DistanceRow> by_distance(const PairwiseResult& result, const Graph& graph);

class PairwiseAccountant {
 public:
  explicit PairwiseAccountant(std::size_t n, std::vector<double> orders = default_rdp_orders(),
                              RdpConversion conversion = RdpConversion::improved);

  /// `count` (>= 0) adaptive repetitions. An event of accountant.hpp applies to every pair: its Gaussian
  /// parts (also inside composed events) add 1/sigma^2 to every mu^2, any other part (subsampled, Laplace)
  /// turns every entry to RDP. A view event adds to each pair; its diagonal is ignored.
  PairwiseAccountant& compose(const DpEvent& event, std::int64_t count = 1);
  PairwiseAccountant& compose(const GaussianViewEvent& event, std::int64_t count = 1);
  PairwiseAccountant& compose(const WalkViewEvent& event, std::int64_t count = 1);

  std::size_t size() const { return n_; }
  const std::vector<double>& orders() const { return orders_; }
  PairMethod method(std::size_t u, std::size_t v) const;
  /// The Gaussian part of the entry: sqrt of its summed mu^2 (all of it for a GDP entry).
  double mu(std::size_t u, std::size_t v) const;
  /// The entry's RDP curve on the grid (a GDP entry's is alpha mu^2 / 2).
  RdpCurve curve(std::size_t u, std::size_t v) const;

  PairValue epsilon(std::size_t u, std::size_t v, double delta) const;
  PairValue delta(std::size_t u, std::size_t v, double epsilon) const;
  /// Every entry (OpenMP over entries; GDP entries with equal mu are solved once).
  PairwiseResult get_epsilon(double delta) const;
  PairwiseResult get_delta(double epsilon) const;

 private:
  std::size_t index(const char* f, std::size_t u, std::size_t v) const;
  double rdp_value(std::size_t i, std::size_t k) const;
  PairValue rdp_entry(std::size_t i, double x, bool epsilon) const;
  PairwiseResult get(double x, bool epsilon) const;

  std::size_t n_;
  std::vector<double> orders_;
  RdpConversion conversion_;
  std::vector<double> mu2_;                    // per pair: sum of count mu^2 of the views
  double common_mu2_ = 0;                      // every pair: sum of count / sigma^2 of Gaussian events
  std::vector<double> walk_, walk_max_order_;  // per pair (empty until a walk view): sum of coefficients, cap
  std::vector<double> common_rdp_;             // every pair, per order: the non-Gaussian events' RDP
  bool common_rdp_used_ = false;
};

}  // namespace netdp::dp
