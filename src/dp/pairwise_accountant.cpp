#include "netdp/dp/pairwise_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>

#include "checks.hpp"
#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"

namespace netdp::dp {
using namespace detail;

std::string to_string(PairMethod method) {
  switch (method) {
    case PairMethod::none:
      return "none";
    case PairMethod::gdp:
      return "gdp";
    case PairMethod::rdp:
      return "rdp";
  }
  return "none";
}

PairwiseAccountant::PairwiseAccountant(std::size_t n, std::vector<double> orders, RdpConversion conversion)
    : n_(n), orders_(std::move(orders)), conversion_(conversion), mu2_(n * n, 0.0) {
  if (orders_.empty()) throw InvalidInput("PairwiseAccountant: the order grid is empty");
  for (double a : orders_) require_order("PairwiseAccountant", a, "order");
  common_rdp_.assign(orders_.size(), 0.0);
}

namespace {

void check_count(const char* f, std::int64_t count) {
  require(count >= 0, f, "count", double(count), ">= 0");
}

void check_matrix(const char* f, const char* name, std::size_t n, std::size_t event_n,
                  const std::vector<double>& values) {
  if (event_n != n || values.size() != n * n)
    throw InvalidInput(std::string(f) + ": " + name + " must be " + std::to_string(n) + " x " +
                       std::to_string(n) + " (the accountant's n; got n = " + std::to_string(event_n) +
                       " and " + std::to_string(values.size()) + " values)");
  for (double x : values) require(x >= 0, f, name, x, ">= 0 (+inf allowed)");
}

// Splits a pair-independent event into its Gaussian parts (sum of multiplicity / sigma^2 into `mu2`) and the
// rest, composed `multiplicity` times into `rest` (whose RDP then applies to every pair).
void split(const DpEvent& event, double multiplicity, double& mu2, RdpAccountant& rest, bool& any_rest) {
  const char* f = "PairwiseAccountant::compose";
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          require_positive(f, "noise_multiplier", e.noise_multiplier);
          mu2 += multiplicity / (e.noise_multiplier * e.noise_multiplier);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          if (!e.event) throw InvalidInput(std::string(f) + ": SelfComposedEvent holds no event");
          check_count(f, e.count);
          split(*e.event, multiplicity * double(e.count), mu2, rest, any_rest);
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const DpEvent& inner : e.events) split(inner, multiplicity, mu2, rest, any_rest);
        } else {  // subsampled, Laplace: RDP only (validated even when composed 0 times)
          require(multiplicity < 0x1p62, f, "count (nested product)", multiplicity, "< 2^62");
          rest.compose(e, std::int64_t(multiplicity));
          any_rest = any_rest || multiplicity > 0;
        }
      },
      event);
}

}  // namespace

PairwiseAccountant& PairwiseAccountant::compose(const DpEvent& event, std::int64_t count) {
  check_count("PairwiseAccountant::compose", count);
  RdpAccountant rest(orders_);
  double mu2 = 0;
  bool any_rest = false;
  split(event, double(count), mu2, rest, any_rest);
  common_mu2_ += mu2;
  if (any_rest) {
    for (std::size_t k = 0; k < orders_.size(); ++k) common_rdp_[k] += rest.curve().epsilons[k];
    common_rdp_used_ = true;
  }
  return *this;
}

PairwiseAccountant& PairwiseAccountant::compose(const GaussianViewEvent& event, std::int64_t count) {
  const char* f = "PairwiseAccountant::compose(GaussianViewEvent)";
  check_count(f, count);
  check_matrix(f, "mu", n_, event.n, event.mu);
  if (count == 0) return *this;
  for (std::size_t i = 0; i < mu2_.size(); ++i)
    if (event.mu[i] > 0) mu2_[i] += double(count) * event.mu[i] * event.mu[i];
  return *this;
}

PairwiseAccountant& PairwiseAccountant::compose(const WalkViewEvent& event, std::int64_t count) {
  const char* f = "PairwiseAccountant::compose(WalkViewEvent)";
  check_count(f, count);
  check_matrix(f, "coefficient", n_, event.n, event.coefficient);
  require_order(f, event.max_order, "max_order");
  if (count == 0) return *this;
  if (walk_.empty()) walk_.assign(n_ * n_, 0.0), walk_max_order_.assign(n_ * n_, INFINITY);
  for (std::size_t i = 0; i < walk_.size(); ++i)
    if (event.coefficient[i] > 0) {
      walk_[i] += double(count) * event.coefficient[i];
      walk_max_order_[i] = std::min(walk_max_order_[i], event.max_order);
    }
  return *this;
}

std::size_t PairwiseAccountant::index(const char* f, std::size_t u, std::size_t v) const {
  if (u >= n_ || v >= n_)
    throw InvalidInput(std::string(f) + ": pair (" + std::to_string(u) + ", " + std::to_string(v) +
                       ") outside 0.." + std::to_string(n_ == 0 ? 0 : n_ - 1));
  return u * n_ + v;
}

PairMethod PairwiseAccountant::method(std::size_t u, std::size_t v) const {
  const std::size_t i = index("PairwiseAccountant::method", u, v);
  if (u == v) return PairMethod::none;
  const bool walked = !walk_.empty() && walk_[i] > 0;
  return common_rdp_used_ || walked ? PairMethod::rdp : PairMethod::gdp;
}

double PairwiseAccountant::mu(std::size_t u, std::size_t v) const {
  const std::size_t i = index("PairwiseAccountant::mu", u, v);
  return u == v ? 0.0 : std::sqrt(mu2_[i] + common_mu2_);
}

// RDP of entry i at order k: alpha mu^2/2 + alpha walk (+inf above the walk's max order) + the common part.
double PairwiseAccountant::rdp_value(std::size_t i, std::size_t k) const {
  const double alpha = orders_[k], mu2 = mu2_[i] + common_mu2_;
  double value = mu2 > 0 ? alpha * mu2 / 2 : 0.0;
  if (!walk_.empty() && walk_[i] > 0) value += alpha > walk_max_order_[i] ? INFINITY : alpha * walk_[i];
  return value + common_rdp_[k];
}

RdpCurve PairwiseAccountant::curve(std::size_t u, std::size_t v) const {
  const std::size_t i = index("PairwiseAccountant::curve", u, v);
  RdpCurve c{orders_, std::vector<double>(orders_.size(), 0.0)};
  if (u != v)
    for (std::size_t k = 0; k < orders_.size(); ++k) c.epsilons[k] = rdp_value(i, k);
  return c;
}

PairValue PairwiseAccountant::rdp_entry(std::size_t i, double x, bool epsilon) const {
  RdpCurve c{orders_, std::vector<double>(orders_.size())};
  bool finite = false;
  for (std::size_t k = 0; k < orders_.size(); ++k) {
    c.epsilons[k] = rdp_value(i, k);
    finite = finite || std::isfinite(c.epsilons[k]);
  }
  PairValue r;
  r.method = PairMethod::rdp;
  if (!finite) {  // no bound at any order of the grid: no privacy is claimed
    r.value = r.lower = r.upper = epsilon ? INFINITY : 1.0;
    return r;
  }
  const RdpOptimum o =
      epsilon ? rdp_curve_to_epsilon(c, x, conversion_) : rdp_curve_to_delta(c, x, conversion_);
  r.value = r.lower = r.upper = o.value;
  r.order = o.order;
  r.at_grid_edge = o.at_grid_edge;
  return r;
}

namespace {

// A GDP entry of summed mu^2 `mu2`: epsilon at delta = x (root bracket) or delta at epsilon = x.
PairValue gdp_entry(double mu2, double x, bool epsilon) {
  PairValue r;
  r.method = PairMethod::gdp;
  if (mu2 == 0) return r;  // nothing seen: (0, 0)
  if (std::isinf(mu2)) {
    r.value = r.lower = r.upper = epsilon ? INFINITY : 1.0;
    return r;
  }
  if (epsilon) {
    const GdpEpsilon b = gdp_epsilon_bracket(std::sqrt(mu2), std::log(x));
    r.value = r.upper = b.upper;
    r.lower = b.lower;
  } else {
    r.value = r.lower = r.upper = gdp_delta(std::sqrt(mu2), x);
  }
  return r;
}

}  // namespace

PairValue PairwiseAccountant::epsilon(std::size_t u, std::size_t v, double delta) const {
  require_open_unit("PairwiseAccountant::epsilon", "delta", delta);
  const std::size_t i = index("PairwiseAccountant::epsilon", u, v);
  const PairMethod m = method(u, v);
  if (m == PairMethod::none) return {};
  return m == PairMethod::gdp ? gdp_entry(mu2_[i] + common_mu2_, delta, true) : rdp_entry(i, delta, true);
}

PairValue PairwiseAccountant::delta(std::size_t u, std::size_t v, double epsilon) const {
  require_nonnegative("PairwiseAccountant::delta", "epsilon", epsilon);
  const std::size_t i = index("PairwiseAccountant::delta", u, v);
  const PairMethod m = method(u, v);
  if (m == PairMethod::none) return {};
  return m == PairMethod::gdp ? gdp_entry(mu2_[i] + common_mu2_, epsilon, false)
                              : rdp_entry(i, epsilon, false);
}

PairwiseResult PairwiseAccountant::get(double x, bool epsilon) const {
  const std::size_t n = n_, size = n * n;
  PairwiseResult r;
  r.n = n;
  r.value.assign(size, 0.0), r.lower.assign(size, 0.0), r.upper.assign(size, 0.0), r.order.assign(size, 0.0);
  r.method.assign(size, PairMethod::none);
  // GDP entries: one root per distinct mu^2 (symmetric graphs and pair-independent events repeat values).
  std::vector<double> keys;
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v)
      if (method(u, v) == PairMethod::gdp) keys.push_back(mu2_[u * n + v] + common_mu2_);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<PairValue> solved(keys.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t k = 0; k < keys.size(); ++k) solved[k] = gdp_entry(keys[k], x, epsilon);
  std::size_t edge = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : edge)
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = 0; v < n; ++v) {
      const std::size_t i = u * n + v;
      const PairMethod m = method(u, v);
      PairValue p;
      if (m == PairMethod::gdp) {
        const double key = mu2_[i] + common_mu2_;
        p = solved[std::size_t(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin())];
      } else if (m == PairMethod::rdp) {
        p = rdp_entry(i, x, epsilon);
      }
      r.value[i] = p.value, r.lower[i] = p.lower, r.upper[i] = p.upper, r.order[i] = p.order;
      r.method[i] = p.method;
      edge += p.at_grid_edge ? 1 : 0;
    }
  r.at_grid_edge = edge;
  return r;
}

PairwiseResult PairwiseAccountant::get_epsilon(double delta) const {
  require_open_unit("PairwiseAccountant::get_epsilon", "delta", delta);
  return get(delta, true);
}

PairwiseResult PairwiseAccountant::get_delta(double epsilon) const {
  require_nonnegative("PairwiseAccountant::get_delta", "epsilon", epsilon);
  return get(epsilon, false);
}

PairMaximum max_over_pairs(const PairwiseResult& result) {
  PairMaximum best{-INFINITY, 0, 0};
  for (std::size_t u = 0; u < result.n; ++u)
    for (std::size_t v = 0; v < result.n; ++v)
      if (u != v && result.value[u * result.n + v] > best.value)
        best = {result.value[u * result.n + v], u, v};
  if (result.n < 2) best.value = 0;
  return best;
}

std::vector<DistanceRow> by_distance(const PairwiseResult& result, std::span<const std::int64_t> distance) {
  if (distance.size() != result.n * result.n)
    throw InvalidInput("by_distance: the distance matrix must be " + std::to_string(result.n) + " x " +
                       std::to_string(result.n) + " (got " + std::to_string(distance.size()) + " values)");
  std::map<std::int64_t, DistanceRow> rows;
  for (std::size_t u = 0; u < result.n; ++u)
    for (std::size_t v = 0; v < result.n; ++v) {
      const std::int64_t d = distance[u * result.n + v];
      if (u == v || d < 1) continue;
      const double x = result.value[u * result.n + v];
      auto [it, added] = rows.try_emplace(d, DistanceRow{d, 0, 0.0, x, x});
      DistanceRow& row = it->second;
      row.pairs += 1, row.mean += x, row.min = std::min(row.min, x), row.max = std::max(row.max, x);
    }
  std::vector<DistanceRow> out;
  for (auto& [d, row] : rows) {
    row.mean /= double(row.pairs);
    out.push_back(row);
  }
  return out;
}

std::vector<DistanceRow> by_distance(const PairwiseResult& result, const Graph& graph) {
  if (std::size_t(graph.num_nodes()) != result.n)
    throw InvalidInput("by_distance: the graph has " + std::to_string(graph.num_nodes()) +
                       " nodes, the result " + std::to_string(result.n));
  std::vector<std::int64_t> distance(result.n * result.n);
  for (std::size_t u = 0; u < result.n; ++u) {
    const std::vector<node_t> row = bfs_distances(graph, node_t(u));
    for (std::size_t v = 0; v < result.n; ++v) distance[u * result.n + v] = row[v];
  }
  return by_distance(result, distance);
}

}  // namespace netdp::dp
